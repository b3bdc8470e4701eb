// Simulated nodes: a scheduler that binds new pods to a node with room, and a kubelet per node
// that starts pods and carries out in-place resizes the way kubelet 1.33+ reports them
// (PodResizePending Infeasible/Deferred, PodResizeInProgress, allocated and actual resources,
// status.observedGeneration, restarts per resizePolicy). Time advances only through tick().
import type { Cluster } from './cluster.js';
import type { KubeObject } from './object-store.js';
import { podRequests, qosClass, RESIZABLE, resizableContainers } from './pods.js';
import type { Container, ContainerStatus, Pod, PodCondition, Resources } from './pods.js';
import { resourceUnits } from './quantity.js';

export interface NodeSpec {
  name: string;
  capacity: { cpu: string; memory: string };
  swap?: boolean;
  cpuManagerPolicy?: 'none' | 'static';
  labels?: Record<string, string>;
}

const PENDING = 'PodResizePending';
const IN_PROGRESS = 'PodResizeInProgress';

/** cpu and memory requests and limits, the part of resources the kubelet resizes. */
function resizable(resources: Resources | undefined): Resources {
  const pick = (list: Record<string, string> | undefined): Record<string, string> | undefined => {
    const picked = Object.fromEntries(Object.entries(list ?? {}).filter(([name]) => (RESIZABLE as readonly string[]).includes(name)));
    return Object.keys(picked).length > 0 ? picked : undefined;
  };
  const requests = pick(resources?.requests);
  const limits = pick(resources?.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

function sameResources(a: Resources | undefined, b: Resources | undefined): boolean {
  return RESIZABLE.every((name) =>
    (['requests', 'limits'] as const).every((kind) => {
      const left = a?.[kind]?.[name];
      const right = b?.[kind]?.[name];
      return left === undefined || right === undefined ? left === right : resourceUnits(name, left) === resourceUnits(name, right);
    }),
  );
}

/** cpu and/or memory, where the request or limit differs. */
function changedResources(before: Resources | undefined, after: Resources | undefined): string[] {
  const only = (resources: Resources | undefined, name: string): Resources => ({
    requests: { ...(resources?.requests?.[name] !== undefined ? { [name]: resources.requests[name]! } : {}) },
    limits: { ...(resources?.limits?.[name] !== undefined ? { [name]: resources.limits[name]! } : {}) },
  });
  return RESIZABLE.filter((name) => !sameResources(only(before, name), only(after, name)));
}

export class SimulatedNode {
  /** Resizes that fail while actuating, by pod `namespace/name`, with the error message. */
  private readonly resizeErrors = new Map<string, string>();
  /** The kubelet's allocation checkpoint, by pod uid. */
  private readonly allocations = new Map<string, Resources[]>();
  /** Bound pods still being pulled and created, by uid: when they start (clock ms). */
  private readonly starting = new Map<string, number>();

  constructor(
    readonly spec: NodeSpec,
    private readonly cluster: Cluster,
    private readonly startDelayMs = 0,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  allocatable(): Record<'cpu' | 'memory', number> {
    return { cpu: resourceUnits('cpu', this.spec.capacity.cpu), memory: resourceUnits('memory', this.spec.capacity.memory) };
  }

  /** Pods bound here that hold resources. */
  pods(): Pod[] {
    return (this.cluster.store.list('/pods') as Pod[]).filter(
      (pod) => pod.spec.nodeName === this.name && !['Succeeded', 'Failed'].includes(pod.status?.phase ?? ''),
    );
  }

  /** Resources held by admitted pods (their allocated requests), optionally leaving one pod out. */
  used(except?: Pod): Record<'cpu' | 'memory', number> {
    const sum = { cpu: 0, memory: 0 };
    for (const pod of this.pods()) {
      if (except && pod.metadata.uid === except.metadata.uid) continue;
      const held = podRequests(this.allocated(pod).map((resources) => ({ resources })));
      sum.cpu += held.cpu;
      sum.memory += held.memory;
    }
    return sum;
  }

  /** Makes the next actuation of this pod's resize fail with `message` (null clears it). */
  setResizeError(namespace: string, name: string, message: string | null): void {
    if (message === null) this.resizeErrors.delete(`${namespace}/${name}`);
    else this.resizeErrors.set(`${namespace}/${name}`, message);
  }

  /**
   * A pod bound here: started at once, or with a start delay left Pending (scheduled, containers
   * ContainerCreating, not Ready) until a tick after the delay, as image pulls keep real pods.
   */
  admit(pod: Pod): void {
    if (this.startDelayMs <= 0) return this.start(pod);
    this.starting.set(pod.metadata.uid ?? '', this.cluster.clock().getTime() + this.startDelayMs);
    const now = this.cluster.now();
    pod.status = {
      ...pod.status,
      phase: 'Pending',
      qosClass: qosClass(pod),
      hostIP: '10.0.0.1',
      startTime: now,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
        ...['Initialized', 'Ready', 'ContainersReady'].map((type) => ({ type, status: 'False', reason: type === 'Initialized' ? 'PodInitializing' : 'ContainersNotReady', lastProbeTime: null, lastTransitionTime: now })),
      ],
      containerStatuses: pod.spec.containers.map((container) => ({ name: container.name, image: container.image ?? '', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } })),
    };
    this.cluster.store.write('/pods', pod);
  }

  /** Starts a pod bound to this node: Running, Ready, resources allocated as requested. */
  start(pod: Pod): void {
    this.starting.delete(pod.metadata.uid ?? '');
    const now = this.cluster.now();
    const statuses: ContainerStatus[] = pod.spec.containers.map((container) => this.runningStatus(container, now, 0));
    const sidecars = (pod.spec.initContainers ?? []).filter((container) => container.restartPolicy === 'Always');
    const conditions: PodCondition[] = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: now,
      observedGeneration: pod.metadata.generation ?? 1,
    }));
    pod.status = {
      ...pod.status,
      phase: 'Running',
      qosClass: qosClass(pod),
      hostIP: '10.0.0.1',
      podIP: `10.244.0.${(this.cluster.store.resourceVersion % 250) + 2}`,
      startTime: now,
      conditions,
      containerStatuses: statuses,
      ...(sidecars.length > 0 ? { initContainerStatuses: sidecars.map((container) => this.runningStatus(container, now, 0)) } : {}),
      observedGeneration: pod.metadata.generation ?? 1,
    };
    this.allocations.set(pod.metadata.uid ?? '', resizableContainers(pod).map(({ container }) => resizable(container.resources)));
    this.cluster.store.write('/pods', pod);
  }

  /** One kubelet sync of every pod on the node; returns whether anything changed. */
  tick(): boolean {
    let changed = false;
    const now = this.cluster.clock().getTime();
    for (const pod of this.pods()) {
      const startAt = this.starting.get(pod.metadata.uid ?? '');
      if (pod.metadata.deletionTimestamp) changed = this.stop(pod, now) || changed;
      else if (startAt !== undefined && startAt <= now) {
        this.start(pod);
        changed = true;
      } else if (pod.status?.phase === 'Running') changed = this.sync(pod) || changed;
    }
    return changed;
  }

  /** A Terminating pod: not Ready at once, removed once its grace period is over. */
  private stop(pod: Pod, now: number): boolean {
    if (Date.parse(pod.metadata.deletionTimestamp!) <= now) {
      this.starting.delete(pod.metadata.uid ?? '');
      this.allocations.delete(pod.metadata.uid ?? '');
      this.cluster.remove(this.cluster.registry.resolve('pods'), pod);
      return true;
    }
    const ready = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
    if (!ready || ready.status === 'False') return false;
    const at = this.cluster.now();
    pod.status!.conditions = pod.status!.conditions!.map((condition) =>
      condition.type === 'Ready' || condition.type === 'ContainersReady' ? { ...condition, status: 'False', reason: 'ContainersNotReady', lastTransitionTime: at } : condition,
    );
    for (const status of pod.status!.containerStatuses ?? []) status.ready = false;
    this.cluster.store.write('/pods', pod as KubeObject);
    return true;
  }

  private runningStatus(container: Container, startedAt: string, restartCount: number): ContainerStatus {
    const resources = resizable(container.resources);
    return {
      name: container.name,
      image: container.image ?? '',
      imageID: '',
      containerID: `containerd://${container.name}-${restartCount}`,
      ready: true,
      started: true,
      restartCount,
      state: { running: { startedAt } },
      ...(resources.requests ? { allocatedResources: resources.requests } : {}),
      resources,
    };
  }

  private statusOf(pod: Pod, container: Container): ContainerStatus | undefined {
    return [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find((status) => status.name === container.name);
  }

  /**
   * What the kubelet admitted for each resizable container (requests and limits). A real kubelet
   * keeps this in a checkpoint file; pods this kubelet did not start fall back to their status.
   */
  private allocated(pod: Pod): Resources[] {
    const checkpoint = this.allocations.get(pod.metadata.uid ?? '');
    if (checkpoint) return checkpoint;
    return resizableContainers(pod).map(({ container }) => {
      const status = this.statusOf(pod, container);
      if (!status?.resources) return resizable(container.resources);
      return resizable({ ...(status.allocatedResources ? { requests: status.allocatedResources } : {}), ...(status.resources.limits ? { limits: status.resources.limits } : {}) });
    });
  }

  private sync(pod: Pod): boolean {
    const containers = resizableContainers(pod).map(({ container }) => container);
    const desired = containers.map((container) => resizable(container.resources));
    const allocated = this.allocated(pod);
    const generation = pod.metadata.generation ?? 1;

    if (!desired.every((resources, index) => sameResources(resources, allocated[index]))) {
      const verdict = this.admitResize(pod, desired, allocated);
      if (verdict) return this.writeConditions(pod, [{ type: PENDING, status: 'True', reason: verdict.reason, message: verdict.message }], generation);
      // Accepted: the desired resources become the allocated ones; actuation follows on the next sync.
      this.allocations.set(pod.metadata.uid ?? '', desired);
      containers.forEach((container, index) => {
        const status = this.statusOf(pod, container);
        if (status && desired[index]!.requests) status.allocatedResources = desired[index]!.requests;
        else if (status) delete status.allocatedResources;
      });
      return this.writeConditions(pod, [{ type: IN_PROGRESS, status: 'True' }], generation);
    }

    const actual = containers.map((container) => this.statusOf(pod, container)?.resources);
    if (!allocated.every((resources, index) => sameResources(resources, actual[index]))) {
      const error = this.resizeErrors.get(`${pod.metadata.namespace}/${pod.metadata.name}`);
      if (error) return this.writeConditions(pod, [{ type: IN_PROGRESS, status: 'True', reason: 'Error', message: error }], generation);
      const now = this.cluster.now();
      containers.forEach((container, index) => {
        const status = this.statusOf(pod, container);
        if (!status) return;
        const restart = changedResources(status.resources, allocated[index]).some((name) =>
          container.resizePolicy?.some((policy) => policy.resourceName === name && policy.restartPolicy === 'RestartContainer'),
        );
        if (restart) {
          const startedAt = (status.state?.running as { startedAt?: string } | undefined)?.startedAt ?? now;
          status.lastState = { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: now } };
          status.restartCount += 1;
          status.containerID = `containerd://${container.name}-${status.restartCount}`;
          status.state = { running: { startedAt: now } };
        }
        status.resources = allocated[index]!;
      });
      return this.writeConditions(pod, [], generation);
    }

    const hasResizeConditions = pod.status?.conditions?.some((condition) => condition.type === PENDING || condition.type === IN_PROGRESS);
    if (hasResizeConditions || pod.status?.observedGeneration !== generation) return this.writeConditions(pod, [], generation);
    return false;
  }

  private admitResize(pod: Pod, desired: Resources[], allocated: Resources[]): { reason: 'Infeasible' | 'Deferred'; message: string } | undefined {
    const changes = new Set(desired.flatMap((resources, index) => changedResources(allocated[index], resources)));
    if (this.spec.swap && changes.has('memory') && qosClass(pod) === 'Burstable') {
      return { reason: 'Infeasible', message: 'In-place resize of containers with swap is not supported.' };
    }
    if (this.spec.cpuManagerPolicy === 'static' && changes.has('cpu') && qosClass(pod) === 'Guaranteed') {
      return { reason: 'Infeasible', message: 'Resize is infeasible for Guaranteed Pods alongside CPU Manager static policy' };
    }
    const wanted = podRequests(desired.map((resources) => ({ resources })));
    const capacity = this.allocatable();
    const used = this.used(pod);
    for (const name of RESIZABLE) {
      if (wanted[name] > capacity[name]) {
        return { reason: 'Infeasible', message: `Node didn't have enough capacity: ${name}, requested: ${wanted[name]}, capacity: ${capacity[name]}` };
      }
    }
    for (const name of RESIZABLE) {
      if (wanted[name] + used[name] > capacity[name]) {
        return { reason: 'Deferred', message: `Node didn't have enough resource: ${name}, requested: ${wanted[name]}, used: ${used[name]}, capacity: ${capacity[name]}` };
      }
    }
    return undefined;
  }

  /** Replaces the resize conditions; writes only when status actually changes. */
  private writeConditions(pod: Pod, resizeConditions: { type: string; status: string; reason?: string; message?: string }[], generation: number): boolean {
    const status = pod.status ?? {};
    const before = JSON.stringify(status);
    const now = this.cluster.now();
    const kept = (status.conditions ?? []).filter((condition) => condition.type !== PENDING && condition.type !== IN_PROGRESS);
    const added = resizeConditions.map((condition): PodCondition => {
      const existing = status.conditions?.find((known) => known.type === condition.type && known.reason === condition.reason && known.message === condition.message);
      return { ...condition, lastProbeTime: existing?.lastProbeTime ?? now, lastTransitionTime: existing?.lastTransitionTime ?? now, observedGeneration: generation };
    });
    status.conditions = [...kept, ...added];
    status.observedGeneration = generation;
    if (JSON.stringify(status) === before) return false;
    pod.status = status;
    this.cluster.store.write('/pods', pod as KubeObject);
    return true;
  }
}

