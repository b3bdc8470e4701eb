// ClusterPort over kube-client.ts. Patch content types are explicit: pods/resize takes a strategic
// merge patch and the status a merge patch (null removes a field); JSON Patch would misread both.
import { ClusterError } from './cluster-port.js';
import type { ClusterPort, ContainerResize, EventRecord, Lease } from './cluster-port.js';
import type { KubeClient } from './kube-client.js';

export const REPORTING_CONTROLLER = 'kerf-gitops';
const RECOMMENDATIONS = '/apis/kerf.getkerf.dev/v1alpha1/namespaces';
const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';

/** A MicroTime as the API writes it: RFC 3339 with microseconds. */
const microTime = (date: Date) => date.toISOString().replace('Z', '000Z');

interface LeaseObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

function toLease(lease: LeaseObject): Lease {
  const spec = lease.spec ?? {};
  return {
    namespace: lease.metadata?.namespace ?? '',
    name: lease.metadata?.name ?? '',
    ...(spec.holderIdentity != null && { holderIdentity: spec.holderIdentity }),
    ...(spec.leaseDurationSeconds != null && { leaseDurationSeconds: spec.leaseDurationSeconds }),
    ...(spec.acquireTime && { acquireTime: new Date(spec.acquireTime) }),
    ...(spec.renewTime && { renewTime: new Date(spec.renewTime) }),
    ...(spec.leaseTransitions != null && { leaseTransitions: spec.leaseTransitions }),
    ...(lease.metadata?.resourceVersion && { resourceVersion: lease.metadata.resourceVersion }),
  };
}

function fromLease(lease: Lease): LeaseObject & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: lease.name, namespace: lease.namespace, ...(lease.resourceVersion && { resourceVersion: lease.resourceVersion }) },
    spec: {
      ...(lease.holderIdentity !== undefined && { holderIdentity: lease.holderIdentity }),
      ...(lease.leaseDurationSeconds !== undefined && { leaseDurationSeconds: lease.leaseDurationSeconds }),
      ...(lease.acquireTime && { acquireTime: microTime(lease.acquireTime) }),
      ...(lease.renewTime && { renewTime: microTime(lease.renewTime) }),
      ...(lease.leaseTransitions !== undefined && { leaseTransitions: lease.leaseTransitions }),
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

export function kubeClusterPort(client: KubeClient): ClusterPort {
  const leases = (namespace: string) => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  return {
    async resizePod(namespace, name, containers) {
      const pod = await client.call<{ metadata?: { generation?: number } }>(
        `resize pod ${namespace}/${name}`,
        'PATCH',
        `/api/v1/namespaces/${namespace}/pods/${name}/resize`,
        resizeBody(containers),
        STRATEGIC_MERGE,
      );
      return { generation: pod.metadata?.generation ?? 1 };
    },
    async evictPod(namespace, name) {
      await client.call(`evict pod ${namespace}/${name}`, 'POST', `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name, namespace },
      });
    },
    async patchRecommendationStatus(namespace, name, status, resourceVersion) {
      // A resourceVersion in a merge patch is a precondition: the server answers 409 when it is stale.
      const written = await client.call<{ metadata?: { resourceVersion?: string } } | undefined>(
        `status of RightsizingRecommendation ${namespace}/${name}`,
        'PATCH',
        `${RECOMMENDATIONS}/${namespace}/rightsizingrecommendations/${name}/status`,
        { ...(resourceVersion && { metadata: { resourceVersion } }), status },
        MERGE,
      );
      return written?.metadata?.resourceVersion;
    },
    async createEvent(event: EventRecord) {
      const { regarding } = event;
      const suffix = `${event.eventTime.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
      await client.call(`event on ${regarding.kind} ${regarding.namespace}/${regarding.name}`, 'POST', `/apis/events.k8s.io/v1/namespaces/${regarding.namespace}/events`, {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `${regarding.name}.${suffix}`, namespace: regarding.namespace },
        eventTime: microTime(event.eventTime),
        action: event.action,
        reason: event.reason,
        note: event.note.slice(0, 1024),
        type: event.type,
        regarding,
        ...(event.related && { related: event.related }),
        reportingController: REPORTING_CONTROLLER,
        reportingInstance: event.reportingInstance,
      });
    },
    async readLease(namespace, name) {
      try {
        return toLease(await client.call<LeaseObject>(`lease ${namespace}/${name}`, 'GET', `${leases(namespace)}/${name}`));
      } catch (error) {
        if (error instanceof ClusterError && error.code === 'NotFound') return undefined;
        throw error;
      }
    },
    async createLease(lease) {
      return toLease(await client.call<LeaseObject>(`create lease ${lease.namespace}/${lease.name}`, 'POST', leases(lease.namespace), fromLease(lease)));
    },
    async replaceLease(lease) {
      return toLease(await client.call<LeaseObject>(`update lease ${lease.namespace}/${lease.name}`, 'PUT', `${leases(lease.namespace)}/${lease.name}`, fromLease(lease)));
    },
  };
}
