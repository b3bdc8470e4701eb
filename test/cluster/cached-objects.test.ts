// What the helper's informers keep of each object (cached-objects.ts), and the paged list they read
// with: a pod as the API serves it is cut to exactly the fields src/helper and src/cluster read, and
// a list is followed across `continue` against the Kubernetes stand-in.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { cachedNode, cachedObject, cachedPod, cachedReplicaSet, cachedWorkload, LAST_APPLIED } from '../../src/cluster/cached-objects.js';
import { listPaged } from '../../src/cluster/kube-client.js';
import { kubeClusterWatch } from '../../src/cluster/kube-watch.js';
import { plainHttpClient, standinClient } from '../support/kube-client.js';
import type { KubeObject } from '../../src/cluster/objects.js';
import type { KubeObject as StoredObject } from '../standins/kube/object-store.js';
import { startKubeApi } from '../standins/kube/start-kube-api.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';

const STAMP = '2026-12-02T09:00:00Z';
const managedFields = [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: STAMP, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }];
const mounts = [{ name: 'kube-api-access', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }];
const resources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } };

/** A pod as kube-apiserver serves it: everything a real one carries, most of which kerf never reads. */
function apiPod(name: string, namespace = 'shop'): KubeObject & StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: 'cart-5d8f9c7b4-',
      namespace,
      uid: '6f1c2a9e-0000-4b1d-8e2f-000000000001',
      resourceVersion: '42',
      generation: 2,
      creationTimestamp: STAMP,
      labels: { app: 'cart', 'pod-template-hash': '5d8f9c7b4' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': STAMP },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cart-5d8f9c7b4', uid: 'rs-uid', controller: true, blockOwnerDeletion: true } as never],
      managedFields,
    } as (KubeObject & StoredObject)['metadata'],
    spec: {
      volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
      initContainers: [
        { name: 'migrate', image: 'ghcr.io/example/migrate:1', resources, volumeMounts: mounts },
        { name: 'proxy', image: 'ghcr.io/example/proxy:1', restartPolicy: 'Always', resources, volumeMounts: mounts },
      ],
      containers: [
        {
          name: 'app',
          image: 'ghcr.io/example/cart:1.4.0',
          env: [{ name: 'JAVA_TOOL_OPTIONS', value: '-Xmx512m' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
          resources,
          resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
          volumeMounts: mounts,
          terminationMessagePath: '/dev/termination-log',
          imagePullPolicy: 'IfNotPresent',
          livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        },
      ],
      nodeName: 'node-a',
      restartPolicy: 'Always',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      serviceAccountName: 'default',
    },
    status: {
      observedGeneration: 2,
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: STAMP },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: STAMP, observedGeneration: 2 },
        { type: 'PodResizePending', status: 'True', reason: 'Deferred', message: 'not enough memory', lastTransitionTime: STAMP },
      ],
      hostIP: '10.0.0.10',
      podIPs: [{ ip: '10.1.0.7' }],
      startTime: STAMP,
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          started: true,
          restartCount: 1,
          image: 'ghcr.io/example/cart:1.4.0',
          imageID: 'ghcr.io/example/cart@sha256:aaaa',
          containerID: 'containerd://cccc',
          state: { running: { startedAt: STAMP } },
          lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, startedAt: STAMP, finishedAt: STAMP, containerID: 'containerd://bbbb' } },
          allocatedResources: resources.requests,
          resources,
          volumeMounts: mounts,
        },
      ],
      initContainerStatuses: [{ name: 'proxy', ready: true, restartCount: 0, state: { running: { startedAt: STAMP } }, lastState: {}, resources }],
    },
  };
}

