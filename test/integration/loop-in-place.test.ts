// The helper's half of the loop against the Kubernetes stand-in: an in-place change → Applied and
// watched → an OOMKilled container → RolledBack, resized back in place (Z2: in a freeze too), not
// re-applied until the spec changes; and OnDelete replacement stopping on a breach (OD2).
import { writeFileSync } from 'node:fs';
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/cluster/objects.js';
import { container, deployment, statefulSet } from '../standins/kube/builders.js';
import { eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness } from '../helper/cluster-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
});
afterEach(async () => h.close());

const events = (action: string) => (h.events() as unknown as { action: string; reason: string; note: string; related?: { name: string } }[]).filter((e) => e.action === action);
const podsOf = (app: string) => (h.api.store.list('pods', 'shop') as unknown as Pod[]).filter((pod) => pod.metadata.labels?.app === app && !pod.metadata.deletionTimestamp);
const requestsOf = (pod: Pod) => ({ spec: pod.spec.containers[0]?.resources?.requests, actual: pod.status?.containerStatuses?.[0]?.resources?.requests });

/** The kubelet saw the container killed for memory just now (restart count up, lastState OOMKilled). */
function oomKill(pod: Pod): void {
  const [first, ...rest] = pod.status?.containerStatuses ?? [];
  const killed = { ...first!, restartCount: (first?.restartCount ?? 0) + 1, lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: new Date().toISOString() } } };
  h.api.store.put({ ...pod, status: { ...pod.status, containerStatuses: [killed, ...rest] } } as never);
}

