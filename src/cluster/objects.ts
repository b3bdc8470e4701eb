// The slice of Kubernetes objects kerf reads, as they travel on the wire (plain JSON: times are
// RFC 3339 strings, quantities strings). client-node's typed models turn times into Date objects
// and drop fields they do not know (pod `status.observedGeneration` on older models), so the
// helper keeps to wire JSON.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export type ResourceList = Partial<Record<string, string>>;

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface PodContainer {
  name: string;
  image?: string;
  env?: { name: string }[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName: string; restartPolicy: string }[];
  restartPolicy?: string;
}

/** The pod conditions of an in-place resize (KEP-1287). */
export const RESIZE_PENDING = 'PodResizePending';
export const RESIZE_IN_PROGRESS = 'PodResizeInProgress';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface ContainerState {
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; startedAt?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  resources?: ResourceRequirements;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { nodeName?: string; containers: PodContainer[]; initContainers?: PodContainer[] };
  status?: {
    phase?: string;
    observedGeneration?: number;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface Node {
  metadata: ObjectMeta;
  status?: { nodeInfo?: { swap?: { capacity?: number } } };
}


export { isObject } from '../util/json.js';
