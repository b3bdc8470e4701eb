// `kerf-gitops reconcile --recommendations cluster` as the CLI wires it: GitHub from GITHUB_*, the
// cluster from KUBECONFIG, the loop's status writes after the PRs. (The loop itself: loop.test.ts.)
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { main } from '../../src/cli/main.js';
import { EXAMPLE, OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { syncFromGit } from '../support/gitops-sync.js';

let git: GitServer;
let h: Harness;
let api: KubeApi;
const kubeconfig = process.env.KUBECONFIG;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  h = await startHarness(git);
  api = await startKubeApi();
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  for (const name of ['shop', 'tools']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await syncFromGit(api, h.bare, 'main', ['apps/shop/checkout.yaml', 'apps/tools/grafana.yaml']);
  const texts = await Promise.all(['shop.yaml', 'other-namespaces.yaml'].map((file) => readFile(join(EXAMPLE, 'recommendations', file), 'utf8')));
  for (const object of texts.flatMap((text) => parseAllDocuments(text).map((doc) => doc.toJS() as KubernetesObject))) {
    if (['checkout', 'grafana'].includes(object.metadata?.name ?? '')) await objects.create(object);
  }
});
afterAll(async () => {
  process.env.KUBECONFIG = kubeconfig;
  await h?.close();
  await api?.close();
  await git?.close();
});

describe('kerf-gitops reconcile --recommendations cluster', () => {
  it('G1: opens the PR from the cluster recommendation and writes the statuses back (Proposed with its PR, Unmanaged)', async () => {
    process.env.KUBECONFIG = api.kubeconfigPath;
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
    const env = { ...process.env, GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url, KERF_PAUSE: '' };
    const code = await main(['reconcile', '--repo', h.clone, '--recommendations', 'cluster', '--now', '2026-12-02T10:00:00Z', '--output', 'json'], env);
    vi.restoreAllMocks();
    const result = JSON.parse(stdout);
    expect(result.errors).toEqual([]);
    expect(code).toBe(0);
    expect(result.plan.decisions.map((d: { target: { name: string } }) => d.target.name)).toEqual(['checkout', 'grafana']);
    const pr = result.pullRequests.find((p: { branch: string }) => p.branch === 'kerf/shop/deployment/checkout');
    expect(pr).toMatchObject({ action: 'opened', number: expect.any(Number) });
    const status = (namespace: string, name: string) => api.store.get('rightsizingrecommendations', namespace, name)?.status;
    expect(status('shop', 'checkout')).toMatchObject({ phase: 'Proposed', strategy: 'rollout', pullRequest: { number: pr.number, url: pr.url } });
    expect(status('tools', 'grafana')).toMatchObject({ phase: 'Unmanaged' });
  });
});
