import { AppsV1Api, PatchStrategy, PolicyV1Api, setHeaderOptions } from '@kubernetes/client-node';
import type { KubernetesObject, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/cluster/objects.js';
import { container, statefulSet } from '../standins/kube/builders.js';
import { eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness } from '../helper/cluster-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
});
afterEach(async () => h.close());

interface EventView {
  action: string;
  reason: string;
  eventTime: string;
  related?: { name: string };
}

const dbPods = () => (h.api.store.list('pods', 'shop') as unknown as Pod[]).filter((pod) => pod.metadata.labels?.app === 'db');
const updateRevision = () => (h.api.store.get('statefulsets', 'shop', 'db')?.status as { updateRevision?: string } | undefined)?.updateRevision;
const events = (action: string) => (h.events() as unknown as EventView[]).filter((event) => event.action === action);

/** A 3-pod OnDelete StatefulSet whose template then changes (a merged kerf rollout): all pods outdated. */
async function outdatedStatefulSet(onDelete: Record<string, unknown>, podSpec: Record<string, unknown> = {}): Promise<void> {
  const set = statefulSet('db', { namespace: 'shop', replicas: 3, onDelete: true, containers: [container({ requests: { cpu: '500m', memory: '512Mi' } })] });
  Object.assign((set.spec as { template: { spec: object } }).template.spec, podSpec);
  await h.create(set as KubernetesObject);
  await h.api.store.reconcileWorkloads();
  await h.create(policy({ strategy: 'rollout', onDelete }));
  await h.create(recommendation({ kind: 'StatefulSet', name: 'db' }, [{ name: 'app', requests: { cpu: '250m' } }]));
  const apps = h.api.kubeConfig().makeApiClient(AppsV1Api);
  await apps.patchNamespacedStatefulSet(
    { namespace: 'shop', name: 'db', body: { spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] } } } } },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
  );
  await h.api.store.reconcileWorkloads();
  const revision = updateRevision();
  expect(dbPods().map((pod) => pod.metadata.labels?.['controller-revision-hash'] === revision)).toEqual([false, false, false]);
}

/** Lets the StatefulSet controller replace evicted pods, recording how many pods were present. */
function controllerTick(present: number[]): () => Promise<void> {
  return async () => {
    present.push(dbPods().length);
    await h.api.store.reconcileWorkloads();
  };
}

describe('helper against the stand-in: OnDelete StatefulSets', () => {
  it('OD1, OD2: outdated pods are evicted highest ordinal first, one per pass, each after the set settled (1s)', async () => {
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' });
    await h.helper();
    const present: number[] = [];
    await eventually(() => dbPods().length === 3 && dbPods().every((pod) => pod.metadata.labels?.['controller-revision-hash'] === updateRevision()), 20_000, controllerTick(present));
    // The last Evicted event is written just after its eviction.
    const evicted = await eventually(() => events('Evicted').length === 3 && events('Evicted'));
    expect(evicted.map((event) => event.related?.name)).toEqual(['db-2', 'db-1', 'db-0']);
    expect(Math.min(...present)).toBeGreaterThanOrEqual(2);
    const times = evicted.map((event) => Date.parse(event.eventTime));
    for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(1000);
  });

  it('OD3: a PodDisruptionBudget refusal (429) is recorded as PodDisruptionBudget and retried on later passes', async () => {
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' });
    const budget: V1PodDisruptionBudget = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'db', namespace: 'shop' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'db' } } } };
    const policyApi = h.api.kubeConfig().makeApiClient(PolicyV1Api);
    await policyApi.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: budget });
    await h.api.store.reconcileWorkloads();
    await h.helper();
    await eventually(() => h.recommendationStatus('db').reason === 'PodDisruptionBudget', 10_000);
    expect(h.recommendationStatus('db')).toMatchObject({ phase: 'Blocked', reason: 'PodDisruptionBudget' });
    await eventually(() => events('Blocked').length === 1);
    expect(events('Blocked')[0]).toMatchObject({ reason: 'PodDisruptionBudget' });
    expect(h.logs.filter((line) => line.message === 'eviction refused by a PodDisruptionBudget').length).toBeGreaterThanOrEqual(1);
    expect(dbPods()).toHaveLength(3);
    // Retried: once the budget allows one disruption, the replacement goes on to the end.
    await policyApi.patchNamespacedPodDisruptionBudget(
      { namespace: 'shop', name: 'db', body: { spec: { minAvailable: 2 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(() => dbPods().length === 3 && dbPods().every((pod) => pod.metadata.labels?.['controller-revision-hash'] === updateRevision()), 20_000, controllerTick([]));
    // The refusal is over: back to the rollout's Resizing (the reconciler marks it Applied once its run sees the pods).
    await eventually(() => h.recommendationStatus('db').phase === 'Resizing', 5_000, controllerTick([]));
    expect(h.recommendationStatus('db')).not.toHaveProperty('message');
    expect(events('Blocked')).toHaveLength(1);
  });
});

