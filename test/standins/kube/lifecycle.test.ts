// Where the real apiserver and kubelet take time or refuse, and the stand-in used not to: pods
// Pending before they run, graceful deletion, APF 429s with Retry-After, stale status writes.
import { ApiException, CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { pod } from './builders.js';
import { failure } from './expect-status.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';
import type { Pod } from './pods.js';

let api: KubeApi | undefined;
afterEach(async () => api?.close());

/** A clock tests move by hand. */
function manualClock(start = Date.parse('2026-12-03T10:00:00Z')) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

const stored = (name: string) => api!.store.get('pods', 'default', name) as Pod | undefined;
const ready = (name: string) => stored(name)?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('kube stand-in: pods take time, as kubelets do', () => {
  it('a scheduled pod stays Pending (ContainerCreating, not Ready) for podStartDelayMs, then runs', async () => {
    const time = manualClock();
    api = await startKubeApi({ clock: time.clock, podStartDelayMs: 5_000 });
    api.nodes.addNode({ name: 'node-a', capacity: { cpu: '4', memory: '8Gi' } });
    await api.kubeConfig().makeApiClient(CoreV1Api).createNamespacedPod({ namespace: 'default', body: pod('web') as V1Pod });
    expect(stored('web')).toMatchObject({ spec: { nodeName: 'node-a' }, status: { phase: 'Pending', containerStatuses: [{ ready: false, state: { waiting: { reason: 'ContainerCreating' } } }] } });
    expect(ready('web')).toBe('False');
    time.advance(4_000);
    api.nodes.tick();
    expect(stored('web')?.status?.phase).toBe('Pending');
    time.advance(1_000);
    api.nodes.tick();
    expect(stored('web')?.status?.phase).toBe('Running');
    expect(ready('web')).toBe('True');
  });

  it('graceful deletion: Terminating (deletionTimestamp, not Ready) for the grace period, then gone', async () => {
    const time = manualClock();
    api = await startKubeApi({ clock: time.clock, gracefulPodDeletion: true });
    api.nodes.addNode({ name: 'node-a', capacity: { cpu: '4', memory: '8Gi' } });
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    const body = pod('web') as V1Pod;
    body.spec!.terminationGracePeriodSeconds = 10;
    await core.createNamespacedPod({ namespace: 'default', body });
    const answered = await core.deleteNamespacedPod({ namespace: 'default', name: 'web' });
    expect(answered.metadata).toMatchObject({ deletionTimestamp: expect.any(Date), deletionGracePeriodSeconds: 10 });
    api.nodes.tick();
    expect(stored('web')?.metadata.deletionTimestamp).toBe('2026-12-03T10:00:10Z');
    expect(ready('web')).toBe('False');
    time.advance(9_000);
    api.nodes.tick();
    expect(stored('web')).toBeDefined();
    time.advance(1_000);
    api.nodes.tick();
    expect(stored('web')).toBeUndefined();
  });

  it('gracePeriodSeconds=0 deletes at once; an eviction goes the graceful way', async () => {
    api = await startKubeApi({ gracefulPodDeletion: true });
    api.nodes.addNode({ name: 'node-a', capacity: { cpu: '4', memory: '8Gi' } });
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({ namespace: 'default', body: pod('a') as V1Pod });
    await core.createNamespacedPod({ namespace: 'default', body: pod('b') as V1Pod });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'a', gracePeriodSeconds: 0 });
    expect(stored('a')).toBeUndefined();
    await core.createNamespacedPodEviction({ namespace: 'default', name: 'b', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'b', namespace: 'default' } } });
    expect(stored('b')?.metadata.deletionTimestamp).toEqual(expect.any(String));
  });
});

describe('kube stand-in: 429s that are not disruption budgets', () => {
  it.each([
    ['API Priority and Fairness', undefined, 'Too many requests, please try again later.'],
    ['storage initializing', 'storage is (re)initializing', 'storage is (re)initializing'],
  ])('%s: 429 TooManyRequests with Retry-After and no DisruptionBudget cause, then the eviction goes', async (_case, message, expected) => {
    api = await startKubeApi();
    api.nodes.addNode({ name: 'node-a', capacity: { cpu: '4', memory: '8Gi' } });
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({ namespace: 'default', body: pod('web') as V1Pod });
    api.throttleEvictions(1, { retryAfterSeconds: 3, ...(message && { message }) });
    const evict = () => core.createNamespacedPodEviction({ namespace: 'default', name: 'web', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web', namespace: 'default' } } });
    const refused = await evict().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException<unknown>).headers['retry-after']).toBe('3');
    const status = JSON.parse((refused as ApiException<string>).body) as Record<string, unknown>;
    expect(status).toMatchObject({ code: 429, reason: 'TooManyRequests', message: expected, details: { retryAfterSeconds: 3 } });
    expect(status).not.toHaveProperty('details.causes');
    await evict();
    expect(stored('web')).toBeUndefined();
  });
});

describe('kube stand-in: optimistic concurrency on status', () => {
  it('a status merge patch carrying a stale resourceVersion is 409 Conflict; the current one is written', async () => {
    api = await startKubeApi();
    const custom = api.kubeConfig().makeApiClient(CustomObjectsApi);
    const target = { group: 'kerf.getkerf.dev', version: 'v1alpha1', plural: 'rightsizingrecommendations', namespace: 'default', name: 'web' };
    const created = (await custom.createNamespacedCustomObject({
      ...target,
      body: { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: 'web' }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, containers: [{ name: 'app', requests: { cpu: '100m' } }] } },
    })) as { metadata: { resourceVersion: string } };
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const read = created.metadata.resourceVersion;
    await custom.patchNamespacedCustomObjectStatus({ ...target, body: { metadata: { resourceVersion: read }, status: { phase: 'Pending' } } }, merge);
    const status = await failure(custom.patchNamespacedCustomObjectStatus({ ...target, body: { metadata: { resourceVersion: read }, status: { phase: 'Proposed' } } }, merge));
    expect(status).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(api.store.get('rightsizingrecommendations', 'default', 'web')?.status).toEqual({ phase: 'Pending' });
  });
});
