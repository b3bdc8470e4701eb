// The in-place resize of one recommendation's workload, one step at a time: pure over the
// workload, its pods and nodes, the rules core and `now`. The controller executes what it returns.
import type {
  Change,
  ContainerRecommendation,
  HorizontalPodAutoscaler,
  KerfConfig,
  PodDisruptionBudget,
  RightsizingPolicy,
  RightsizingRecommendation,
  Strategy,
  Workload,
} from '../model/types.js';
import { computeChanges } from '../rules/changes.js';
import { decide } from '../rules/decide.js';
import type { NodeFacts } from '../rules/decide.js';
import { parseDuration } from '../rules/duration.js';
import { selectPolicy } from '../rules/policy-match.js';
import { configuredStrategy, hasStickyFallback } from '../rules/strategy.js';
import type { ContainerResize } from '../cluster/cluster-port.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { podsRunValues } from '../lifecycle/pods-run-values.js';
import { containerSpecs } from '../model/workload.js';
import type { EventNote, StatusUpdate } from '../lifecycle/outcome.js';
import { latestInstant, resizeProgress } from '../lifecycle/pod-state.js';

/** What the controller remembers per workload between passes (lost on restart: the pods' status carries the rest). */
export interface ResizeMemory {
  /** The pod last patched and the generation the patch returned. */
  submitted?: { pod: string; generation: number };
  /** When a Deferred resize was first seen by this helper. */
  deferred?: { pod: string; generation: number; since: string };
}

export interface ResizeInput {
  recommendation: RightsizingRecommendation;
  /** metadata.generation of the recommendation. */
  generation: number;
  /** status.observedGeneration of the recommendation, as last written. */
  observedGeneration?: number;
  workload: Workload;
  /** Policies of the workload's namespace. */
  policies: readonly RightsizingPolicy[];
  config: KerfConfig;
  /** The workload's Running pods, terminating ones left out: what can be resized. */
  pods: readonly Pod[];
  /** Every pod of the workload, Pending and Terminating included: what Applied waits for. */
  allPods: readonly Pod[];
  /** The live workload object (replicas, its controller's status). */
  workloadObject: KubeObject;
  /** Facts of the nodes the pods run on, by node name. */
  nodes: ReadonlyMap<string, NodeFacts>;
  pdbs: readonly PodDisruptionBudget[];
  hpas: readonly HorizontalPodAutoscaler[];
  memory: ResizeMemory;
  now: Date;
}

export interface ResizePlan {
  status?: StatusUpdate;
  events: EventNote[];
  /** Patch this pod's resize subresource with these values. */
  resize?: { pod: string; containers: ContainerResize[] };
  memory: ResizeMemory;
}

const DEFAULT_FALLBACK_AFTER = '10m';

/** N4: an in-place resize cannot remove a limit, so removals are left out here (the webhook gives them to new pods). */
export function inPlaceRecommendation(recommendation: RightsizingRecommendation): RightsizingRecommendation {
  const keep = (values: Partial<Record<'cpu' | 'memory', string | null>>) =>
    Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));
  return {
    ...recommendation,
    containers: recommendation.containers.map((c) => ({ ...c, requests: keep(c.requests), limits: keep(c.limits) })),
  };
}

/** The workload as this pod runs it: the template's identity with the pod's own containers. */
export function asRunBy(workload: Workload, pod: Pod): Workload {
  return { ...workload, containers: containerSpecs(pod.spec) };
}

/**
 * The last changes computed per pod object, with what they were computed against. Every pass asks
 * again for every pod of every workload, and quantities parsed anew made most of the helper's
 * garbage; a cached pod is never changed in place (the informer replaces it), so a pod seen before
 * against the same values answers from here.
 */
const computed = new WeakMap<Pod, { against: string; changes: Change[] }>();

/** computeChanges of each pod as it runs, against `containers`, remembered per pod object. */
export function podChanges(workload: Workload, pods: readonly Pod[], containers: readonly ContainerRecommendation[]): { pod: Pod; changes: Change[] }[] {
  const against = JSON.stringify([workload.source.file, workload.ref, containers]);
  return pods.map((pod) => {
    const known = computed.get(pod);
    if (known?.against === against) return { pod, changes: known.changes };
    const changes = computeChanges(asRunBy(workload, pod), containers);
    computed.set(pod, { against, changes });
    return { pod, changes };
  });
}

