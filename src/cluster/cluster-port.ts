// The helper's writes to the cluster, behind one small port (implemented over kube-client.ts in
// kube-cluster-port.ts), so the controller is tested against the stand-in over the wire.

export type ClusterErrorCode = 'Conflict' | 'AlreadyExists' | 'Invalid' | 'TooManyRequests' | 'NotFound' | 'Failed';

/** What a failed call's Status said beyond its message: `details.causes[].reason` and when to retry. */
export interface ClusterErrorDetails {
  causes?: { reason: string; message: string }[];
  /** From `Retry-After` or `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** The Status message as the server wrote it. */
  serverMessage?: string;
}

export class ClusterError extends Error {
  constructor(
    readonly code: ClusterErrorCode,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
    readonly details: ClusterErrorDetails = {},
  ) {
    super(message, options);
  }
}

/** New cpu/memory values of one container (or native sidecar) for the pods' resize subresource. */
export interface ContainerResize {
  name: string;
  /** A native sidecar (listed under initContainers). */
  init?: boolean;
  requests: Partial<Record<'cpu' | 'memory', string>>;
  limits: Partial<Record<'cpu' | 'memory', string>>;
}

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** An events.k8s.io/v1 Event; reportingController is always kerf-gitops. */
export interface EventRecord {
  regarding: ObjectReference;
  related?: ObjectReference;
  action: string;
  reason: string;
  note: string;
  type: 'Normal' | 'Warning';
  reportingInstance: string;
  eventTime: Date;
}

export interface Lease {
  namespace: string;
  name: string;
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: Date;
  renewTime?: Date;
  leaseTransitions?: number;
  /** For optimistic concurrency: a stale one makes replaceLease fail with Conflict. */
  resourceVersion?: string;
}

export interface ClusterPort {
  /** Patches `pods/resize` (strategic merge, cpu/memory only); answers the generation the patch produced. Invalid (422) when refused. */
  resizePod(namespace: string, name: string, containers: readonly ContainerResize[]): Promise<{ generation: number }>;
  /** policy/v1 Eviction; TooManyRequests (429) when refused (details say why), Failed (500) for several budgets. */
  evictPod(namespace: string, name: string): Promise<void>;
  /**
   * Merge-patches the recommendation's status subresource (null removes a field), conditional on
   * `resourceVersion` when given (Conflict when it is stale); answers the new resourceVersion.
   */
  patchRecommendationStatus(namespace: string, name: string, status: Record<string, unknown>, resourceVersion?: string): Promise<string | undefined>;
  createEvent(event: EventRecord): Promise<void>;
  readLease(namespace: string, name: string): Promise<Lease | undefined>;
  /** AlreadyExists (409) when another replica created it first. */
  createLease(lease: Lease): Promise<Lease>;
  /** Conflict (409) when the lease changed since it was read. */
  replaceLease(lease: Lease): Promise<Lease>;
}
