// The helper's health watch of an in-place change (issue 6 item 4): from Applied for the policy's
// healthWatch.duration; a breach rolls the pods back in place to the template's values (Z2: even
// in a freeze), RolledBack, and the change is not applied again until its spec changes. Pure.
import type { ContainerRecommendation, RightsizingPolicy, RightsizingRecommendation, Strategy, Workload } from '../model/types.js';
import { computeChanges } from '../rules/changes.js';
import type { Pod } from '../cluster/objects.js';
import { healthStep } from '../lifecycle/health-watch.js';
import type { StatusUpdate } from '../lifecycle/outcome.js';
import { resizeProgress } from '../lifecycle/pod-state.js';
import { asRunBy, inPlaceRecommendation, resizeOf, type ResizePlan } from './resize-plan.js';

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
  const step = healthStep(status, pods, input.policy, now);
  if (!step) return undefined;
  if (step.kind !== 'breached') return { status: { ...base, health: step.health }, events: [], memory: {} };
  const { breach, health } = step;
  const rolledBack: StatusUpdate = {
    ...base,
    phase: 'RolledBack',
    // The webhook stops giving new pods the recommended values: they get the template's again.
    observedGeneration: null,
    rolledBackGeneration: generation,
    health,
  };
  return {
    ...restore(workload, recommendation, pods),
    status: rolledBack,
    events: [{ action: 'RolledBack', reason: breach.kind, note: `health watch breached: ${breach.message}; resizing back in place to the template's values`, pod: breach.pod }],
  };
}
