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
async function outdatedStatefulSet(onDelete: Record<string, unknown>): Promise<void> {
  await h.create(statefulSet('db', { namespace: 'shop', replicas: 3, onDelete: true, containers: [container({ requests: { cpu: '500m', memory: '512Mi' } })] }) as KubernetesObject);
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
    await eventually(() => h.recommendationStatus('db').phase === 'Applied', 5_000, controllerTick([]));
    expect(events('Blocked')).toHaveLength(1);
  });
});
