// OnDelete StatefulSets (OD1–OD3): after a rollout changed the template, kerf replaces the outdated
// pods itself, highest ordinal first, a few per pass, only on a settled, healthy set. Pure.
import type { HoldReason, KerfConfig, RightsizingPolicy } from '../model/types.js';
import { parseDuration } from '../rules/duration.js';
import { pauseOrFreeze } from '../rules/decide.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { isObject } from '../util/json.js';
import { isTerminating, ordinalOf, readySince } from '../lifecycle/pod-state.js';

export type EvictionWait = 'not-on-delete' | 'up-to-date' | 'held' | 'not-ready' | 'settling';

export interface EvictionPlan {
  /** Pods to evict this pass, in order. */
  evict: string[];
  /** Why nothing (more) is evicted this pass. */
  wait?: EvictionWait;
  hold?: HoldReason;
}

export function nextEvictions(input: {
  statefulSet: KubeObject;
  /** Pods of the StatefulSet, terminating ones included. */
  pods: readonly Pod[];
  policy: RightsizingPolicy;
  config: KerfConfig;
  now: Date;
}): EvictionPlan {
  const { statefulSet, pods, policy, now } = input;
  const spec = statefulSet.spec ?? {};
  const strategy = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  const updateRevision = statefulSet.status?.updateRevision;
  if (strategy.type !== 'OnDelete' || typeof updateRevision !== 'string') return { evict: [], wait: 'not-on-delete' };
  const outdated = pods
    .filter((pod) => !isTerminating(pod) && pod.metadata.labels?.['controller-revision-hash'] !== updateRevision)
    .sort((a, b) => ordinalOf(b) - ordinalOf(a));
  if (outdated.length === 0) return { evict: [], wait: 'up-to-date' };
  // Z1, Z4: a freeze or pause stops pod replacement like any other apply.
  const hold = pauseOrFreeze(input.config, policy, false, now);
  if (hold) return { evict: [], wait: 'held', hold };
  // OD2: every pod present, none going away, all Ready (the controller checks the health watch first) ...
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const since = pods.map((pod) => (isTerminating(pod) ? undefined : readySince(pod)));
  if (pods.length < replicas || since.some((at) => at === undefined)) return { evict: [], wait: 'not-ready' };
  // ... and Ready for at least onDelete.settle.
  const settled = now.getTime() - parseDuration(policy.apply.onDelete.settle || '30s');
  if (since.some((at) => at !== undefined && at.getTime() > settled)) return { evict: [], wait: 'settling' };
  const max = policy.apply.onDelete.maxPodDeletesPerRun || 1;
  return { evict: outdated.slice(0, max).map((pod) => pod.metadata.name) };
}
