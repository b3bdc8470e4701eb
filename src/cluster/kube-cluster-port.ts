// ClusterPort over @kubernetes/client-node 1.4. Patch content types are set explicitly: client-node
// otherwise sends JSON Patch, which pods/resize and the status merge would misread.
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from '@kubernetes/client-node';
import type { KubeConfig, V1Lease } from '@kubernetes/client-node';
import { ClusterError } from './cluster-port.js';
import type { ClusterErrorCode, ClusterErrorDetails, ClusterPort, ContainerResize, EventRecord, Lease } from './cluster-port.js';

export const REPORTING_CONTROLLER = 'kerf-gitops';
const KERF_GROUP = 'kerf.getkerf.dev';
const KERF_VERSION = 'v1alpha1';

const CODES: Record<number, ClusterErrorCode> = { 404: 'NotFound', 422: 'Invalid', 429: 'TooManyRequests' };

function statusMessage(body: unknown): string {
  if (typeof body === 'string') {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body;
    }
  }
  return typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : '';
}

/** client-node's ApiException as a ClusterError with a stable code (409 splits on the Status reason). */
export async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ApiException)) throw new ClusterError('Failed', `${what}: ${(error as Error).message}`, undefined, { cause: error });
    const status = error.code;
    const body = typeof error.body === 'string' ? safeParse(error.body) : error.body;
    const reason = typeof body === 'object' && body !== null && 'reason' in body ? String(body.reason) : '';
    const code = status === 409 ? (reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict') : (CODES[status] ?? 'Failed');
    throw new ClusterError(code, `${what}: ${status} ${statusMessage(error.body)}`.trim(), status, { cause: error }, errorDetails(body, error.headers));
  }
}

/** The Status's causes and the server's retry advice (the header wins: APF sets it). */
function errorDetails(body: unknown, headers: Record<string, string> | undefined): ClusterErrorDetails {
  const details = typeof body === 'object' && body !== null && 'details' in body && typeof body.details === 'object' && body.details !== null ? (body.details as Record<string, unknown>) : {};
  const causes = Array.isArray(details.causes)
    ? details.causes.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null).map((c) => ({ reason: String(c.reason ?? ''), message: String(c.message ?? '') }))
    : undefined;
  const header = Number(headers?.['retry-after']);
  const retryAfterSeconds = Number.isFinite(header) && headers?.['retry-after'] !== undefined ? header : typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
  const serverMessage = statusMessage(body);
  return { ...(causes && { causes }), ...(retryAfterSeconds !== undefined && { retryAfterSeconds }), ...(serverMessage && { serverMessage }) };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toLease(lease: V1Lease): Lease {
  const spec = lease.spec ?? {};
  return {
    namespace: lease.metadata?.namespace ?? '',
    name: lease.metadata?.name ?? '',
    ...(spec.holderIdentity !== undefined && { holderIdentity: spec.holderIdentity }),
    ...(spec.leaseDurationSeconds !== undefined && { leaseDurationSeconds: spec.leaseDurationSeconds }),
    ...(spec.acquireTime && { acquireTime: new Date(spec.acquireTime) }),
    ...(spec.renewTime && { renewTime: new Date(spec.renewTime) }),
    ...(spec.leaseTransitions !== undefined && { leaseTransitions: spec.leaseTransitions }),
    ...(lease.metadata?.resourceVersion && { resourceVersion: lease.metadata.resourceVersion }),
  };
}

function fromLease(lease: Lease): V1Lease {
  const micro = (date: Date | undefined) => (date ? new V1MicroTime(date.getTime()) : undefined);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: lease.name, namespace: lease.namespace, ...(lease.resourceVersion && { resourceVersion: lease.resourceVersion }) },
    spec: {
      holderIdentity: lease.holderIdentity,
      leaseDurationSeconds: lease.leaseDurationSeconds,
      acquireTime: micro(lease.acquireTime),
      renewTime: micro(lease.renewTime),
      leaseTransitions: lease.leaseTransitions,
    },
  };
}

function resizeBody(containers: readonly ContainerResize[]): object {
  const entry = ({ name, requests, limits }: ContainerResize) => ({
    name,
    resources: { ...(Object.keys(requests).length > 0 && { requests }), ...(Object.keys(limits).length > 0 && { limits }) },
  });
  const main = containers.filter((c) => !c.init).map(entry);
  const sidecars = containers.filter((c) => c.init).map(entry);
  return { spec: { ...(main.length > 0 && { containers: main }), ...(sidecars.length > 0 && { initContainers: sidecars }) } };
}

export function kubeClusterPort(kubeConfig: KubeConfig): ClusterPort {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const events = kubeConfig.makeApiClient(EventsV1Api);
  const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  return {
    async resizePod(namespace, name, containers) {
      const pod = await call(`resize pod ${namespace}/${name}`, () =>
        core.patchNamespacedPodResize({ namespace, name, body: resizeBody(containers) }, strategicMerge),
      );
      return { generation: pod.metadata?.generation ?? 1 };
    },
    async evictPod(namespace, name) {
      await call(`evict pod ${namespace}/${name}`, () =>
        core.createNamespacedPodEviction({
          namespace,
          name,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
        }),
      );
    },
    async patchRecommendationStatus(namespace, name, status, resourceVersion) {
      // A resourceVersion in a merge patch is a precondition: the server answers 409 when it is stale.
      const written = (await call(`status of RightsizingRecommendation ${namespace}/${name}`, () =>
        custom.patchNamespacedCustomObjectStatus(
          { group: KERF_GROUP, version: KERF_VERSION, plural: 'rightsizingrecommendations', namespace, name, body: { ...(resourceVersion && { metadata: { resourceVersion } }), status } },
          mergePatch,
        ),
      )) as { metadata?: { resourceVersion?: string } } | undefined;
      return written?.metadata?.resourceVersion;
    },
    async createEvent(event: EventRecord) {
      const { regarding } = event;
      const suffix = `${event.eventTime.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
      await call(`event on ${regarding.kind} ${regarding.namespace}/${regarding.name}`, () =>
        events.createNamespacedEvent({
          namespace: regarding.namespace,
          body: {
            apiVersion: 'events.k8s.io/v1',
            kind: 'Event',
            metadata: { name: `${regarding.name}.${suffix}`, namespace: regarding.namespace },
            eventTime: new V1MicroTime(event.eventTime.getTime()),
            action: event.action,
            reason: event.reason,
            note: event.note.slice(0, 1024),
            type: event.type,
            regarding,
            ...(event.related && { related: event.related }),
            reportingController: REPORTING_CONTROLLER,
            reportingInstance: event.reportingInstance,
          },
        }),
      );
    },
    async readLease(namespace, name) {
      try {
        return toLease(await call(`lease ${namespace}/${name}`, () => coordination.readNamespacedLease({ namespace, name })));
      } catch (error) {
        if (error instanceof ClusterError && error.code === 'NotFound') return undefined;
        throw error;
      }
    },
    async createLease(lease) {
      return toLease(await call(`create lease ${lease.namespace}/${lease.name}`, () =>
        coordination.createNamespacedLease({ namespace: lease.namespace, body: fromLease(lease) }),
      ));
    },
    async replaceLease(lease) {
      return toLease(await call(`update lease ${lease.namespace}/${lease.name}`, () =>
        coordination.replaceNamespacedLease({ namespace: lease.namespace, name: lease.name, body: fromLease(lease) }),
      ));
    },
  };
}
