// Helper memory with 10,000 pods watched (issue 15: bar ≤ 150 MiB RSS, goal ≤ 100 MiB): the helper process lists
// and watches a stand-in holding 10,000 running pods as a real cluster returns them (managedFields,
// service-account volume, full status) in 200 Deployments over 50 namespaces on 100 nodes, each
// namespace under an in-place policy and each Deployment with a recommendation that its pods
// already carry; then 2,000 pod status updates arrive through the watch. RSS is read from
// /proc/<pid>/status of the helper: VmHWM (peak since start) and VmRSS at the end.
import type { KubeObject } from '../test/standins/kube/object-store.js';
import type { KubeApi } from '../test/standins/kube/start-kube-api.js';
import { startHelperProcess, withHelper } from './helper-process.js';
import { startCluster, until } from './in-place-cluster.js';
import { controllerPodSpec } from './pod-fixture.js';

export interface MemoryBenchmark {
  pods: number;
  /** Average bytes of one pod's JSON as the API serves it. */
  podBytes: number;
  /** RSS of a helper process watching an empty cluster (before the pods are there). */
  idleMiB: number;
  /** Peak RSS of the helper process (VmHWM) over start, initial list and the updates. */
  peakMiB: number;
  /** RSS once the caches were listed and the first passes ran. */
  listedMiB: number;
  /** RSS at the end, after the updates. */
  endMiB: number;
  startMs: number;
}

const NAMESPACES = 50;
const PER_NAMESPACE = 4;
const NODES = 100;
const STAMP = '2026-12-02T09:00:00Z';

const uid = (n: number) => `6f1c2a9e-${(n >>> 16).toString(16).padStart(4, '0')}-4b1d-8e2f-${n.toString(16).padStart(12, '0')}`;
const resources = (i: number) => ({ requests: { cpu: `${100 + (i % 8) * 50}m`, memory: `${128 * (1 + (i % 4))}Mi` }, limits: { memory: `${256 * (1 + (i % 4))}Mi` } });
/** A controller ownerReference (a variable, not a literal, so the extra field the store's type lacks passes). */
const ownedBy = (kind: string, name: string, owner: string) => [{ apiVersion: 'apps/v1', kind, name, uid: owner, controller: true, blockOwnerDeletion: true }];
const shipper = { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } };

function node(n: number): KubeObject {
  const name = `node-${String(n).padStart(3, '0')}`;
  const capacity = { cpu: '16', memory: '64Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'm6i.4xlarge', 'topology.kubernetes.io/zone': `eu-west-1${'abc'[n % 3]}` } },
    spec: { podCIDR: `10.${n}.0.0/24`, providerID: `aws:///eu-west-1a/i-0${n.toString(16).padStart(16, '0')}` },
    status: {
      capacity,
      allocatable: capacity,
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ type, status: 'False', reason: `KubeletHas${type === 'PIDPressure' ? 'SufficientPID' : `No${type}`}`, message: 'ok', lastHeartbeatTime: STAMP, lastTransitionTime: STAMP }))
        .concat([{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: STAMP, lastTransitionTime: STAMP }]),
      addresses: [{ type: 'InternalIP', address: `10.0.${n}.10` }, { type: 'Hostname', address: name }],
      nodeInfo: { kubeletVersion: 'v1.34.0', containerRuntimeVersion: 'containerd://2.0.0', kernelVersion: '6.8.0', osImage: 'Ubuntu 24.04 LTS', operatingSystem: 'linux', architecture: 'amd64', machineID: uid(n), systemUUID: uid(n), bootID: uid(n), kubeProxyVersion: '' },
    },
  };
}

function deployment(namespace: string, name: string, i: number): KubeObject {
  const labels = { app: name, tier: i % 2 === 0 ? 'web' : 'worker' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, uid: uid(900_000 + i), generation: 1, labels },
    spec: {
      replicas: 50,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels },
        spec: {
          containers: [
            { name: 'app', image: `ghcr.io/example/${name}:1.${i}.0`, resources: resources(i) },
            { name: 'log-shipper', image: 'fluent/fluent-bit:3.1', resources: shipper },
          ],
        },
      },
    },
    status: { observedGeneration: 1, replicas: 50, updatedReplicas: 50, readyReplicas: 50, availableReplicas: 50 },
  };
}

function replicaSet(namespace: string, name: string, hash: string, i: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${name}-${hash}`,
      namespace,
      uid: uid(800_000 + i),
      labels: { app: name, 'pod-template-hash': hash },
      ownerReferences: ownedBy('Deployment', name, uid(900_000 + i)),
    },
    spec: { replicas: 50, selector: { matchLabels: { app: name, 'pod-template-hash': hash } } },
    status: { replicas: 50, readyReplicas: 50, availableReplicas: 50, observedGeneration: 1 },
  };
}

function containerStatus(name: string, image: string, res: { requests: Record<string, string>; limits: Record<string, string> }, n: number) {
  return {
    name,
    state: { running: { startedAt: STAMP } },
    lastState: {},
    ready: true,
    restartCount: 0,
    image,
    imageID: `${image.split(':')[0]}@sha256:${n.toString(16).padStart(64, 'a')}`,
    containerID: `containerd://${n.toString(16).padStart(64, 'c')}`,
    started: true,
    allocatedResources: res.requests,
    resources: res,
    volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
  };
}

