// The helper's health watch of an in-place change (issue 6 item 4): from Applied for the policy's
// healthWatch.duration; a breach rolls the pods back in place to the template's values (Z2: even
// in a freeze), RolledBack, and the change is not applied again until its spec changes. Pure.
import type { ContainerRecommendation, RightsizingPolicy, RightsizingRecommendation, Strategy, Workload } from '../model/types.js';
import { DEFAULT_HEALTH_WATCH } from '../model/validate.js';
import { computeChanges } from '../rules/changes.js';
import { parseDuration } from '../rules/duration.js';
import { healthBreach, readHealth, watchOver, type Breach } from '../cluster/health.js';
import type { Pod } from '../cluster/objects.js';
import type { StatusUpdate } from './outcome.js';
import { resizeProgress } from './pod-state.js';
import { asRunBy, inPlaceRecommendation, resizeOf, type ResizePlan } from './resize-plan.js';

/**
 * The breach of a change under watch, or why its pods must not be disturbed (OD2): a rolled-back
 * change, or a breach seen since it was applied while the watch runs. Undefined when all is well.
 */
export function watchedBreach(status: Record<string, unknown>, pods: readonly Pod[], now: Date): Breach | 'rolled-back' | undefined {
  if (status.phase === 'RolledBack') return 'rolled-back';
  const health = readHealth(status);
  if (status.phase !== 'Applied' || health?.state !== 'Watching' || watchOver(health.until, now) || typeof status.appliedAt !== 'string') return undefined;
  return healthBreach(pods, new Date(status.appliedAt), now);
}

/** The template's values of the fields the recommendation sets: where an in-place rollback goes back to. */
function templateValues(workload: Workload, recommendation: RightsizingRecommendation): ContainerRecommendation[] {
  return recommendation.containers.map((recommended) => {
    const template = workload.containers.find((c) => c.name === recommended.name);
    const pick = (group: 'requests' | 'limits') =>
      Object.fromEntries(Object.keys(recommended[group]).map((resource) => [resource, template?.[group][resource] ?? null]));
    return { name: recommended.name, requests: pick('requests'), limits: pick('limits') };
  });
}

/** The next pod to resize back to the template, one at a time; none while a resize is still in flight. */
function restore(workload: Workload, recommendation: RightsizingRecommendation, pods: readonly Pod[]): ResizePlan {
  const previous = inPlaceRecommendation({ ...recommendation, containers: templateValues(workload, recommendation) }).containers;
  const sorted = [...pods].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  if (sorted.some((pod) => resizeProgress(pod).state !== 'settled')) return { events: [], memory: {} };
  for (const pod of sorted) {
    const runBy = asRunBy(workload, pod);
    const changes = computeChanges(runBy, previous);
    if (changes.length > 0) return { events: [], resize: { pod: pod.metadata.name, containers: resizeOf(runBy, changes) }, memory: {} };
  }
  return { events: [], memory: {} };
}

export interface HealthWatchInput {
  recommendation: RightsizingRecommendation;
  /** The recommendation's status as read (with the helper's own writes laid over). */
  status: Record<string, unknown>;
  generation: number;
  workload: Workload;
  policy: RightsizingPolicy;
  configured: Strategy;
  pods: readonly Pod[];
  now: Date;
}

/**
 * What the health watch asks this pass, or undefined to leave the change to planResize: start the
 * watch when a change is Applied, end it Healthy, roll back on a breach, and keep a rolled-back
 * generation at the template's values (never re-applied until its spec changes).
 */
export function planHealthWatch(input: HealthWatchInput): ResizePlan | undefined {
  const { status, generation, workload, recommendation, pods, now } = input;
  if (status.phase === 'RolledBack' && status.rolledBackGeneration === generation) return restore(workload, recommendation, pods);
  if (status.phase !== 'Applied' || status.strategy !== 'in-place') return undefined;
  const base = { phase: 'Applied', strategy: 'in-place', configuredStrategy: input.configured, reason: null, nextWindow: null } as const;
  const health = readHealth(status);
  if (!health) {
    const since = typeof status.appliedAt === 'string' ? Date.parse(status.appliedAt) : now.getTime();
    const until = new Date(since + parseDuration(input.policy.apply.healthWatch?.duration ?? DEFAULT_HEALTH_WATCH)).toISOString();
    return { status: { ...base, health: { state: 'Watching', until } }, events: [], memory: {} };
  }
  if (health.state !== 'Watching') return undefined;
  if (watchOver(health.until, now)) return { status: { ...base, health: { ...health, state: 'Healthy' } }, events: [], memory: {} };
  const breach = watchedBreach(status, pods, now);
  if (breach === undefined || breach === 'rolled-back') return undefined;
  const rolledBack: StatusUpdate = {
    ...base,
    phase: 'RolledBack',
    // The webhook stops giving new pods the recommended values: they get the template's again.
    observedGeneration: null,
    rolledBackGeneration: generation,
    health: { ...health, state: 'Breached', breach: breach.message },
  };
  return {
    ...restore(workload, recommendation, pods),
    status: rolledBack,
    events: [{ action: 'RolledBack', reason: breach.kind, note: `health watch breached: ${breach.message}; resizing back in place to the template's values`, pod: breach.pod }],
  };
}
