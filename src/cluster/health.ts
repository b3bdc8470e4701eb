// The health watch after a change is applied: what the pods' status says broke since then. Pure
// over wire pods and `now`; the helper (in place, OD2) and the reconciler (rollouts) share it.
import type { ContainerStatus, Pod } from './objects.js';
import { isObject } from '../util/json.js';

export type BreachKind = 'OOMKilled' | 'Restarted' | 'NotReady';

/** The health watch's verdict as a recommendation's `status.health` records it. */
export interface HealthStatus {
  state: 'Watching' | 'Healthy' | 'Breached';
  /** When the watch ends (RFC 3339). */
  until?: string;
  /** What broke, for people. */
  breach?: string;
}

/** `status.health` as written, or undefined. */
export function readHealth(status: Record<string, unknown>): HealthStatus | undefined {
  const health = status.health;
  return isObject(health) && typeof health.state === 'string' ? (health as unknown as HealthStatus) : undefined;
}

export interface Breach {
  kind: BreachKind;
  pod: string;
  container?: string;
  /** For people: the Event's note and the status. */
  message: string;
}

/** A pod not Ready for this long after the change counts as lost readiness (a rolling restart's pods get this long to start). */
export const READINESS_GRACE_MS = 2 * 60_000;

const after = (time: string | undefined, since: Date) => time !== undefined && Date.parse(time) > since.getTime();

/** A container that died after `since`: OOMKilled names the cause, anything else is a restart. */
function containerBreach(pod: string, status: ContainerStatus, since: Date): Breach | undefined {
  for (const state of [status.state, status.lastState]) {
    const terminated = state?.terminated;
    if (!terminated || !after(terminated.finishedAt, since)) continue;
    const oom = terminated.reason === 'OOMKilled';
    return {
      kind: oom ? 'OOMKilled' : 'Restarted',
      pod,
      container: status.name,
      message: oom
        ? `container ${status.name} of pod ${pod} was OOMKilled at ${terminated.finishedAt}`
        : `container ${status.name} of pod ${pod} restarted at ${terminated.finishedAt} (${terminated.reason ?? 'exited'}, restart count ${status.restartCount ?? '?'})`,
    };
  }
  return undefined;
}

function readinessBreach(pod: Pod, since: Date, now: Date): Breach | undefined {
  const ready = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready?.status === 'True') return undefined;
  const notReadySince = Math.max(since.getTime(), Date.parse(ready?.lastTransitionTime ?? pod.metadata.creationTimestamp ?? '') || 0);
  if (now.getTime() - notReadySince < READINESS_GRACE_MS) return undefined;
  const name = pod.metadata.name;
  return { kind: 'NotReady', pod: name, message: `pod ${name} has not been Ready since ${new Date(notReadySince).toISOString()}` };
}

/**
 * The first breach in the workload's pods since the change was applied: an OOMKilled container, a
 * restart (the restart count went up: a termination finished after `since`), or a pod not Ready
 * for READINESS_GRACE_MS. Terminating and finished pods are left out.
 */
export function healthBreach(pods: readonly Pod[], since: Date, now: Date): Breach | undefined {
  const watched = pods
    .filter((pod) => pod.metadata.deletionTimestamp === undefined && (pod.status?.phase === 'Running' || pod.status?.phase === 'Pending'))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const breaches = watched.flatMap((pod) => {
    const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
    const died = statuses.map((status) => containerBreach(pod.metadata.name, status, since)).filter((breach) => breach !== undefined);
    return died.length > 0 ? died : [readinessBreach(pod, since, now)].filter((breach) => breach !== undefined);
  });
  // An OOM kill says most about a too-small memory change; report it first.
  return breaches.find((breach) => breach.kind === 'OOMKilled') ?? breaches[0];
}

/** Whether a watch that runs `until` (RFC 3339) is over at `now`. */
export function watchOver(until: string | undefined, now: Date): boolean {
  return until === undefined || now.getTime() >= Date.parse(until);
}
