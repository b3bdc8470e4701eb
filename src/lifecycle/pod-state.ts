// What a pod's status says about an in-place resize, its readiness and its owner; pure.
import type { LabelSelector } from '../model/types.js';
import type { NodeFacts } from '../rules/decide.js';
import { parseQuantity } from '../rules/quantity.js';
import { matchesSelector } from '../rules/selector.js';
import type { Condition, Node, Pod, PodContainer, ResourceList } from '../cluster/objects.js';
import { RESIZE_IN_PROGRESS, RESIZE_PENDING } from '../cluster/objects.js';

export { RESIZE_IN_PROGRESS, RESIZE_PENDING };

export type ResizeProgress =
  | { state: 'settled' }
  | { state: 'in-progress' }
  | { state: 'deferred'; since: string | undefined; message: string }
  | { state: 'infeasible'; message: string }
  | { state: 'failed'; message: string };

/**
 * What the kubelet reports rounds what was asked: CPU shares lose up to a millicore each way and
 * memory is counted in whole pages, so "reached" allows that much.
 */
const TOLERANCE: Record<string, bigint> = { cpu: 2n, memory: 4096n * 1000n };

function condition(pod: Pod, type: string): Condition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

function withinRounding(resource: string, wanted: string | undefined, actual: string | undefined): boolean {
  if (wanted === undefined || actual === undefined) return wanted === actual;
  const difference = parseQuantity(wanted).toMilli() - parseQuantity(actual).toMilli();
  const tolerance = TOLERANCE[resource] ?? 0n;
  return difference <= tolerance && difference >= -tolerance;
}

function listsReached(wanted: ResourceList = {}, actual: ResourceList = {}): boolean {
  return ['cpu', 'memory'].every((resource) => withinRounding(resource, wanted[resource], actual[resource]));
}

/** Whether the container statuses report the spec's resources (within rounding); clusters before 1.34 have no pod observedGeneration, so this tells instead. */
export function resourcesReached(pod: Pod): boolean {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return resizableContainers(pod).every((container) => {
    const actual = statuses.find((s) => s.name === container.name)?.resources;
    // A kubelet that reports no actual resources cannot be judged by them; its conditions still are.
    if (actual === undefined) return true;
    return listsReached(container.resources?.requests, actual.requests) && listsReached(container.resources?.limits, actual.limits);
  });
}

/**
 * Where an in-place resize of the pod stands. `submittedGeneration` is the generation the resize
 * patch returned, for a cache that has not seen the patched pod yet.
 */
export function resizeProgress(pod: Pod, submittedGeneration?: number): ResizeProgress {
  const pending = condition(pod, RESIZE_PENDING);
  if (pending?.reason === 'Infeasible') return { state: 'infeasible', message: pending.message ?? '' };
  if (pending?.reason === 'Deferred') {
    return { state: 'deferred', since: pending.lastTransitionTime, message: pending.message ?? '' };
  }
  const inProgress = condition(pod, RESIZE_IN_PROGRESS);
  if (inProgress?.reason === 'Error') return { state: 'failed', message: inProgress.message ?? '' };
  if (pending || inProgress) return { state: 'in-progress' };
  const generation = Math.max(pod.metadata.generation ?? 1, submittedGeneration ?? 0);
  if ((pod.metadata.generation ?? 1) < generation) return { state: 'in-progress' };
  const observed = pod.status?.observedGeneration;
  if (observed !== undefined) return observed >= generation ? { state: 'settled' } : { state: 'in-progress' };
  return resourcesReached(pod) ? { state: 'settled' } : { state: 'in-progress' };
}

/** Containers and native sidecars: what an in-place resize can touch. */
export function resizableContainers(pod: Pod): PodContainer[] {
  return [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
}

/**
 * The latest instant an API time can stand for: the API keeps whole seconds, so "10:00:05Z" may
 * mean as late as 10:00:05.999. Waits measured from it are never cut short.
 */
export function latestInstant(time: string): number {
  return Date.parse(time) + (/\.\d+/.test(time) ? 0 : 999);
}

/** When the pod last became Ready (at the latest); undefined while it is not Ready. */
export function readySince(pod: Pod): Date | undefined {
  const ready = condition(pod, 'Ready');
  if (!ready) return undefined;
  const since = ready.lastTransitionTime ?? pod.metadata.creationTimestamp;
  return new Date(since ? latestInstant(since) : 0);
}

export function isTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** A StatefulSet pod's ordinal, from its name. */
export function ordinalOf(pod: Pod): number {
  const match = /-(\d+)$/.exec(pod.metadata.name);
  return match ? Number(match[1]) : -1;
}

/** N1/N2 facts of a node: swap as the node reports it, and the helper's unsupportedNodeSelectors. */
export function nodeFacts(node: Node, unsupportedNodeSelectors: readonly LabelSelector[]): NodeFacts {
  const labels = node.metadata.labels ?? {};
  return {
    name: node.metadata.name,
    swap: (node.status?.nodeInfo?.swap?.capacity ?? 0) > 0,
    unsupported: unsupportedNodeSelectors.some((selector) => matchesSelector(labels, selector)),
  };
}
