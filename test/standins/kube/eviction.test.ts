import { AppsV1Api, CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import type { V1Pod, V1PodDisruptionBudget, V1StatefulSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pod, podDisruptionBudget, statefulSet } from './builders.js';
import { PDB_VIOLATION } from './eviction.js';
import { failure } from './expect-status.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

let api: KubeApi;
let core: CoreV1Api;

beforeAll(async () => {
  api = await startKubeApi();
  core = api.kubeConfig().makeApiClient(CoreV1Api);
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
});
afterAll(async () => api.close());

const evict = (name: string, namespace: string) =>
  core.createNamespacedPodEviction({ name, namespace, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } } });

async function replicas(namespace: string, count: number, labels: Record<string, string>): Promise<void> {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (let index = 0; index < count; index++) {
    await core.createNamespacedPod({ namespace, body: pod(`p${index}`, { namespace, labels }) as V1Pod });
  }
}

describe('pods/eviction with PodDisruptionBudgets', () => {
  it.each([
    ['minAvailable equal to the Ready pods', { minAvailable: 2 }, 429],
    ['minAvailable below the Ready pods', { minAvailable: 1 }, 201],
    ['maxUnavailable 0', { maxUnavailable: 0 }, 429],
    ['maxUnavailable 50% of 2 (rounded up to 1)', { maxUnavailable: '50%' }, 201],
    ['minAvailable 100%', { minAvailable: '100%' }, 429],
    ['minAvailable 40% of 2 (rounded up to 1)', { minAvailable: '40%' }, 201],
  ])('%s (%j) → %i', async (_case, budget, code) => {
    const namespace = `pdb-${code}-${Object.values(budget)[0]}`.replace('%', 'pct').toLowerCase();
    await replicas(namespace, 2, { app: 'guarded' });
    await api.kubeConfig().makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace, body: podDisruptionBudget('guard', { app: 'guarded' }, budget, namespace) as V1PodDisruptionBudget });
    if (code === 201) {
      await evict('p0', namespace);
      expect((await core.listNamespacedPod({ namespace })).items.map((item) => item.metadata?.name)).toEqual(['p1']);
    } else {
      const status = await failure(evict('p0', namespace));
      expect(status).toMatchObject({ code: 429, reason: 'TooManyRequests', message: PDB_VIOLATION, details: { causes: [{ reason: 'DisruptionBudget' }] } });
      expect((await core.listNamespacedPod({ namespace })).items).toHaveLength(2);
    }
  });

  it('evicts pods no budget selects, and answers 404 for a missing pod', async () => {
    await replicas('unguarded', 1, { app: 'free' });
    api.store.put(podDisruptionBudget('other', { app: 'someone-else' }, { minAvailable: 5 }, 'unguarded'));
    await evict('p0', 'unguarded');
    expect((await failure(evict('p0', 'unguarded'))).code).toBe(404);
  });

  it('counts only Ready pods as healthy', async () => {
    await replicas('unready', 3, { app: 'half' });
    const notReady = api.store.get('pods', 'unready', 'p2')!;
    api.store.put({ ...notReady, status: { ...(notReady.status as object), conditions: [{ type: 'Ready', status: 'False' }] } });
    api.store.put(podDisruptionBudget('guard', { app: 'half' }, { minAvailable: 2 }, 'unready'));
    expect((await failure(evict('p0', 'unready'))).code).toBe(429);
    // An unready pod may go while the budget still holds (unhealthyPodEvictionPolicy IfHealthyBudget).
    await evict('p2', 'unready');
  });
});

describe('StatefulSet controller simulation', () => {
  it('creates ordinal pods with the update revision and re-creates an evicted OnDelete pod at the new revision', async () => {
    const apps = api.kubeConfig().makeApiClient(AppsV1Api);
    await core.createNamespace({ body: { metadata: { name: 'sts' } } });
    await apps.createNamespacedStatefulSet({ namespace: 'sts', body: statefulSet('db', { namespace: 'sts', replicas: 2, onDelete: true }) as V1StatefulSet });
    await api.store.reconcileWorkloads();
    const first = await apps.readNamespacedStatefulSet({ name: 'db', namespace: 'sts' });
    const original = first.status?.updateRevision;
    expect(first.status).toMatchObject({ replicas: 2, readyReplicas: 2, currentRevision: original });
    const pods = await core.listNamespacedPod({ namespace: 'sts' });
    expect(pods.items.map((item) => [item.metadata?.name, item.metadata?.labels?.['controller-revision-hash'], item.status?.phase])).toEqual([
      ['db-0', original, 'Running'],
      ['db-1', original, 'Running'],
    ]);

    first.spec!.template.spec!.containers[0]!.resources = { requests: { cpu: '200m', memory: '128Mi' } };
    await apps.replaceNamespacedStatefulSet({ name: 'db', namespace: 'sts', body: first });
    await api.store.reconcileWorkloads();
    const updated = await apps.readNamespacedStatefulSet({ name: 'db', namespace: 'sts' });
    expect(updated.status?.updateRevision).not.toBe(original);
    expect(updated.status?.currentRevision).toBe(original);

    await evict('db-1', 'sts');
    await api.store.reconcileWorkloads();
    const replaced = await core.readNamespacedPod({ name: 'db-1', namespace: 'sts' });
    expect(replaced.metadata?.labels?.['controller-revision-hash']).toBe(updated.status?.updateRevision);
    expect(replaced.spec?.containers[0]?.resources?.requests?.cpu).toBe('200m');
    expect((await core.readNamespacedPod({ name: 'db-0', namespace: 'sts' })).metadata?.labels?.['controller-revision-hash']).toBe(original);

    await core.deleteNamespacedPod({ name: 'db-0', namespace: 'sts' });
    await api.store.reconcileWorkloads();
    expect((await apps.readNamespacedStatefulSet({ name: 'db', namespace: 'sts' })).status?.currentRevision).toBe(updated.status?.updateRevision);
  });

  it('rolls a Deployment through a ReplicaSet and keeps PDB status current', async () => {
    const apps = api.kubeConfig().makeApiClient(AppsV1Api);
    await core.createNamespace({ body: { metadata: { name: 'deploy' } } });
    api.store.put(podDisruptionBudget('web', { app: 'web' }, { maxUnavailable: 1 }, 'deploy'));
    await apps.createNamespacedDeployment({ namespace: 'deploy', body: { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'web:1' }] } } } } });
    await api.store.reconcileWorkloads();
    const status = (await apps.readNamespacedDeployment({ name: 'web', namespace: 'deploy' })).status;
    expect(status).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 3 });
    const budget = await api.kubeConfig().makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ name: 'web', namespace: 'deploy' });
    expect(budget.status).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
    const replicaSets = await apps.listNamespacedReplicaSet({ namespace: 'deploy' });
    expect(replicaSets.items).toHaveLength(1);
    expect((await core.listNamespacedPod({ namespace: 'deploy' })).items.every((item) => item.metadata?.ownerReferences?.[0]?.uid === replicaSets.items[0]?.metadata?.uid)).toBe(true);
  });
});