export function resizeOf(runBy: Workload, changes: readonly Change[]): ContainerResize[] {
  const byName = new Map<string, ContainerResize>();
  for (const change of changes) {
    const init = runBy.containers.find((c) => c.name === change.container)?.init ?? false;
    const entry = byName.get(change.container) ?? { name: change.container, ...(init && { init }), requests: {}, limits: {} };
    const [group, resource] = change.field.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];
    if (change.to !== null) entry[group][resource] = change.to;
    byName.set(change.container, entry);
  }
  return [...byName.values()];
}

/** F1–F3: the whole change goes by rollout from now on; it sticks until the configured strategy changes. */
export function fallbackPlan(configured: Strategy, note: string, pod: string, memory: ResizeMemory): ResizePlan {
  return {
    // A fallback after Applied takes the apply back: the life cycle clears appliedAt and the health watch.
    status: { phase: 'Pending', strategy: 'rollout', configuredStrategy: configured, reason: 'Fallback', nextWindow: null },
    events: [{ action: 'Fallback', reason: 'Fallback', note, pod }],
    memory: { ...memory, submitted: undefined, deferred: undefined },
  };
}

function fallbackAfterMs(policy: RightsizingPolicy): number {
  return parseDuration(policy.apply.fallbackAfter || DEFAULT_FALLBACK_AFTER);
}

/**
 * When a resize was first Deferred, never early: the condition's time counts from the end of its
 * whole second (the API keeps whole seconds), what this helper saw first counts as is, and the
 * earlier of the two is closest to the truth.
 */
export function deferredSince(reported: string | undefined, remembered: string | undefined, now: Date): string {
  const estimates = [
    ...(reported !== undefined ? [latestInstant(reported)] : []),
    ...(remembered !== undefined ? [Date.parse(remembered)] : []),
  ].filter((at) => !Number.isNaN(at));
  return estimates.length > 0 ? new Date(Math.min(...estimates)).toISOString() : now.toISOString();
}

/** A resize submitted earlier, watched to its end whatever else now holds (Z2). */
function watchInFlight(input: ResizeInput, policy: RightsizingPolicy, configured: Strategy): ResizePlan | 'settled' | 'idle' {
  const { pods, memory, now } = input;
  const submitted = memory.submitted;
  const candidates = pods
    .map((pod) => ({ pod, progress: resizeProgress(pod, submitted?.pod === pod.metadata.name ? submitted.generation : undefined) }))
    .filter(({ progress }) => progress.state !== 'settled');
  const [inFlight] = candidates;
  if (!inFlight) {
    const finished = submitted && pods.some((pod) => pod.metadata.name === submitted.pod);
    return finished ? 'settled' : 'idle';
  }
  const { pod, progress } = inFlight;
  const name = pod.metadata.name;
  const generation = pod.metadata.generation ?? 1;
  const resizing: ResizePlan = {
    status: {
      phase: 'Resizing',
      strategy: 'in-place',
      configuredStrategy: configured,
      reason: null,
      nextWindow: null,
      ...(input.observedGeneration !== undefined && { observedGeneration: input.observedGeneration }),
    },
    events: [],
    memory,
  };
  switch (progress.state) {
    case 'infeasible':
      return fallbackPlan(configured, `resize of pod ${name} is Infeasible: ${progress.message}`, name, memory);
    case 'failed':
      return fallbackPlan(configured, `resize of pod ${name} failed: ${progress.message}`, name, memory);
    case 'deferred': {
      const remembered = memory.deferred?.pod === name && memory.deferred.generation === generation ? memory.deferred.since : undefined;
      const since = deferredSince(progress.since, remembered, now);
      if (now.getTime() - Date.parse(since) >= fallbackAfterMs(policy)) {
        return fallbackPlan(configured, `resize of pod ${name} Deferred since ${since}, longer than fallbackAfter ${policy.apply.fallbackAfter}: ${progress.message}`, name, memory);
      }
      return { ...resizing, memory: { ...memory, deferred: { pod: name, generation, since } } };
    }
    default:
      return resizing;
  }
}

/** A cluster policy with an error holds the workload (as in Git): nothing new starts, the error is on the Event. */
function invalidPolicyPlan(input: ResizeInput, configured: Strategy, error: string, events: EventNote[]): ResizePlan {
  const { status } = input.recommendation;
  const keepReleased = input.observedGeneration !== undefined && { observedGeneration: input.observedGeneration };
  if (status.phase !== 'Blocked' || status.reason !== 'InvalidPolicy') events.push({ action: 'Blocked', reason: 'InvalidPolicy', note: `in-place resize held: ${error}` });
  return { status: { phase: 'Blocked', strategy: 'in-place', configuredStrategy: configured, reason: 'InvalidPolicy', nextWindow: null, ...keepReleased }, events, memory: {} };
}

