// What the helper keeps of each object it watches. A pod as the API serves it is ~5 KiB of JSON
// (managedFields, volumes, tolerations, IPs, probes, env values); the helper reads a tenth of it,
// and with 10,000 pods cached the rest is most of its memory. Each object is copied down to the
// fields that src/helper and src/cluster read, as it arrives (list page or watch event), so the
// full object is garbage at once. Values that many pods hold alike (a workload's resources, labels
// and owner, images, container and node names) are kept once, frozen, and shared. A field a reader
// starts to use must be added here: test/cluster/cached-objects.test.ts pins the shapes.
import type { ClusterSnapshot } from './snapshot.js';
import type { Condition, ContainerState, ContainerStatus, KubeObject, Node, ObjectMeta, OwnerReference, Pod, PodContainer, ResourceRequirements } from './objects.js';
import { isObject, RESIZE_IN_PROGRESS, RESIZE_PENDING } from './objects.js';

/** Written by `kubectl apply`: a full copy of the object, read by nobody here. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The pod conditions anything reads (pod-state, health): readiness and the resize's progress. */
const POD_CONDITIONS: ReadonlySet<string> = new Set(['Ready', RESIZE_PENDING, RESIZE_IN_PROGRESS]);

type Json = Record<string, unknown>;

/** Distinct shared values before the table starts over, so names that come and go do not pile up. */
const SHARED_LIMIT = 20_000;
const shared = new Map<string, unknown>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** One frozen copy of a JSON value (a string, or a small object keyed by its JSON) for every object that holds it. */
function share<T>(value: T): T {
  // V8 already keeps one copy of the short strings JSON.parse makes.
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= 10)) return value;
  const key = typeof value === 'string' ? `s${value}` : `j${JSON.stringify(value)}`;
  const found = shared.get(key);
  if (found !== undefined) return found as T;
  if (shared.size >= SHARED_LIMIT) shared.clear();
  shared.set(key, deepFreeze(value));
  return value;
}

const object = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The listed keys that are present (undefined ones are left out, as JSON would), as the wire type T names them. */
function pick<T>(from: Json | undefined, keys: readonly (keyof T & string)[]): T {
  const out: Json = {};
  if (from) for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out as T;
}

function annotations(meta: Json): Record<string, string> | undefined {
  const all = object(meta.annotations) as Record<string, string> | undefined;
  if (!all || !(LAST_APPLIED in all)) return all;
  const { [LAST_APPLIED]: _dropped, ...rest } = all;
  return rest;
}

function ownerReferences(value: unknown): OwnerReference[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return share(value.filter(isObject).map((ref) => pick<OwnerReference>(ref, ['apiVersion', 'kind', 'name', 'uid', 'controller'])));
}

/** Every field of ObjectMeta (objects.ts) but managedFields and the last-applied annotation. */
function meta(value: unknown, keep: readonly (keyof ObjectMeta)[]): ObjectMeta {
  const from = object(value) ?? {};
  const out = pick<ObjectMeta>(from, keep.filter((key) => key !== 'annotations' && key !== 'ownerReferences'));
  if (out.namespace !== undefined) out.namespace = share(out.namespace);
  if (out.labels !== undefined) out.labels = share(out.labels);
  if (keep.includes('annotations') && from.annotations !== undefined) out.annotations = annotations(from) ?? {};
  if (keep.includes('ownerReferences') && from.ownerReferences !== undefined) out.ownerReferences = ownerReferences(from.ownerReferences) ?? [];
  return out;
}

const ALL_META: readonly (keyof ObjectMeta)[] = [
  'name',
  'namespace',
  'uid',
  'generation',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'labels',
  'annotations',
  'ownerReferences',
];

/** Pods: identity, owner, revision labels, times (readiness, termination); no uid or annotations. */
const POD_META: readonly (keyof ObjectMeta)[] = ['name', 'namespace', 'generation', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'labels', 'ownerReferences'];

function resources(value: unknown): ResourceRequirements | undefined {
  const from = object(value);
  return from && share(pick<ResourceRequirements>(from, ['requests', 'limits']));
}

/** What containerSpecs, resizableContainers and the resize plans read of a container. */
function container(value: Json): PodContainer {
  const out = pick<PodContainer>(value, ['name', 'image', 'resizePolicy', 'restartPolicy']);
  out.name = share(out.name);
  if (out.image !== undefined) out.image = share(out.image);
  if (out.resizePolicy !== undefined) out.resizePolicy = share(out.resizePolicy);
  if (Array.isArray(value.env)) out.env = share(value.env.filter(isObject).map((variable) => ({ name: String(variable.name) })));
  const kept = resources(value.resources);
  if (kept) out.resources = kept;
  return out;
}

