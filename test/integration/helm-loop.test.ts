// Closing the loop for a Helm workload (G5): recommendation in the cluster → PR editing the
// HelmRelease's values → merge → a simulated Helm upgrade that renders the merged values into the
// live Deployment → Applied. Real git, octokit and client-node against the stand-ins.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { loopRun } from '../support/loop-run.js';
import { wireRecommendation } from '../support/cluster-source.js';

const example = join(import.meta.dirname, '../../examples/helm');
const START = Date.now();
const clock = () => new Date(Date.parse('2026-12-02T10:00:00Z') + (Date.now() - START));
let git: GitServer;
let h: Harness;
let api: KubeApi;

async function exampleFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(example, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) files[relative(example, join(entry.parentPath, entry.name)).split(sep).join('/')] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

/** What helm-controller does after a sync: renders the chart (here: its Deployment) from the HelmRelease's values on main. */
async function helmUpgrade(): Promise<void> {
  const text = await runGit(['show', 'refs/heads/main:apps/podinfo/release.yaml'], { cwd: h.bare });
  const values = (parseDocument(text).toJS() as { spec: { values: { replicaCount: number; resources: unknown } } }).spec.values;
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'podinfo', namespace: 'podinfo', labels: { 'app.kubernetes.io/managed-by': 'Helm', 'helm.toolkit.fluxcd.io/name': 'podinfo', 'helm.toolkit.fluxcd.io/namespace': 'podinfo' }, annotations: { 'meta.helm.sh/release-name': 'podinfo', 'meta.helm.sh/release-namespace': 'podinfo' } },
    spec: {
      replicas: values.replicaCount,
      selector: { matchLabels: { app: 'podinfo' } },
      template: { metadata: { labels: { app: 'podinfo' } }, spec: { containers: [{ name: 'podinfo', image: 'ghcr.io/stefanprodan/podinfo:6.7.0', resources: values.resources }] } },
    },
  };
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  const live = await objects.read(deployment as KubernetesObject & { metadata: { name: string } }).catch(() => undefined);
  if (live) await objects.replace({ ...deployment, metadata: { ...deployment.metadata, resourceVersion: live.metadata?.resourceVersion } });
  else await objects.create(deployment);
  await api.store.reconcileWorkloads();
  api.nodes.settle();
  await api.store.reconcileWorkloads();
}

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  h = await startHarness(git, { shallow: false, baseFiles: await exampleFiles() });
  api = await startKubeApi({ clock });
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '32', memory: '64Gi' } });
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'podinfo' } });
  await helmUpgrade();
  await objects.create(wireRecommendation('podinfo', 'podinfo', { kind: 'Deployment', name: 'podinfo' }, [{ name: 'podinfo', requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '192Mi' } }]) as KubernetesObject);
});
afterAll(async () => {
  await h?.close();
  await api?.close();
  await git?.close();
});

const status = () => (api.store.get('rightsizingrecommendations', 'podinfo', 'podinfo')?.status ?? {}) as Record<string, unknown>;

describe('a Flux HelmRelease workload, from recommendation to Applied', () => {
  it('proposes a PR editing spec.values, and is Applied once the Helm upgrade rendered the merged values', async () => {
    const run = loopRun(h, api, clock);
    const first = await run();
    expect(first.errors).toEqual([]);
    const pr = h.gh.state.prs.find((candidate) => candidate.head === 'kerf/podinfo/deployment/podinfo');
    expect(pr).toBeDefined();
    expect(status()).toMatchObject({ phase: 'Proposed', pullRequest: { number: pr?.number } });
    const values = parseDocument(await h.show('kerf/podinfo/deployment/podinfo', 'apps/podinfo/release.yaml')).toJS() as { spec: { values: { resources: unknown } } };
    expect(values.spec.values.resources).toEqual({ requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '192Mi' } });

    await h.gh.mergePullRequest(pr?.number as number);
    await run();
    // Merged, but helm-controller has not upgraded the release yet: the live template lags.
    expect(status()).toMatchObject({ phase: 'Proposed' });

    await helmUpgrade();
    await run();
    expect(status()).toMatchObject({ phase: 'Applied', appliedAt: expect.any(String) });
  });
});
