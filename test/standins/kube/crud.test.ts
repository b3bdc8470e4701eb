import { AppsV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, EventsV1Api } from '@kubernetes/client-node';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, pod } from './builders.js';
import { failure } from './expect-status.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

let api: KubeApi;
let core: CoreV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  api = await startKubeApi();
  core = api.kubeConfig().makeApiClient(CoreV1Api);
  apps = api.kubeConfig().makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: 'crud' } } });
});
afterAll(async () => api.close());

describe('CRUD over the wire with client-node', () => {
  it('creates, reads, replaces and deletes a pod with uid, creationTimestamp and increasing resourceVersions', async () => {
    const created = await core.createNamespacedPod({ namespace: 'crud', body: pod('web', { namespace: 'crud' }) as V1Pod });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.status?.phase).toBe('Pending');
    expect(created.status?.qosClass).toBe('Burstable');

    const read = await core.readNamespacedPod({ name: 'web', namespace: 'crud' });
    read.metadata!.labels = { app: 'web', tier: 'front' };
    const replaced = await core.replaceNamespacedPod({ name: 'web', namespace: 'crud', body: read });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    expect(replaced.metadata?.labels).toEqual({ app: 'web', tier: 'front' });

    await core.deleteNamespacedPod({ name: 'web', namespace: 'crud' });
    const gone = await failure(core.readNamespacedPod({ name: 'web', namespace: 'crud' }));
    expect(gone).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'pods "web" not found' });
  });

  it('answers 409 AlreadyExists for a second create and 404 for a namespace that does not exist', async () => {
    await core.createNamespacedPod({ namespace: 'crud', body: pod('twice', { namespace: 'crud' }) as V1Pod });
    const again = await failure(core.createNamespacedPod({ namespace: 'crud', body: pod('twice', { namespace: 'crud' }) as V1Pod }));
    expect(again).toMatchObject({ reason: 'AlreadyExists', code: 409, message: 'pods "twice" already exists' });
    const nowhere = await failure(core.createNamespacedPod({ namespace: 'nowhere', body: pod('x', { namespace: 'nowhere' }) as V1Pod }));
    expect(nowhere).toMatchObject({ reason: 'NotFound', code: 404, message: 'namespaces "nowhere" not found' });
  });

  it('answers 409 Conflict to an update carrying a stale resourceVersion', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'crud', body: deployment('stale', { namespace: 'crud' }) as V1Deployment });
    const first = structuredClone(created);
    first.spec!.replicas = 2;
    await apps.replaceNamespacedDeployment({ name: 'stale', namespace: 'crud', body: first });
    const second = structuredClone(created);
    second.spec!.replicas = 3;
    const status = await failure(apps.replaceNamespacedDeployment({ name: 'stale', namespace: 'crud', body: second }));
    expect(status).toMatchObject({
      reason: 'Conflict',
      code: 409,
      message: 'Operation cannot be fulfilled on deployments.apps "stale": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('bumps metadata.generation on spec changes only, keeps status out of spec writes and defaults the rollout strategy', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'crud', body: deployment('gen', { namespace: 'crud' }) as V1Deployment });
    expect(created.metadata?.generation).toBe(1);
    expect(created.spec?.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    created.metadata!.labels = { app: 'gen', changed: 'labels' };
    created.status = { replicas: 99 };
    const relabelled = await apps.replaceNamespacedDeployment({ name: 'gen', namespace: 'crud', body: created });
    expect(relabelled.metadata?.generation).toBe(1);
    expect(relabelled.status).toBeUndefined();
    relabelled.spec!.replicas = 4;
    const scaled = await apps.replaceNamespacedDeployment({ name: 'gen', namespace: 'crud', body: relabelled });
    expect(scaled.metadata?.generation).toBe(2);
    const withStatus = await apps.replaceNamespacedDeploymentStatus({ name: 'gen', namespace: 'crud', body: { ...scaled, status: { replicas: 4, observedGeneration: 2 } } });
    expect(withStatus.status).toEqual({ replicas: 4, observedGeneration: 2 });
    expect(withStatus.metadata?.generation).toBe(2);
  });

  it('refuses a plain pod update that changes resources, as only pods/resize may', async () => {
    const created = await core.createNamespacedPod({ namespace: 'crud', body: pod('fixed', { namespace: 'crud' }) as V1Pod });
    created.spec!.containers[0]!.resources = { requests: { cpu: '2' } };
    const status = await failure(core.replaceNamespacedPod({ name: 'fixed', namespace: 'crud', body: created }));
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toContain('pod updates may not change fields other than');
  });

  it('lists with equality, set-based and field selectors, and pages with limit/continue', async () => {
    const labels: Record<string, string>[] = [
      { app: 'shop', tier: 'web' },
      { app: 'shop', tier: 'db' },
      { app: 'blog', tier: 'web' },
      { app: 'shop' },
    ];
    for (const [index, set] of labels.entries()) api.store.put({ ...pod(`sel-${index}`, { namespace: 'crud', labels: set, nodeName: index < 2 ? 'node-a' : 'node-b' }), status: { phase: index === 3 ? 'Pending' : 'Running' } });
    const names = async (labelSelector?: string, fieldSelector?: string): Promise<string[]> =>
      (await core.listNamespacedPod({ namespace: 'crud', ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}) })).items.map((item) => item.metadata!.name!).filter((name) => name.startsWith('sel-'));

    expect(await names('app=shop,tier!=db')).toEqual(['sel-0', 'sel-3']);
    expect(await names('tier in (web,db),app notin (blog)')).toEqual(['sel-0', 'sel-1']);
    expect(await names('!tier')).toEqual(['sel-3']);
    expect(await names('tier')).toEqual(['sel-0', 'sel-1', 'sel-2']);
    expect(await names(undefined, 'spec.nodeName=node-b')).toEqual(['sel-2', 'sel-3']);
    expect(await names(undefined, 'status.phase!=Running')).toEqual(['sel-3']);
    expect(await names('app=shop', 'metadata.name=sel-1,metadata.namespace=crud')).toEqual(['sel-1']);

    const first = await core.listNamespacedPod({ namespace: 'crud', labelSelector: 'app in (shop,blog)', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata?.remainingItemCount).toBe(1);
    const rest = await core.listNamespacedPod({ namespace: 'crud', labelSelector: 'app in (shop,blog)', limit: 3, _continue: first.metadata!._continue! });
    expect(rest.items.map((item) => item.metadata?.name)).toEqual(['sel-3']);
    expect(rest.metadata?._continue).toBeUndefined();
  });

  it('lists across namespaces and serves cluster-scoped nodes', async () => {
    api.nodes.addNode({ name: 'crud-node', capacity: { cpu: '4', memory: '8Gi' }, labels: { pool: 'general' } });
    const nodes = await core.listNode({ labelSelector: 'pool=general' });
    expect(nodes.items.map((node) => node.metadata?.name)).toEqual(['crud-node']);
    expect(nodes.items[0]?.status?.allocatable).toEqual({ cpu: '4', memory: '8Gi', pods: '110' });
    const all = await core.listPodForAllNamespaces({ labelSelector: 'app=blog' });
    expect(all.items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`)).toEqual(['crud/sel-2']);
  });

  it('serves kerf custom resources with a status subresource', async () => {
    const custom = api.kubeConfig().makeApiClient(CustomObjectsApi);
    const target = { group: 'kerf.getkerf.dev', version: 'v1alpha1', namespace: 'crud', plural: 'rightsizingrecommendations' };
    await custom.createNamespacedCustomObject({
      ...target,
      body: { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: 'cart' }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' }, containers: [{ name: 'app', requests: { cpu: '250m' } }] } },
    });
    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
      ...target,
      name: 'cart',
      body: { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: 'cart' }, status: { phase: 'InPlace', strategy: 'in-place' } },
    })) as { status: unknown; spec: unknown; metadata: { generation: number } };
    expect(withStatus.status).toEqual({ phase: 'InPlace', strategy: 'in-place' });
    expect(withStatus.spec).toMatchObject({ targetRef: { name: 'cart' } });
    expect(withStatus.metadata.generation).toBe(1);
  });

  it('publishes discovery with the pod subresources kerf calls', async () => {
    const response = await fetch(`${api.url}/api/v1`);
    const list = (await response.json()) as { resources: { name: string; kind: string; verbs: string[]; group?: string }[] };
    expect(list.resources).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'pods/resize', kind: 'Pod', verbs: ['get', 'patch', 'update'] }),
      expect.objectContaining({ name: 'pods/eviction', group: 'policy', kind: 'Eviction', verbs: ['create'] }),
      expect.objectContaining({ name: 'pods/status' }),
    ]));
    const kerf = (await (await fetch(`${api.url}/apis/kerf.getkerf.dev/v1alpha1`)).json()) as { resources: { name: string }[] };
    expect(kerf.resources.map((resource) => resource.name)).toEqual(expect.arrayContaining(['rightsizingrecommendations', 'rightsizingrecommendations/status', 'rightsizingpolicies']));
  });

  it('serves Leases with optimistic concurrency, as leader election needs, and events.k8s.io Events', async () => {
    const leases = api.kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({ namespace: 'crud', body: { metadata: { name: 'kerf-helper' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
    const taken = await leases.replaceNamespacedLease({ name: 'kerf-helper', namespace: 'crud', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } } });
    expect(taken.spec?.holderIdentity).toBe('b');
    expect((await failure(leases.replaceNamespacedLease({ name: 'kerf-helper', namespace: 'crud', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'c' } } }))).reason).toBe('Conflict');

    const events = api.kubeConfig().makeApiClient(EventsV1Api);
    await events.createNamespacedEvent({ namespace: 'crud', body: { metadata: { generateName: 'cart-' }, eventTime: new Date(), action: 'Fallback', reason: 'Fallback', reportingController: 'kerf-gitops', reportingInstance: 'helper-0', type: 'Normal', regarding: { kind: 'Deployment', name: 'cart', namespace: 'crud' } } });
    const listed = await events.listNamespacedEvent({ namespace: 'crud', fieldSelector: 'regarding.name=cart' });
    expect(listed.items.map((event) => [event.action, event.metadata?.name?.startsWith('cart-')])).toEqual([['Fallback', true]]);
  });
});

describe('options', () => {
  it('stamps times from the injected clock', async () => {
    const fixed = await startKubeApi({ clock: () => new Date('2026-12-02T10:00:00.000Z') });
    try {
      fixed.nodes.addNode({ name: 'n', capacity: { cpu: '1', memory: '1Gi' } });
      const created = await fixed.kubeConfig().makeApiClient(CoreV1Api).createNamespacedPod({ namespace: 'default', body: pod('timed') as V1Pod });
      expect(created.metadata?.creationTimestamp?.toISOString()).toBe('2026-12-02T10:00:00.000Z');
      expect(created.status?.conditions?.find((condition) => condition.type === 'Ready')?.lastTransitionTime?.toISOString()).toBe('2026-12-02T10:00:00.000Z');
    } finally {
      await fixed.close();
    }
  });
});
