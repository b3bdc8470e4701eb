import { writeFileSync } from 'node:fs';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/cluster/objects.js';
import { container, deployment, pod as barePod } from '../standins/kube/builders.js';
import type { ContainerOptions } from '../standins/kube/builders.js';
import { eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness } from '../helper/cluster-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.close());

const small = { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } };

async function cart(options: { replicas?: number; container?: ContainerOptions & { image?: string }; annotations?: Record<string, string> } = {}): Promise<void> {
  const { image, ...containerOptions }: ContainerOptions & { image?: string } = options.container ?? small;
  const object = deployment('cart', { namespace: 'shop', replicas: options.replicas ?? 2, containers: [{ ...container(containerOptions), ...(image && { image }) }] });
  object.metadata.annotations = options.annotations ?? {};
  await h.create(object as KubernetesObject);
  await h.api.store.reconcileWorkloads();
  await h.api.store.reconcileWorkloads();
}

const pods = () => h.api.store.list('pods', 'shop') as unknown as Pod[];
const requestsOf = (pod: Pod) => pod.spec.containers[0]?.resources?.requests;
const actualOf = (pod: Pod) => pod.status?.containerStatuses?.[0]?.resources?.requests;
const eventsWith = (action: string) => h.events().filter((event) => (event as unknown as { action: string }).action === action);

describe('helper against the stand-in: in-place resizes', () => {
  it('S2: every pod is resized in place, one at a time, the template untouched; status Applied and Resized events', async () => {
    h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
    await cart({ replicas: 2 });
    await h.create(policy());
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }]));
    const concurrent: number[] = [];
    await h.helper();
    await eventually(() => {
      const inFlight = pods().filter((pod) => (pod.metadata.generation ?? 1) > (pod.status?.observedGeneration ?? 1)).length;
      concurrent.push(inFlight);
      return h.recommendationStatus('cart').phase === 'Applied';
    });
    expect(Math.max(...concurrent)).toBeLessThanOrEqual(1);
    for (const pod of pods()) {
      expect(requestsOf(pod)).toEqual({ cpu: '250m', memory: '384Mi' });
      expect(actualOf(pod)).toEqual({ cpu: '250m', memory: '384Mi' });
      expect(pod.status?.containerStatuses?.[0]).toMatchObject({ restartCount: 0 });
    }
    const template = (h.api.store.get('deployments', 'shop', 'cart')?.spec as { template: { spec: { containers: { resources: unknown }[] } } }).template;
    expect(template.spec.containers[0]?.resources).toEqual(small);
    expect(h.recommendationStatus('cart')).toMatchObject({
      phase: 'Applied',
      strategy: 'in-place',
      configuredStrategy: 'in-place',
      observedGeneration: 1,
      conditions: [expect.objectContaining({ type: 'InPlaceApplied', status: 'True', reason: 'Applied', observedGeneration: 1 })],
    });
    // The last Resized event follows the status write that says Applied.
    await eventually(() => eventsWith('Resized').length === 2);
    expect(eventsWith('Resized')[0]).toMatchObject({ reportingController: 'kerf-gitops', reportingInstance: 'helper-a', regarding: { kind: 'Deployment', name: 'cart' } });
  });
});