export class NodeSimulators {
  private readonly nodes = new Map<string, SimulatedNode>();

  /** `podStartDelayMs`: how long a bound pod stays Pending before its kubelet starts it (cluster clock). */
  constructor(
    private readonly cluster: Cluster,
    private readonly podStartDelayMs = 0,
  ) {
    cluster.onPodCreated = (pod) => this.schedule(pod);
  }

  /** Registers a Node object and its kubelet. */
  addNode(spec: NodeSpec): SimulatedNode {
    const node = new SimulatedNode(spec, this.cluster, this.podStartDelayMs);
    this.nodes.set(spec.name, node);
    const capacity = { cpu: spec.capacity.cpu, memory: spec.capacity.memory, pods: '110' };
    this.cluster.put({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: spec.name, labels: { 'kubernetes.io/hostname': spec.name, 'kubernetes.io/os': 'linux', ...spec.labels } },
      spec: {},
      status: {
        capacity,
        allocatable: capacity,
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: this.cluster.now(), lastTransitionTime: this.cluster.now() }],
        nodeInfo: {
          kubeletVersion: 'v1.34.0',
          containerRuntimeVersion: 'containerd://2.0.0',
          operatingSystem: 'linux',
          architecture: 'amd64',
          ...(spec.swap ? { swap: { capacity: resourceUnits('memory', spec.capacity.memory) } } : {}),
        },
      },
    });
    return node;
  }

  get(name: string): SimulatedNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no simulated node "${name}"`);
    return node;
  }

  list(): SimulatedNode[] {
    return [...this.nodes.values()];
  }

  /**
   * Schedules and starts a pod that was stored directly (store.put skips the API, so nothing
   * started it); pods created through the API start on their own.
   */
  startPod(namespace: string, name: string): void {
    const pod = this.cluster.store.get('/pods', namespace, name);
    if (!pod) throw new Error(`no pod ${namespace}/${name}`);
    this.schedule(pod as Pod);
  }

  /** One sync of every kubelet; returns whether any pod status changed. */
  tick(): boolean {
    let changed = false;
    for (const node of this.nodes.values()) changed = node.tick() || changed;
    return changed;
  }

  /** Ticks until nothing changes (bounded), for tests that only care about the end state. */
  settle(maxTicks = 20): void {
    for (let tick = 0; tick < maxTicks && this.tick(); tick++);
  }

  /** Binds a new pod to the first node (by name) with room for its requests, then starts it. */
  private schedule(pod: Pod): void {
    if (this.nodes.size === 0) return;
    let node = pod.spec.nodeName ? this.nodes.get(pod.spec.nodeName) : undefined;
    if (!pod.spec.nodeName) {
      const wanted = podRequests(resizableContainers(pod).map(({ container }) => container));
      node = [...this.nodes.values()]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .find((candidate) => {
          const used = candidate.used();
          const capacity = candidate.allocatable();
          return RESIZABLE.every((name) => wanted[name] + used[name] <= capacity[name]);
        });
      if (!node) {
        pod.status = { ...pod.status, conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: `0/${this.nodes.size} nodes are available: Insufficient resources.`, lastTransitionTime: this.cluster.now() }] };
        this.cluster.store.write('/pods', pod);
        return;
      }
      pod.spec.nodeName = node.name;
      pod.metadata = this.cluster.store.write('/pods', pod).metadata;
    }
    if (node) node.admit(pod);
  }
}