describe('helper against the stand-in: evictions as the API server answers them (issue 11)', () => {
  const budget = (name: string, minAvailable: number): V1PodDisruptionBudget => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'shop' }, spec: { minAvailable, selector: { matchLabels: { app: 'db' } } } });
  const refusals = () => h.logs.filter((line) => line.message === 'eviction refused by a PodDisruptionBudget').length;

  it('finding 4: a PodDisruptionBudget refusal backs off instead of being retried every pass', async () => {
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' });
    await h.api.kubeConfig().makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'shop', body: budget('db', 3) });
    await h.api.store.reconcileWorkloads();
    await h.helper();
    await eventually(() => refusals() === 1, 10_000);
    // The helper passes every 50 ms; the first retry waits 5 s.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(refusals()).toBe(1);
    expect(h.logs.find((line) => line.message === 'eviction refused by a PodDisruptionBudget')?.meta).toMatchObject({ retryAt: expect.any(String) });
  });

  it('finding 4: a 429 without a DisruptionBudget cause (API Priority and Fairness) is no block: Retry-After is honoured, then the eviction goes', async () => {
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' });
    h.api.throttleEvictions(1, { retryAfterSeconds: 1 });
    const phases = new Set<unknown>();
    await h.helper();
    await eventually(() => {
      phases.add(h.recommendationStatus('db').phase);
      return events('Evicted').length === 1;
    }, 15_000);
    const throttled = h.logs.filter((line) => line.message === 'eviction throttled by the API server');
    expect(throttled).toHaveLength(1);
    expect(throttled[0]?.meta).toMatchObject({ error: 'Too many requests, please try again later.' });
    const [first] = events('Evicted');
    expect(Date.parse(first!.eventTime) - Date.parse(String(throttled[0]?.meta.retryAt))).toBeGreaterThanOrEqual(-1000);
    expect(phases.has('Blocked')).toBe(false);
    expect(events('Blocked')).toEqual([]);
  });

  it('finding 5: two PodDisruptionBudgets over one pod (500) → Blocked PodDisruptionBudget, an Event quoting the server and status.message', async () => {
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' });
    const policyApi = h.api.kubeConfig().makeApiClient(PolicyV1Api);
    await policyApi.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: budget('db-a', 1) });
    await policyApi.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: budget('db-b', 1) });
    await h.api.store.reconcileWorkloads();
    await h.helper();
    const status = await eventually(() => h.recommendationStatus('db').reason === 'PodDisruptionBudget' && h.recommendationStatus('db'), 10_000);
    expect(status).toMatchObject({ phase: 'Blocked', message: expect.stringContaining('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.') });
    const [blocked] = await eventually(() => events('Blocked').length === 1 && events('Blocked'));
    expect(blocked).toMatchObject({ reason: 'PodDisruptionBudget', type: 'Warning', note: expect.stringContaining('more than one PodDisruptionBudget') });
    expect(dbPods()).toHaveLength(3);
  });
});

describe('helper against the stand-in: OnDelete replacement with graceful deletion (issue 11)', () => {
  it('finding 3: the helper never says Applied while an evicted pod is Terminating or its replacement not yet Ready', async () => {
    await h.close();
    h = await startHarness({ gracefulPodDeletion: true, podStartDelayMs: 300 });
    h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
    await outdatedStatefulSet({ maxPodDeletesPerRun: 1, settle: '1s' }, { terminationGracePeriodSeconds: 1 });
    for (const pod of dbPods()) expect(pod.status?.phase).toBe('Pending');
    const policyApi = h.api.kubeConfig().makeApiClient(PolicyV1Api);
    await policyApi.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'db', namespace: 'shop' }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'db' } } } } });
    await h.helper();
    await eventually(() => h.recommendationStatus('db').reason === 'PodDisruptionBudget', 10_000, () => h.api.store.reconcileWorkloads());
    await policyApi.patchNamespacedPodDisruptionBudget({ namespace: 'shop', name: 'db', body: { spec: { minAvailable: 2 } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const seen = new Set<string>();
    const replaced = () => {
      const pods = dbPods();
      return pods.length === 3 && pods.every((pod) => !pod.metadata.deletionTimestamp && pod.status?.phase === 'Running' && pod.metadata.labels?.['controller-revision-hash'] === updateRevision());
    };
    await eventually(replaced, 30_000, async () => {
      if (dbPods().some((pod) => pod.metadata.deletionTimestamp)) seen.add('terminating');
      if (dbPods().some((pod) => pod.status?.phase === 'Pending')) seen.add('pending');
      seen.add(String(h.recommendationStatus('db').phase));
      await h.api.store.reconcileWorkloads();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...seen]).toEqual(expect.arrayContaining(['terminating', 'pending', 'Blocked', 'Resizing']));
    // Applied is the reconciler's, once its run sees every pod at the update revision and Ready.
    expect(seen.has('Applied')).toBe(false);
    expect(h.recommendationStatus('db').phase).toBe('Resizing');
  });
});
