// Issue 11: the helper and the reconciler against ONE Kubernetes stand-in through several
// scheduled runs (pods take time to start, as on a real cluster). Each owns its stage of the
// status life cycle: no phase ever flips back and no Event is written twice.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { runHelper, type RunningHelper } from '../../src/helper/main.js';
import { EXAMPLE, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { collectingLogger, eventually, type LogLine } from '../helper/cluster-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { loopRun } from '../support/loop-run.js';
import { syncFromGit } from '../support/gitops-sync.js';
import { standinClient } from '../support/kube-client.js';

// A Wednesday 10:00 UTC moving with the wall clock: no window or freeze is open for the shop.
const START = Date.now();
const clock = () => new Date(Date.parse('2026-12-02T10:00:00Z') + (Date.now() - START));

let git: GitServer;
let h: Harness;
let api: KubeApi;
let helper: RunningHelper;
const logs: LogLine[] = [];
/** Every phase each recommendation went through, as sampled. */
const history = new Map<string, string[]>();
let sampler: NodeJS.Timeout;

const status = (name: string) => (api.store.get('rightsizingrecommendations', 'shop', name)?.status ?? {}) as Record<string, unknown>;
const events = () => api.store.list('events.events.k8s.io', 'shop') as unknown as { action: string; reason: string; note: string; regarding: { name: string } }[];

function sample(): void {
  for (const name of ['frontend', 'cart']) {
    const phase = String(status(name).phase ?? 'none');
    const seen = history.get(name) ?? [];
    if (seen[seen.length - 1] !== phase) seen.push(phase);
    history.set(name, seen);
  }
}

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  h = await startHarness(git, { shallow: false });
  api = await startKubeApi({ clock, podStartDelayMs: 2_500, kubeletIntervalMs: 20 });
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '32', memory: '64Gi' } });
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  for (const name of ['shop', 'kerf-system']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await syncFromGit(api, h.bare, 'main', ['apps/shop/frontend.yaml', 'apps/shop/cart.yaml']);
  const docs = async (file: string) => parseAllDocuments(await readFile(join(EXAMPLE, file), 'utf8')).map((doc) => doc.toJS() as KubernetesObject);
  // The HPA over frontend (R3: its change goes by rollout) and the shop's policies, as Argo CD would have synced them.
  for (const object of [...(await docs('apps/shop/frontend.yaml')).filter((o) => o.kind === 'HorizontalPodAutoscaler'), ...(await docs('policies/shop.yaml'))]) await objects.create(object);
  for (const object of (await docs('recommendations/shop.yaml')).filter((o) => ['frontend', 'cart'].includes(o.metadata?.name ?? ''))) await objects.create(object);
  await eventually(async () => {
    await api.store.reconcileWorkloads();
    return (api.store.list('pods', 'shop') as { status?: { phase?: string } }[]).every((pod) => pod.status?.phase === 'Running');
  });
  helper = await runHelper({ client: standinClient(api), noWebhook: true, logger: collectingLogger(logs), identity: 'helper-a', namespace: 'kerf-system', host: '127.0.0.1', resyncMs: 50, leaseDurationSeconds: 3, leaseRetryMs: 50, now: clock });
  sampler = setInterval(sample, 5);
});
afterAll(async () => {
  clearInterval(sampler);
  await helper?.stop();
  await h?.close();
  await api?.close();
  await git?.close();
});

// h and api exist once beforeAll ran.
const run = (): Promise<ReconcileResult> => loopRun(h, api, clock)();

/** A scheduled run, then a while for the helper's passes (every 50 ms) to answer it. */
async function scheduledRun(): Promise<ReconcileResult> {
  const result = await run();
  expect(result.errors).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 600));
  return result;
}

describe('the helper and the reconciler on one cluster (issue 11 finding 2)', () => {
  it('an HPA-coordinated change goes Pending → Proposed → Resizing → Applied, never back, one Event per move; the in-place one stays the helper\'s', async () => {
    await eventually(() => status('frontend').phase === 'Pending' && status('cart').phase === 'Applied', 20_000);
    expect(status('frontend')).toMatchObject({ strategy: 'rollout', reason: 'HPACoordination', configuredStrategy: 'in-place' });

    for (let index = 0; index < 3; index++) await scheduledRun();
    const pr = h.gh.state.prs.find((candidate) => candidate.head === 'kerf/shop/deployment/frontend');
    expect(pr).toBeDefined();
    expect(status('frontend')).toMatchObject({ phase: 'Proposed', pullRequest: { number: pr!.number } });
    expect(logs.filter((line) => line.message === 'status left to its owner' && line.meta.recommendation === 'shop/frontend').length).toBeGreaterThan(0);

    // Merged and synced: new pods are Pending for a while; Applied only once they run the values.
    await h.gh.mergePullRequest(pr!.number);
    await syncFromGit(api, h.bare, 'main', ['apps/shop/frontend.yaml']);
    await run();
    expect(status('frontend').phase).toBe('Resizing');
    await eventually(async () => {
      await api.store.reconcileWorkloads();
      await scheduledRun();
      return status('frontend').phase === 'Applied';
    }, 20_000);
    await scheduledRun();
    sample();

    expect(history.get('frontend')).toEqual(['none', 'Pending', 'Proposed', 'Resizing', 'Applied']);
    expect(history.get('cart')?.slice(-1)).toEqual(['Applied']);
    expect(new Set(history.get('cart')).size).toBe(history.get('cart')!.length);
    const frontend = events().filter((event) => event.regarding.name === 'frontend').map((event) => `${event.action}/${event.reason}`);
    expect(frontend).toEqual(['Proposed/HPACoordination', 'Applied/Applied']);
    expect(status('frontend')).toMatchObject({ strategy: 'rollout', appliedAt: expect.any(String), health: { state: 'Watching' }, pullRequest: { number: pr!.number } });
  });
});