/**
 * The next step for one recommendation: watch the resize in flight, or decide (rules core) and
 * resize the next pod, or record why nothing moves. Undefined when the helper has no business
 * with it (no covering policy, recommend mode, a configured strategy other than in-place, or a
 * fallback that sticks). Throws the rules core's errors (an invalid strategy annotation, a
 * container the workload lacks) for the controller to log.
 */
export function planResize(input: ResizeInput): ResizePlan | undefined {
  const { recommendation, workload, config, pods, now } = input;
  const match = selectPolicy(workload, input.policies);
  if (match.kind !== 'covered' || (match.policy.mode !== 'auto-patch' && match.policy.invalid === undefined)) return undefined;
  const policy = match.policy;
  const configured = configuredStrategy(workload, policy);
  if (configured !== 'in-place' || hasStickyFallback(recommendation, configured)) return undefined;

  const events: EventNote[] = [];
  const watched = watchInFlight(input, policy, configured);
  if (typeof watched === 'object') return watched;
  const pod = input.memory.submitted?.pod;
  if (watched === 'settled' && pod) events.push({ action: 'Resized', reason: 'Resized', note: `pod ${pod} resized in place`, pod });
  // Nothing is in flight any more: what was remembered about it is done with.
  const memory: ResizeMemory = {};
  if (policy.invalid !== undefined) return invalidPolicyPlan(input, configured, policy.invalid, events);

  const wanted = inPlaceRecommendation(recommendation);
  const sorted = [...pods].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const behind = podChanges(workload, sorted, wanted.containers).filter(({ changes }) => changes.length > 0);
  const [next] = behind;
  if (!next) {
    // Pods at the values after a rollout (R3, N3) the reconciler proposed: it marks that Applied (G5) and watches it.
    if (recommendation.status.strategy === 'rollout') return undefined;
    // Applied means the pods run the values: a pod still Pending, Terminating or not yet created keeps it Resizing.
    // Once Applied, a pod added later (a scale-up, a replaced pod) gets the values from the webhook: no going back.
    const applied = recommendation.status.phase === 'Applied' && input.observedGeneration === input.generation;
    const progress = podsRunValues(input.workloadObject, input.allPods, wanted.containers);
    if (!progress.done && !applied) {
      const keep = input.observedGeneration !== undefined && { observedGeneration: input.observedGeneration };
      return { status: { phase: 'Resizing', strategy: 'in-place', configuredStrategy: configured, reason: null, nextWindow: null, ...keep }, events, memory };
    }
    return {
      status: {
        phase: 'Applied',
        strategy: 'in-place',
        configuredStrategy: configured,
        reason: null,
        nextWindow: null,
        observedGeneration: input.generation,
        appliedAt: now.toISOString(),
      },
      events,
      memory,
    };
  }

  const nodes = behind.flatMap(({ pod }) => {
    const facts = pod.spec.nodeName ? input.nodes.get(pod.spec.nodeName) : undefined;
    return facts ? [facts] : [];
  });
  const decision = decide({
    workload: asRunBy(workload, next.pod),
    recommendation: wanted,
    policy,
    config,
    facts: { nodes, pdbs: input.pdbs, hpas: input.hpas },
    now,
  });
  const base = { configuredStrategy: configured, nextWindow: null } as const;
  if (decision.strategy !== 'in-place') {
    // N3 (JVMMemory), R3 (HPACoordination): the reconciler proposes it as a rollout.
    return { status: { ...base, phase: 'Pending', strategy: 'rollout', reason: decision.reason }, events, memory };
  }
  const keepReleased = input.observedGeneration !== undefined && { observedGeneration: input.observedGeneration };
  if (decision.action === 'blocked') {
    const status: StatusUpdate = { ...base, phase: 'Blocked', strategy: 'in-place', reason: decision.reason, ...keepReleased };
    const already = recommendation.status.phase === 'Blocked' && recommendation.status.reason === decision.reason;
    if (!already) events.push({ action: 'Blocked', reason: decision.reason ?? 'Blocked', note: `in-place resize held: ${decision.reason}` });
    return { status, events, memory };
  }
  return {
    status: { ...base, phase: 'Resizing', strategy: 'in-place', reason: null, observedGeneration: input.generation, health: null },
    events,
    resize: { pod: next.pod.metadata.name, containers: resizeOf(asRunBy(workload, next.pod), next.changes) },
    memory,
  };
}