describe('helper against the stand-in: what holds and what falls back', () => {
  const statusIs = (expected: Record<string, unknown>) => () => {
    const status = h.recommendationStatus('cart');
    return Object.entries(expected).every(([key, value]) => status[key] === value) && status;
  };
  const untouched = () => pods().every((pod) => requestsOf(pod)?.cpu === '500m' && (pod.metadata.generation ?? 1) === 1);

  async function setUp(options: Parameters<typeof cart>[0] & { node?: Parameters<Harness['api']['nodes']['addNode']>[0]; rec?: unknown[]; apply?: Record<string, unknown>; config?: Record<string, unknown> } = {}) {
    h.api.nodes.addNode(options.node ?? { name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
    await cart(options);
    await h.create(policy(options.apply));
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, options.rec ?? [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }]));
    await h.helper(options.config ? { config: h.writeConfig(options.config) } : {});
  }

  it('SR2: a single replica whose resize restarts no container is resized', async () => {
    await setUp({ replicas: 1 });
    await eventually(statusIs({ phase: 'Applied' }));
    expect(requestsOf(pods()[0]!)).toEqual({ cpu: '250m', memory: '384Mi' });
  });

  it.each([
    ['SR3: a single replica whose resize restarts a container is blocked', 'SingleReplicaUnsafe', { replicas: 1, container: { ...small, restartOn: ['memory' as const] } }],
    ['N1: swap on the node blocks a memory change', 'UnsupportedNode', { node: { name: 'node-a', capacity: { cpu: '8', memory: '16Gi' }, swap: true } }],
    ['N2: a node matching unsupportedNodeSelectors blocks every change', 'UnsupportedNode', {
      node: { name: 'node-a', capacity: { cpu: '8', memory: '16Gi' }, cpuManagerPolicy: 'static' as const, labels: { 'kerf.getkerf.dev/cpu-manager-policy': 'static' } },
      rec: [{ name: 'app', requests: { cpu: '250m' } }],
      config: { unsupportedNodeSelectors: [{ matchLabels: { 'kerf.getkerf.dev/cpu-manager-policy': 'static' } }] },
    }],
    ['Z1: an open freeze starts no resize', 'FreezeWindow', { config: { freeze: { now: true } } }],
    ['Z4: a cluster pause starts no resize', 'Paused', { config: { pause: true } }],
  ])('%s', async (_name, reason, options) => {
    await setUp(options);
    await eventually(statusIs({ phase: 'Blocked', reason, strategy: 'in-place' }));
    await eventually(() => eventsWith('Blocked').length === 1);
    expect(eventsWith('Blocked')[0]).toMatchObject({ reason, reportingController: 'kerf-gitops', regarding: { kind: 'Deployment', name: 'cart' } });
    expect(untouched()).toBe(true);
  });

  it('N3: JVM memory without RestartContainer falls to rollout (JVMMemory); no pod is touched', async () => {
    await setUp({ container: { ...small, image: 'eclipse-temurin:21-jre' } });
    await eventually(statusIs({ phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'JVMMemory' }));
    expect(untouched()).toBe(true);
  });

  it.each([
    ['F1, F3: Infeasible (the node can never fit it) falls back at once', { node: { name: 'node-a', capacity: { cpu: '1', memory: '16Gi' } }, rec: [{ name: 'app', requests: { cpu: '2' } }] }, 'Infeasible'],
    ['F1, F3: a 422 from the patch (QoS class change) falls back at once', {
      container: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
      rec: [{ name: 'app', requests: { cpu: '250m' } }],
    }, 'refused'],
  ])('%s', async (_name, options, note) => {
    await setUp({ ...options, apply: { fallbackAfter: '10m' } });
    await eventually(statusIs({ phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback' }));
    await eventually(() => eventsWith('Fallback').length === 1);
    expect((eventsWith('Fallback')[0] as unknown as { note: string }).note).toContain(note);
    // F3: it sticks: later passes leave it alone and touch no other pod.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.recommendationStatus('cart')).toMatchObject({ strategy: 'rollout', reason: 'Fallback' });
    expect(eventsWith('Fallback')).toHaveLength(1);
    expect(pods().filter((pod) => (pod.metadata.generation ?? 1) > 1).length).toBeLessThanOrEqual(1);
  });

  it('issue 11 finding 1: a resize refused after Applied (422 QoS change → Fallback) leaves no appliedAt or health watch behind', async () => {
    await setUp({ replicas: 2, container: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } }, rec: [{ name: 'app', requests: { cpu: '250m' } }] });
    await eventually(() => (h.recommendationStatus('cart').health as { state?: string } | undefined)?.state === 'Watching');
    expect(h.recommendationStatus('cart')).toMatchObject({ phase: 'Applied', appliedAt: expect.any(String) });
    // Requests equal to the limits: Burstable pods would become Guaranteed, which pods/resize refuses.
    await h.objects.patch(
      { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: 'cart', namespace: 'shop' }, spec: { containers: [{ name: 'app', requests: { cpu: '1', memory: '1Gi' } }] } } as KubernetesObject,
      undefined, undefined, undefined, undefined, 'application/merge-patch+json' as never,
    );
    await eventually(statusIs({ phase: 'Pending', strategy: 'rollout', reason: 'Fallback' }));
    expect(h.recommendationStatus('cart')).not.toHaveProperty('appliedAt');
    expect(h.recommendationStatus('cart')).not.toHaveProperty('health');
    const [fallback] = await eventually(() => eventsWith('Fallback').length === 1 && eventsWith('Fallback'));
    expect((fallback as unknown as { note: string }).note).toContain('Pod QOS Class may not change as a result of resizing');
  });

  it('F2: Deferred waits, then falls back after fallbackAfter (1s)', async () => {
    const started = Date.now();
    await setUp({
      node: { name: 'node-a', capacity: { cpu: '2', memory: '16Gi' } },
      container: { requests: { cpu: '800m', memory: '512Mi' } },
      rec: [{ name: 'app', requests: { cpu: '1500m' } }],
      apply: { fallbackAfter: '1s' },
    });
    const resizing = await eventually(() => {
      const deferred = pods().some((pod) => pod.status?.conditions?.some((c) => c.type === 'PodResizePending' && c.reason === 'Deferred'));
      return deferred && statusIs({ phase: 'Resizing' })();
    });
    expect(resizing).toBeTruthy();
    await eventually(statusIs({ phase: 'Pending', strategy: 'rollout', reason: 'Fallback' }), 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await eventually(() => eventsWith('Fallback').length === 1);
    expect((eventsWith('Fallback')[0] as unknown as { note: string }).note).toContain('Deferred');
  });

  it('Z2: a resize submitted before a freeze is watched to its end; no new one starts', async () => {
    h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '2', memory: '16Gi' } });
    const core = h.api.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({ namespace: 'shop', body: barePod('filler', { namespace: 'shop', nodeName: 'node-a', containers: [container({ requests: { cpu: '1', memory: '128Mi' } })] }) as V1Pod });
    await cart({ container: { requests: { cpu: '400m', memory: '512Mi' } } });
    await h.create(policy());
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '700m' } }]));
    const config = h.writeConfig({ freeze: { now: false } });
    await h.helper({ config });
    await eventually(() => pods().some((pod) => pod.status?.conditions?.some((c) => c.reason === 'Deferred')));
    writeFileSync(config, stringify({ freeze: { now: true } }));
    await eventually(() => h.logs.some((line) => line.message === 'config reloaded'));
    await core.deleteNamespacedPod({ namespace: 'shop', name: 'filler' });
    await eventually(statusIs({ phase: 'Blocked', reason: 'FreezeWindow' }));
    await eventually(() => eventsWith('Resized').length === 1);
    const cartPods = pods().filter((pod) => pod.metadata.name !== 'filler');
    expect(cartPods.map((pod) => requestsOf(pod)?.cpu).sort()).toEqual(['400m', '700m']);
    expect(cartPods.map((pod) => actualOf(pod)?.cpu).sort()).toEqual(['400m', '700m']);
  });
});