describe('the life of an in-place change, from Applied to resized back', () => {
  it('S2, Z2: a breach during the health watch rolls the pods back in place; no flapping until the spec changes', async () => {
    await h.create(deployment('cart', { namespace: 'shop', replicas: 2, containers: [container({ requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } })] }) as KubernetesObject);
    await h.api.store.reconcileWorkloads();
    await h.create(policy({ healthWatch: { duration: '10m' } }));
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }]));
    // Z2: the rollback runs although a chart-wide freeze is on by the time of the breach.
    const config = h.writeConfig({ freeze: { now: false } });
    await h.helper({ config });

    const watching = await eventually(() => {
      const status = h.recommendationStatus('cart');
      return status.phase === 'Applied' && (status.health as { state?: string } | undefined)?.state === 'Watching' && status;
    });
    expect(Date.parse((watching.health as { until: string }).until) - Date.parse(watching.appliedAt as string)).toBe(10 * 60_000);
    for (const pod of podsOf('cart')) expect(requestsOf(pod).actual).toEqual({ cpu: '250m', memory: '384Mi' });

    writeFileSync(config, 'freeze:\n  now: true\n');
    await eventually(() => h.logs.some((line) => line.message === 'config reloaded'));
    const [victim] = podsOf('cart');
    oomKill(victim!);
    const rolledBack = await eventually(() => h.recommendationStatus('cart').phase === 'RolledBack' && h.recommendationStatus('cart'));
    expect(rolledBack).toMatchObject({ strategy: 'in-place', rolledBackGeneration: 1, health: { state: 'Breached', breach: expect.stringContaining(`pod ${victim!.metadata.name} was OOMKilled`) } });
    // The webhook stops giving new pods the recommended values.
    expect(rolledBack).not.toHaveProperty('observedGeneration');
    await eventually(() => podsOf('cart').every((pod) => requestsOf(pod).actual?.cpu === '500m' && requestsOf(pod).actual?.memory === '512Mi'));
    for (const pod of podsOf('cart')) expect(requestsOf(pod).spec).toEqual({ cpu: '500m', memory: '512Mi' });
    await eventually(() => events('RolledBack').length === 1);
    expect(events('RolledBack')[0]).toMatchObject({ reason: 'OOMKilled', note: expect.stringContaining('resizing back in place') });

    // No flapping: more passes leave the pods alone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(podsOf('cart').map((pod) => requestsOf(pod).spec?.cpu)).toEqual(['500m', '500m']);

    // A new spec (generation 2) is applied again (the freeze is lifted first) with a fresh watch.
    writeFileSync(config, 'freeze:\n  now: false\n');
    await eventually(() => h.logs.filter((line) => line.message === 'config reloaded').length === 2);
    const custom = h.api.kubeConfig().makeApiClient(CustomObjectsApi);
    await custom.patchNamespacedCustomObject(
      { group: 'kerf.getkerf.dev', version: 'v1alpha1', plural: 'rightsizingrecommendations', namespace: 'shop', name: 'cart', body: { spec: { containers: [{ name: 'app', requests: { cpu: '300m', memory: '512Mi' } }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const reapplied = await eventually(() => {
      const status = h.recommendationStatus('cart');
      return status.phase === 'Applied' && (status.health as { state?: string } | undefined)?.state === 'Watching' && status;
    });
    expect(reapplied.observedGeneration).toBe(2);
    for (const pod of podsOf('cart')) expect(requestsOf(pod).actual?.cpu).toBe('300m');
  });

});

describe('OnDelete StatefulSets in the loop', () => {
  const custom = () => h.api.kubeConfig().makeApiClient(CustomObjectsApi);
  const writeStatus = (status: Record<string, unknown>) =>
    custom().patchNamespacedCustomObjectStatus(
      { group: 'kerf.getkerf.dev', version: 'v1alpha1', plural: 'rightsizingrecommendations', namespace: 'shop', name: 'db', body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  const watching = () => ({ phase: 'Applied', strategy: 'rollout', configuredStrategy: 'rollout', appliedAt: new Date(Date.now() - 1000).toISOString(), health: { state: 'Watching', until: new Date(Date.now() + 600_000).toISOString() } });

  /** A 2-pod OnDelete StatefulSet whose template a merged kerf PR changed, with the status the reconciler wrote. */
  async function mergedStatefulSet(status: Record<string, unknown>): Promise<void> {
    await h.create(statefulSet('db', { namespace: 'shop', replicas: 2, onDelete: true, containers: [container({ requests: { cpu: '500m', memory: '512Mi' } })] }) as KubernetesObject);
    await h.api.store.reconcileWorkloads();
    await h.create(policy({ strategy: 'rollout', onDelete: { settle: '0s' } }));
    await h.create(recommendation({ kind: 'StatefulSet', name: 'db' }, [{ name: 'app', requests: { cpu: '250m' } }]));
    await writeStatus(status);
    await h.api.kubeConfig().makeApiClient(AppsV1Api).patchNamespacedStatefulSet(
      { namespace: 'shop', name: 'db', body: { spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '250m', memory: '512Mi' } } }] } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    await h.api.store.reconcileWorkloads();
  }

  it('OD1, G5: replacement begins only once the reconciler has seen the merge reach the cluster (Resizing)', async () => {
    await mergedStatefulSet({ phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'rollout', pullRequest: { number: 1, url: 'https://github.example/pull/1' } });
    await h.helper();
    // Passes run every 50 ms once this helper leads; the pods' Ready times are whole seconds, so
    // settle (0s) lets them go at most a second after they started: wait past that.
    await eventually(() => h.logs.some((line) => line.message === 'became leader'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(events('Evicted')).toEqual([]);
    // What the reconciler writes once the merge reached the cluster and the pods do not run the values yet.
    await writeStatus({ phase: 'Resizing', strategy: 'rollout', configuredStrategy: 'rollout', pullRequest: { number: 1, url: 'https://github.example/pull/1' } });
    await eventually(() => events('Evicted').length >= 1, 10_000, () => h.api.store.reconcileWorkloads());
    expect(events('Evicted')[0]?.related?.name).toBe('db-1');
  });

  it('OD2: replacement stops while the health watch reports a breach', async () => {
    await mergedStatefulSet(watching());
    oomKill(podsOf('db').find((pod) => pod.metadata.name === 'db-0')!);
    await h.helper();
    await eventually(() => h.logs.some((line) => line.message === 'OnDelete replacement stopped by the health watch'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events('Evicted')).toEqual([]);
    expect(podsOf('db')).toHaveLength(2);

    // The watch ends Healthy (a person judged the OOM unrelated): replacement goes on (OD1).
    await writeStatus({ health: { state: 'Healthy' } });
    await eventually(() => events('Evicted').length >= 1, 10_000, () => h.api.store.reconcileWorkloads());
    expect(events('Evicted')[0]?.related?.name).toBe('db-1');
  });
});
