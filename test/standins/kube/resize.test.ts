import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { container, pod } from './builders.js';
import { failure } from './expect-status.js';
import type { SimulatedNode } from './kubelet-simulator.js';
import type { ContainerOptions } from './builders.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

let api: KubeApi;
let core: CoreV1Api;
let node: SimulatedNode;
let counter = 0;

beforeAll(async () => {
  api = await startKubeApi();
  core = api.kubeConfig().makeApiClient(CoreV1Api);
});
afterAll(async () => api.close());
beforeEach(() => {
  counter += 1;
  node = api.nodes.addNode({ name: `node-${counter}`, capacity: { cpu: '4', memory: '8Gi' } });
});

async function runningPod(name: string, options: ContainerOptions = { requests: { cpu: '500m', memory: '512Mi' } }): Promise<V1Pod> {
  const created = await core.createNamespacedPod({ namespace: 'default', body: pod(name, { nodeName: node.name, containers: [container(options)] }) as V1Pod });
  expect(created.status?.phase).toBe('Running');
  return created;
}

function resize(name: string, resources: Record<string, unknown>): Promise<V1Pod> {
  return core.patchNamespacedPodResize({ name, namespace: 'default', body: { spec: { containers: [{ name: 'app', resources }] } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
}

const read = (name: string): Promise<V1Pod> => core.readNamespacedPod({ name, namespace: 'default' });
const resizeConditions = (target: V1Pod) => (target.status?.conditions ?? []).filter((condition) => condition.type.startsWith('PodResize')).map((condition) => ({ type: condition.type, reason: condition.reason }));

describe('pods/resize and the kubelet simulator', () => {
  it('starts a pod bound to a simulated node with allocated and actual resources', async () => {
    const started = await runningPod('started');
    expect(started.status?.conditions?.find((condition) => condition.type === 'Ready')?.status).toBe('True');
    expect(started.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0, allocatedResources: { cpu: '500m', memory: '512Mi' }, resources: { requests: { cpu: '500m', memory: '512Mi' } } });
  });

  it('completes a resize: generation bump, PodResizeInProgress, then new actual resources and observedGeneration', async () => {
    await runningPod('grows');
    const accepted = await resize('grows', { requests: { cpu: '1', memory: '1Gi' } });
    expect(accepted.metadata?.generation).toBe(2);
    expect(accepted.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '1', memory: '1Gi' });
    expect(accepted.status?.containerStatuses?.[0]?.resources?.requests).toEqual({ cpu: '500m', memory: '512Mi' });

    node.tick();
    const inProgress = await read('grows');
    expect(resizeConditions(inProgress)).toEqual([{ type: 'PodResizeInProgress', reason: undefined }]);
    expect(inProgress.status?.containerStatuses?.[0]?.allocatedResources).toEqual({ cpu: '1', memory: '1Gi' });

    node.tick();
    const done = await read('grows');
    expect(resizeConditions(done)).toEqual([]);
    expect(done.status?.containerStatuses?.[0]?.resources?.requests).toEqual({ cpu: '1', memory: '1Gi' });
    expect(done.status?.observedGeneration).toBe(2);
    expect(done.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('marks a resize beyond the node allocatable PodResizePending/Infeasible and leaves it there', async () => {
    await runningPod('huge');
    await resize('huge', { requests: { cpu: '5' } });
    node.tick();
    node.tick();
    const pending = await read('huge');
    expect(resizeConditions(pending)).toEqual([{ type: 'PodResizePending', reason: 'Infeasible' }]);
    expect(pending.status?.conditions?.find((condition) => condition.type === 'PodResizePending')?.message).toBe("Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000");
    expect(pending.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe('500m');
  });

  it('defers a resize that fits the node but not what is free, and applies it once another pod goes', async () => {
    await runningPod('deferred');
    await runningPod('neighbour', { requests: { cpu: '2', memory: '1Gi' } });
    await resize('deferred', { requests: { cpu: '2500m' } });
    node.tick();
    expect(resizeConditions(await read('deferred'))).toEqual([{ type: 'PodResizePending', reason: 'Deferred' }]);
    node.tick();
    expect(resizeConditions(await read('deferred'))).toEqual([{ type: 'PodResizePending', reason: 'Deferred' }]);

    await core.deleteNamespacedPod({ name: 'neighbour', namespace: 'default' });
    api.nodes.settle();
    const done = await read('deferred');
    expect(resizeConditions(done)).toEqual([]);
    expect(done.status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe('2500m');
  });

  it('restarts only containers whose resizePolicy says RestartContainer for the changed resource', async () => {
    await runningPod('jvm', { requests: { cpu: '500m', memory: '512Mi' }, restartOn: ['memory'] });
    await resize('jvm', { requests: { cpu: '600m' } });
    api.nodes.settle();
    expect((await read('jvm')).status?.containerStatuses?.[0]?.restartCount).toBe(0);
    await resize('jvm', { requests: { memory: '1Gi' } });
    api.nodes.settle();
    expect((await read('jvm')).status?.containerStatuses?.[0]?.restartCount).toBe(1);
  });

  it('reports an actuation failure as PodResizeInProgress with reason Error until it clears', async () => {
    await runningPod('failing');
    node.setResizeError('default', 'failing', 'failed to update container resources');
    await resize('failing', { requests: { cpu: '700m' } });
    api.nodes.settle();
    const failing = await read('failing');
    expect(resizeConditions(failing)).toEqual([{ type: 'PodResizeInProgress', reason: 'Error' }]);
    node.setResizeError('default', 'failing', null);
    api.nodes.settle();
    expect(resizeConditions(await read('failing'))).toEqual([]);
  });

  it('refuses memory resizes of Burstable pods on a swap node as Infeasible', async () => {
    node = api.nodes.addNode({ name: `swap-${counter}`, capacity: { cpu: '4', memory: '8Gi' }, swap: true });
    await runningPod('swapped');
    await resize('swapped', { requests: { memory: '1Gi' } });
    node.tick();
    expect(resizeConditions(await read('swapped'))).toEqual([{ type: 'PodResizePending', reason: 'Infeasible' }]);
  });

  it.each([
    ['would change the QoS class', { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }, { limits: { cpu: '2' } }, 'Pod QOS Class may not change as a result of resizing'],
    ['removes a limit', { requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } }, { limits: { memory: null } }, 'resource limits cannot be removed'],
    ['puts a request above its limit', { requests: { cpu: '500m' }, limits: { cpu: '1' } }, { requests: { cpu: '2' } }, 'must be less than or equal to cpu limit of 1'],
    ['changes a resource other than cpu and memory', { requests: { cpu: '500m' } }, { requests: { 'ephemeral-storage': '1Gi' } }, 'only cpu and memory resources are mutable'],
  ])('answers 422 Invalid to a resize that %s', async (_case, initial, change, message) => {
    await runningPod(`invalid-${counter}`, initial);
    const status = await failure(resize(`invalid-${counter}`, change));
    expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(status.message).toContain(message);
  });

  it('answers 422 to a resize that changes anything but resources', async () => {
    await runningPod('image');
    const status = await failure(core.patchNamespacedPodResize({ name: 'image', namespace: 'default', body: { spec: { containers: [{ name: 'app', image: 'other:2' }] } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)));
    expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('keeps client-node default JSON patches working against pods/resize too', async () => {
    await runningPod('json');
    const patched = await core.patchNamespacedPodResize({ name: 'json', namespace: 'default', body: [{ op: 'replace', path: '/spec/containers/0/resources/requests/cpu', value: '750m' }] });
    expect(patched.spec?.containers[0]?.resources?.requests?.cpu).toBe('750m');
  });

  it('progresses resizes on its own with kubeletIntervalMs', async () => {
    const ticking = await startKubeApi({ kubeletIntervalMs: 10 });
    try {
      ticking.nodes.addNode({ name: 'auto', capacity: { cpu: '2', memory: '2Gi' } });
      const client = ticking.kubeConfig().makeApiClient(CoreV1Api);
      await client.createNamespacedPod({ namespace: 'default', body: pod('auto') as V1Pod });
      await client.patchNamespacedPodResize({ name: 'auto', namespace: 'default', body: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }] } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
      await expect.poll(async () => (await client.readNamespacedPod({ name: 'auto', namespace: 'default' })).status?.containerStatuses?.[0]?.resources?.requests?.cpu).toBe('200m');
    } finally {
      await ticking.close();
    }
  });
});