describe('what the informers keep', () => {
  it('a pod: identity, owner, revision labels, the containers as they run and what their status says of resizes and health', () => {
    expect(cachedPod(apiPod('cart-5d8f9c7b4-x1'))).toStrictEqual({
      metadata: {
        name: 'cart-5d8f9c7b4-x1',
        namespace: 'shop',
        generation: 2,
        resourceVersion: '42',
        creationTimestamp: STAMP,
        labels: { app: 'cart', 'pod-template-hash': '5d8f9c7b4' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cart-5d8f9c7b4', uid: 'rs-uid', controller: true }],
      },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'ghcr.io/example/cart:1.4.0',
            resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
            env: [{ name: 'JAVA_TOOL_OPTIONS' }, { name: 'TOKEN' }],
            resources,
          },
        ],
        nodeName: 'node-a',
        // Plain init containers are over before the pod runs; native sidecars are resized like containers.
        initContainers: [{ name: 'proxy', image: 'ghcr.io/example/proxy:1', restartPolicy: 'Always', resources }],
      },
      status: {
        phase: 'Running',
        observedGeneration: 2,
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: STAMP },
          { type: 'PodResizePending', status: 'True', reason: 'Deferred', message: 'not enough memory', lastTransitionTime: STAMP },
        ],
        containerStatuses: [{ name: 'app', restartCount: 1, resources, lastState: { terminated: { reason: 'OOMKilled', finishedAt: STAMP } } }],
        initContainerStatuses: [{ name: 'proxy', restartCount: 0, resources }],
      },
    });
  });

  it('pods of one workload share their labels, owner and resources, frozen', () => {
    const [a, b] = [cachedPod(apiPod('cart-1')), cachedPod(apiPod('cart-2'))];
    expect(a.metadata.labels).toBe(b.metadata.labels);
    expect(a.metadata.ownerReferences).toBe(b.metadata.ownerReferences);
    expect(a.spec.containers[0]?.resources).toBe(b.spec.containers[0]?.resources);
    expect(Object.isFrozen(a.spec.containers[0]?.resources?.requests)).toBe(true);
    expect(a.metadata.name).not.toBe(b.metadata.name);
  });

  it('a node: name, labels and swap; its images, addresses and conditions are left out', () => {
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-a', uid: 'n', resourceVersion: '7', labels: { 'kubernetes.io/arch': 'arm64' }, annotations: { a: 'b' } },
      spec: { podCIDR: '10.1.0.0/24' },
      status: { nodeInfo: { kubeletVersion: 'v1.34.0', swap: { capacity: 1024 } }, images: [{ names: ['x'], sizeBytes: 1 }], capacity: { cpu: '4' } },
    };
    expect(cachedNode(node)).toStrictEqual({
      metadata: { name: 'node-a', resourceVersion: '7', labels: { 'kubernetes.io/arch': 'arm64' } },
      status: { nodeInfo: { swap: { capacity: 1024 } } },
    });
  });

  it('a ReplicaSet: only which Deployment owns it', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart', uid: 'd', controller: true };
    const replicaSet: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'cart-5d8f9c7b4', namespace: 'shop', resourceVersion: '9', ownerReferences: [owner], labels: { app: 'cart' } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'app' }] } } },
      status: { replicas: 3 },
    };
    expect(cachedReplicaSet(replicaSet)).toStrictEqual({ metadata: { name: 'cart-5d8f9c7b4', namespace: 'shop', resourceVersion: '9', ownerReferences: [owner] } });
  });

  it('a workload: what workloadFromObject, the OnDelete plan and Events read, without managedFields, the last-applied copy or the status', () => {
    const statefulSet: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop', uid: 'u', generation: 3, resourceVersion: '5', labels: { app: 'db' }, annotations: { [LAST_APPLIED]: '{"huge":true}', 'kerf.getkerf.dev/strategy': 'rollout' }, managedFields } as KubeObject['metadata'],
      spec: {
        replicas: 3,
        serviceName: 'db',
        updateStrategy: { type: 'OnDelete' },
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'db', image: 'postgres:17', resources, ports: [{ containerPort: 5432 }] }], volumes: [] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' } }],
      },
      status: { replicas: 3, readyReplicas: 3, updateRevision: 'db-7c9', currentRevision: 'db-6b8' },
    };
    expect(cachedWorkload(statefulSet)).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop', uid: 'u', generation: 3, resourceVersion: '5', labels: { app: 'db' }, annotations: { 'kerf.getkerf.dev/strategy': 'rollout' } },
      spec: {
        replicas: 3,
        updateStrategy: { type: 'OnDelete' },
        template: { metadata: { labels: { app: 'db' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'db', image: 'postgres:17', resources }] } },
      },
      status: { updateRevision: 'db-7c9' },
    });
  });

  it("kerf's own objects, PDBs and HPAs: whole, without managedFields", () => {
    const recommendation: KubeObject = {
      apiVersion: 'kerf.getkerf.dev/v1alpha1',
      kind: 'RightsizingRecommendation',
      metadata: { name: 'cart', namespace: 'shop', generation: 2, resourceVersion: '3', managedFields } as KubeObject['metadata'],
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' }, containers: [] },
      status: { phase: 'Applied', conditions: [] },
    };
    const { managedFields: _dropped, ...metadata } = recommendation.metadata as KubeObject['metadata'] & { managedFields: unknown };
    expect(cachedObject(recommendation)).toStrictEqual({ ...recommendation, metadata });
  });
});

describe('listPaged and the informers', () => {
  let api: KubeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('follows `continue` page by page, cuts every item, and watches from the first page’s resourceVersion', async () => {
    api = await startKubeApi();
    for (let i = 0; i < 7; i++) api.store.put(apiPod(`cart-${i}`));
    const firstVersion = String(api.store.resourceVersion);
    // A proxy in front of the stand-in records each page asked for.
    const pages: string[] = [];
    const proxy = createServer((request, response) => {
      const url = new URL(request.url ?? '/', api?.url);
      if (url.pathname === '/api/v1/pods') pages.push(url.searchParams.get('continue') ?? 'first');
      void fetch(url).then(async (answer) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const client = plainHttpClient(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    onTestFinished(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const list = await listPaged(client, '/api/v1/pods', cachedPod, 3);
    expect(pages).toHaveLength(3);
    expect(pages[0]).toBe('first');
    expect(list.metadata.resourceVersion).toBe(firstVersion);
    expect(list.items.map((pod) => pod.metadata.name)).toEqual(['cart-0', 'cart-1', 'cart-2', 'cart-3', 'cart-4', 'cart-5', 'cart-6']);
    expect(list.items.every((pod) => !('managedFields' in pod.metadata) && !('volumes' in (pod.spec ?? {})))).toBe(true);
  });

  it('caches watched pods cut down too', async () => {
    api = await startKubeApi();
    api.store.put(apiPod('cart-0'));
    const watch = kubeClusterWatch(standinClient(api));
    let changes = 0;
    await watch.start(() => changes++);
    try {
      const listed = changes;
      const updated = apiPod('cart-1');
      api.store.put(updated);
      await expect.poll(() => watch.snapshot().pods.map((pod) => pod.metadata.name).sort(), { timeout: 5000 }).toEqual(['cart-0', 'cart-1']);
      expect(changes).toBeGreaterThan(listed);
      const watched = watch.snapshot().pods.find((pod) => pod.metadata.name === 'cart-1');
      expect(watched).toStrictEqual({ ...cachedPod(updated), metadata: { ...cachedPod(updated).metadata, resourceVersion: expect.any(String) } });
    } finally {
      await watch.stop();
    }
  });
});