/** Containers and native sidecars; plain init containers are over before the pod runs, and nothing reads them. */
function podSpec(value: unknown): Pod['spec'] {
  const from = object(value) ?? {};
  const spec: Pod['spec'] = { containers: array(from.containers).filter(isObject).map(container) };
  if (typeof from.nodeName === 'string') spec.nodeName = share(from.nodeName);
  if (Array.isArray(from.initContainers)) {
    spec.initContainers = from.initContainers.filter(isObject).filter((c) => c.restartPolicy === 'Always').map(container);
  }
  return spec;
}

/** Only a termination is read (health): a running or waiting state is left out. */
function containerState(value: unknown): ContainerState | undefined {
  const terminated = object(object(value)?.terminated);
  return terminated && { terminated: pick<NonNullable<ContainerState['terminated']>>(terminated, ['reason', 'finishedAt']) };
}

/** What the health watch and the resize progress read: actual resources, restarts, terminations. */
function containerStatus(value: Json): ContainerStatus {
  const out = pick<ContainerStatus>(value, ['name', 'restartCount']);
  out.name = share(out.name);
  const kept = resources(value.resources);
  if (kept) out.resources = kept;
  const state = containerState(value.state);
  if (state) out.state = state;
  const last = containerState(value.lastState);
  if (last) out.lastState = last;
  return out;
}

function podStatus(value: unknown): Pod['status'] {
  const from = object(value);
  if (!from) return undefined;
  const status = pick<NonNullable<Pod['status']>>(from, ['phase', 'observedGeneration']);
  if (Array.isArray(from.conditions)) {
    status.conditions = from.conditions
      .filter(isObject)
      .filter((c) => POD_CONDITIONS.has(String(c.type)))
      .map((c) => pick<Condition>(c, ['type', 'status', 'reason', 'message', 'lastTransitionTime']));
  }
  for (const key of ['containerStatuses', 'initContainerStatuses'] as const) {
    if (Array.isArray(from[key])) status[key] = from[key].filter(isObject).map(containerStatus);
  }
  return status;
}

export function cachedPod(pod: KubeObject): Pod {
  const raw = pod as unknown as Json;
  const status = podStatus(raw.status);
  return { metadata: meta(raw.metadata, POD_META), spec: podSpec(raw.spec), ...(status && { status }) };
}

/** Nodes: name, labels (unsupportedNodeSelectors) and swap (N1); a node's status lists every image it holds. */
export function cachedNode(node: KubeObject): Node {
  const raw = node as unknown as Json;
  const swap = object(object(object(raw.status)?.nodeInfo)?.swap);
  return {
    metadata: meta(raw.metadata, ['name', 'resourceVersion', 'labels']),
    ...(swap && { status: { nodeInfo: { swap: pick<{ capacity?: number }>(swap, ['capacity']) } } }),
  };
}

/** ReplicaSets only say which Deployment owns them; their pod template is left out. */
export function cachedReplicaSet(replicaSet: KubeObject): KubeObject {
  return { metadata: meta(replicaSet.metadata, ['name', 'namespace', 'resourceVersion', 'ownerReferences']) };
}

/**
 * Deployments, StatefulSets, DaemonSets: what workloadFromObject, the OnDelete plan and the Events
 * read (identity, labels and annotations, replicas, update strategy, the template's labels and
 * containers, the StatefulSet's update revision, and whether its controller runs every replica at
 * the current template, which Applied waits for).
 */
export function cachedWorkload(workload: KubeObject): KubeObject {
  const spec = workload.spec ?? {};
  const template = object(spec.template);
  const templateMeta = object(template?.metadata);
  const status = pick<Json>(object(workload.status) ?? {}, ['updateRevision', 'observedGeneration', 'updatedReplicas', 'desiredNumberScheduled', 'updatedNumberScheduled']);
  return {
    ...(workload.apiVersion !== undefined && { apiVersion: workload.apiVersion }),
    ...(workload.kind !== undefined && { kind: workload.kind }),
    metadata: meta(workload.metadata, ALL_META),
    spec: {
      ...pick<Json>(spec, ['replicas', 'strategy', 'updateStrategy']),
      ...(template && {
        template: {
          ...(templateMeta && { metadata: pick<Json>(templateMeta, ['labels', 'annotations']) }),
          spec: podSpec(template.spec),
        },
      }),
    },
    ...(Object.keys(status).length > 0 && { status }),
  };
}

/** Everything else (kerf's CRs, PDBs, HPAs): the object as served, without its managedFields and last-applied copy. */
export function cachedObject(kept: KubeObject): KubeObject {
  return { ...kept, metadata: meta(kept.metadata, ALL_META) };
}

/** How each watched kind is cut down as it arrives. */
export const CACHED: Record<keyof ClusterSnapshot, (object: KubeObject) => KubeObject> = {
  recommendations: cachedObject,
  policies: cachedObject,
  pods: cachedPod,
  nodes: cachedNode,
  deployments: cachedWorkload,
  statefulSets: cachedWorkload,
  daemonSets: cachedWorkload,
  replicaSets: cachedReplicaSet,
  pdbs: cachedObject,
  hpas: cachedObject,
};
