// Pod rules of the apiserver that kerf depends on: defaulting, QoS class, the narrow set of
// mutable pod fields, and what the `resize` subresource accepts.
import type { StatusCause } from './api-error.js';
import { canonicalJson } from './patch.js';
import type { KubeObject } from './object-store.js';
import { resourceUnits } from './quantity.js';

export type ResourceList = Record<string, string>;

export interface Resources {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Container {
  name: string;
  image?: string;
  resources?: Resources;
  resizePolicy?: { resourceName: string; restartPolicy: string }[];
  restartPolicy?: string;
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  observedGeneration?: number;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  state?: Record<string, unknown>;
  lastState?: Record<string, unknown>;
  allocatedResources?: ResourceList;
  resources?: Resources;
}

export interface Pod extends KubeObject {
  spec: {
    nodeName?: string;
    containers: Container[];
    initContainers?: Container[];
    restartPolicy?: string;
    [field: string]: unknown;
  };
  status?: {
    phase?: string;
    qosClass?: string;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
    observedGeneration?: number;
    startTime?: string;
    [field: string]: unknown;
  };
}

export const RESIZABLE = ['cpu', 'memory'] as const;

/** Containers whose resources count and may be resized: app containers and native sidecars. */
export function resizableContainers(pod: Pod): { container: Container; path: string }[] {
  return [
    ...pod.spec.containers.map((container, index) => ({ container, path: `spec.containers[${index}]` })),
    ...(pod.spec.initContainers ?? []).flatMap((container, index) =>
      container.restartPolicy === 'Always' ? [{ container, path: `spec.initContainers[${index}]` }] : [],
    ),
  ];
}

/** The apiserver's defaulting of a new pod that matters for resources: requests default to limits. */
export function defaultPod(pod: Pod): void {
  pod.spec.restartPolicy ??= 'Always';
  for (const container of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
    const limits = container.resources?.limits;
    if (!limits) continue;
    container.resources!.requests ??= {};
    for (const [name, value] of Object.entries(limits)) container.resources!.requests[name] ??= value;
  }
}

export function qosClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const container of all) {
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    for (const name of RESIZABLE) {
      if (requests[name] !== undefined || limits[name] !== undefined) any = true;
      const limit = limits[name];
      const request = requests[name] ?? limit;
      if (limit === undefined || resourceUnits(name, request) !== resourceUnits(name, limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Sum of the pod's cpu (millicores) and memory (bytes) requests, what the kubelet admits. */
export function podRequests(containers: { resources?: Resources }[]): Record<'cpu' | 'memory', number> {
  const sum = { cpu: 0, memory: 0 };
  for (const container of containers) {
    for (const name of RESIZABLE) sum[name] += resourceUnits(name, container.resources?.requests?.[name]);
  }
  return sum;
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

/** Requests above limits are invalid on create and on resize. */
export function validatePodResources(pod: Pod): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [index, container] of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].entries()) {
    const prefix = index < pod.spec.containers.length ? `spec.containers[${index}]` : `spec.initContainers[${index - pod.spec.containers.length}]`;
    for (const name of RESIZABLE) {
      const request = container.resources?.requests?.[name];
      const limit = container.resources?.limits?.[name];
      if (request !== undefined && limit !== undefined && resourceUnits(name, request) > resourceUnits(name, limit)) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${prefix}.resources.requests`,
          message: `Invalid value: "${request}": must be less than or equal to ${name} limit of ${limit}`,
        });
      }
    }
  }
  return causes;
}

function withoutMutableFields(spec: Pod['spec']): Pod['spec'] {
  const copy = structuredClone(spec);
  for (const container of [...copy.containers, ...(copy.initContainers ?? [])]) delete container.image;
  delete copy.activeDeadlineSeconds;
  delete copy.tolerations;
  return copy;
}

/** A plain pod update may change only images, activeDeadlineSeconds and tolerations. */
export function validatePodUpdate(previous: Pod, next: Pod): StatusCause[] {
  const before = withoutMutableFields(previous.spec);
  const after = withoutMutableFields(next.spec);
  // The scheduler's binding sets nodeName once.
  if (!before.nodeName) delete after.nodeName;
  else if (!after.nodeName) after.nodeName = before.nodeName;
  if (canonicalJson(before) === canonicalJson(after)) return [];
  return [{
    reason: 'FieldValueForbidden',
    field: 'spec',
    message:
      'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
  }];
}

function withoutResources(spec: Pod['spec']): Pod['spec'] {
  const copy = structuredClone(spec);
  for (const container of [...copy.containers, ...(copy.initContainers ?? [])]) {
    if (container.restartPolicy === 'Always' || copy.containers.includes(container)) delete container.resources;
  }
  return copy;
}

/**
 * What `pods/resize` accepts (KEP-1287, apiserver 1.33): only cpu and memory of containers and
 * sidecars change, no request or limit is removed, and the QoS class stays the same.
 */
export function validatePodResize(previous: Pod, next: Pod): StatusCause[] {
  if (canonicalJson(withoutResources(previous.spec)) !== canonicalJson(withoutResources(next.spec))) {
    return [{ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: only cpu and memory resources are mutable' }];
  }
  const causes: StatusCause[] = [];
  const before = resizableContainers(previous);
  for (const [index, { container, path }] of resizableContainers(next).entries()) {
    const old = before[index]!.container.resources ?? {};
    const now = container.resources ?? {};
    for (const kind of ['requests', 'limits'] as const) {
      const names = new Set([...Object.keys(old[kind] ?? {}), ...Object.keys(now[kind] ?? {})]);
      for (const name of names) {
        const was = old[kind]?.[name];
        const is = now[kind]?.[name];
        if (!(RESIZABLE as readonly string[]).includes(name)) {
          if (was !== is) causes.push({ reason: 'FieldValueForbidden', field: `${path}.resources.${kind}[${name}]`, message: 'Forbidden: only cpu and memory resources are mutable' });
        } else if (was !== undefined && is === undefined) {
          causes.push({ reason: 'FieldValueForbidden', field: `${path}.resources.${kind}[${name}]`, message: `Forbidden: resource ${kind} cannot be removed` });
        }
      }
    }
  }
  causes.push(...validatePodResources(next));
  if (causes.length === 0 && qosClass(previous) !== qosClass(next)) {
    causes.push({ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: Pod QOS Class may not change as a result of resizing' });
  }
  return causes;
}