function pod(namespace: string, name: string, hash: string, i: number, p: number, n: number): KubeObject {
  const podName = `${name}-${hash}-${p.toString(36).padStart(5, 'x')}`;
  const image = `ghcr.io/example/${name}:1.${i}.0`;
  const mounts = [{ name: 'kube-api-access', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }];
  const common = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', volumeMounts: mounts };
  const nodeName = `node-${String(n % NODES).padStart(3, '0')}`;
  const condition = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: STAMP, observedGeneration: 1 });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      generateName: `${name}-${hash}-`,
      namespace,
      uid: uid(n),
      generation: 1,
      labels: { app: name, tier: i % 2 === 0 ? 'web' : 'worker', 'pod-template-hash': hash },
      ownerReferences: ownedBy('ReplicaSet', `${name}-${hash}`, uid(800_000 + i)),
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: STAMP,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${uid(800_000 + i)}"}`]: {} } },
            'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} }, 'k:{"name":"log-shipper"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } }, 'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {} },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: STAMP,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:hostIPs': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': {}, 'f:startTime': {} } },
        },
      ],
    },
    spec: controllerPodSpec(
      [
        { name: 'app', image, resources: resources(i), ...common },
        { name: 'log-shipper', image: 'fluent/fluent-bit:3.1', resources: shipper, ...common },
      ],
      { nodeName },
    ),
    status: {
      observedGeneration: 1,
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
      hostIP: `10.0.${n % NODES}.10`,
      hostIPs: [{ ip: `10.0.${n % NODES}.10` }],
      podIP: `10.${n % NODES}.${(n >> 8) % 256}.${n % 256}`,
      podIPs: [{ ip: `10.${n % NODES}.${(n >> 8) % 256}.${n % 256}` }],
      startTime: STAMP,
      containerStatuses: [containerStatus('app', image, resources(i), n), containerStatus('log-shipper', 'fluent/fluent-bit:3.1', shipper, n + 1)],
      qosClass: 'Burstable',
    },
  };
}

/** Fills the stand-in; returns the average pod JSON size. */
function fill(api: KubeApi): { pods: number; podBytes: number } {
  for (let n = 0; n < NODES; n++) api.store.put(node(n));
  let pods = 0;
  let bytes = 0;
  for (let ns = 0; ns < NAMESPACES; ns++) {
    const namespace = `team-${String(ns).padStart(2, '0')}`;
    api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    api.store.put({
      apiVersion: 'kerf.getkerf.dev/v1alpha1',
      kind: 'RightsizingPolicy',
      metadata: { name: 'default', namespace },
      spec: { mode: 'auto-patch', apply: { strategy: 'in-place' } },
    });
    for (let d = 0; d < PER_NAMESPACE; d++) {
      const i = ns * PER_NAMESPACE + d;
      const name = `svc-${String(d).padStart(2, '0')}`;
      const hash = (0x5d8f9c7b4 + i).toString(36).slice(-10);
      api.store.put(deployment(namespace, name, i));
      api.store.put(replicaSet(namespace, name, hash, i));
      const res = resources(i);
      api.store.put({
        apiVersion: 'kerf.getkerf.dev/v1alpha1',
        kind: 'RightsizingRecommendation',
        metadata: { name, namespace },
        spec: {
          targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          containers: [
            { name: 'app', requests: res.requests, limits: res.limits },
            { name: 'log-shipper', requests: shipper.requests, limits: shipper.limits },
          ],
        },
      });
      for (let p = 0; p < 50; p++) {
        const stored = api.store.put(pod(namespace, name, hash, i, p, pods));
        if (pods % 100 === 0) bytes += JSON.stringify(stored).length;
        pods++;
      }
    }
  }
  return { pods, podBytes: Math.round(bytes / Math.ceil(pods / 100)) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RSS of the helper process watching an empty cluster: what it costs before any pod. */
async function idleHelperMiB(api: KubeApi, nodeArgs: string[]): Promise<number> {
  const helper = await startHelperProcess({ kubeconfig: api.kubeconfigPath, nodeArgs });
  return withHelper(helper, async () => {
    await until(() => (api.store.get('leases', 'kerf-system', 'kerf-gitops-helper')?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === 'bench-helper', 'the idle helper holding its Lease', 30_000, 50);
    await sleep(2000);
    return helper.memory().rssMiB;
  });
}

export async function benchmarkHelperMemory(nodeArgs: string[] = []): Promise<MemoryBenchmark> {
  const api = await startCluster();
  try {
    const idleMiB = await idleHelperMiB(api, nodeArgs);
    api.store.delete('leases', 'kerf-system', 'kerf-gitops-helper');
    const { pods, podBytes } = fill(api);
    const start = performance.now();
    const helper = await startHelperProcess({ kubeconfig: api.kubeconfigPath, startTimeoutMs: 90_000, nodeArgs });
    return await withHelper(helper, async () => {
      const startMs = performance.now() - start;
      await until(() => (api.store.get('leases', 'kerf-system', 'kerf-gitops-helper')?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === 'bench-helper', 'the helper holding its Lease', 30_000, 50);
      await sleep(3000);
      const listedMiB = helper.memory().rssMiB;
      // Pods change all the time in a cluster: 2,000 status updates (a container restarted) through the watch.
      const all = api.store.list('pods');
      for (let k = 0; k < 2000; k++) {
        const current = all[(k * 7919) % all.length] as KubeObject & { status: { containerStatuses: { restartCount: number }[] } };
        const next = structuredClone(current);
        const status = next.status.containerStatuses[0];
        if (status) status.restartCount += 1;
        api.store.put(next);
        if (k % 100 === 99) await sleep(50);
      }
      await sleep(3000);
      const { rssMiB: endMiB, peakMiB } = helper.memory();
      return { pods, podBytes, idleMiB, peakMiB, listedMiB, endMiB, startMs };
    });
  } finally {
    await api.close();
  }
}
