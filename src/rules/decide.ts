// One decision per recommendation: pure over (workload, recommendation, policy, config, facts, now).
import type {
  Change,
  Decision,
  HoldReason,
  HorizontalPodAutoscaler,
  KerfConfig,
  PodDisruptionBudget,
  RightsizingPolicy,
  RightsizingRecommendation,
  Strategy,
  Workload,
} from '../model/types.js';
import { computeChanges } from './changes.js';
import {
  allowsDisruption,
  desiredReplicas,
  hpaFor,
  isSingleReplica,
  pdbsFor,
  rolloutIsSafe,
} from './guardrails.js';
import { configuredStrategy, effectiveStrategy, resizeRestartsContainer } from './strategy.js';
import { freeWindow, windowState } from './window-state.js';

/** What the node under a pod allows for in-place resizes (known to the in-cluster helper). */
export interface NodeFacts {
  name: string;
  /** N1: swap on the node, as the node reports it. */
  swap: boolean;
  /** N2: the node matches one of `unsupportedNodeSelectors`. */
  unsupported: boolean;
}

export interface DecisionFacts {
  /** The fleet-wide pause (`KERF_PAUSE`, action input `pause`). */
  fleetPaused?: boolean;
  /** PodDisruptionBudgets of the workload's namespace; decide() picks the matching ones. */
  pdbs?: readonly PodDisruptionBudget[];
  /** HorizontalPodAutoscalers of the workload's namespace. */
  hpas?: readonly HorizontalPodAutoscaler[];
  /** Nodes of the workload's pods; unknown in Git, so absent there. */
  nodes?: readonly NodeFacts[];
}

export interface DecisionInput {
  workload: Workload;
  recommendation: RightsizingRecommendation;
  /** The covering policy (see selectPolicy); undefined when none covers the workload. */
  policy: RightsizingPolicy | undefined;
  config: KerfConfig;
  facts: DecisionFacts;
  now: Date;
}

/** Z1, Z4: the holds above every strategy — a pause, then a freeze (the chart's, and the policy's when given). */
export function pauseOrFreeze(config: KerfConfig, policy: RightsizingPolicy | undefined, fleetPaused: boolean, now: Date): 'Paused' | 'FreezeWindow' | null {
  if (fleetPaused || config.pause) return 'Paused';
  const frozen =
    config.freeze.now ||
    windowState(config.freeze.windows, 'freeze', now).open ||
    (policy !== undefined && windowState(policy.apply.freezeWindows, 'freeze', now).open);
  return frozen ? 'FreezeWindow' : null;
}

function blockedOnNode(facts: DecisionFacts, changes: readonly Change[]): boolean {
  const nodes = facts.nodes ?? [];
  const changesMemory = changes.some((change) => change.field.endsWith('memory'));
  return nodes.some((node) => node.unsupported || (node.swap && changesMemory));
}

function guardrailHold(
  input: DecisionInput,
  strategy: Strategy,
  changes: readonly Change[],
): HoldReason | null {
  const { workload, facts } = input;
  if (strategy === 'in-place' && blockedOnNode(facts, changes)) return 'UnsupportedNode';
  const hpa = hpaFor(workload, facts.hpas ?? []);
  const replicas = desiredReplicas(workload, hpa);
  if (!isSingleReplica(workload, replicas, pdbsFor(workload, facts.pdbs ?? []))) return null;
  if (allowsDisruption(workload)) return null;
  const safe = strategy === 'in-place' ? !resizeRestartsContainer(workload, changes) : rolloutIsSafe(workload, replicas);
  return safe ? null : 'SingleReplicaUnsafe';
}

export function decide(input: DecisionInput): Decision {
  const { workload, recommendation, policy, config, facts, now } = input;
  const changes = computeChanges(workload, recommendation.containers);
  const decision: Decision = {
    target: { ...workload.ref },
    configuredStrategy: null,
    strategy: null,
    action: 'none',
    phase: 'Unmanaged',
    reason: null,
    nextWindow: null,
    changes,
  };
  if (!policy) return decision;
  // Nothing of an invalid policy is read (mode, strategy, windows): it only holds.
  if (policy.invalid !== undefined) return { ...decision, action: 'blocked', phase: 'Blocked', reason: 'InvalidPolicy', message: policy.invalid };

  const configured = configuredStrategy(workload, policy);
  const effective = effectiveStrategy({
    configured,
    workload,
    recommendation,
    changes,
    hasHpa: hpaFor(workload, facts.hpas ?? []) !== undefined,
  });
  Object.assign(decision, { configuredStrategy: configured, strategy: effective.strategy });
  if (changes.length === 0) return { ...decision, phase: 'UpToDate' };
  if (policy.mode === 'recommend') return { ...decision, phase: 'Recommended' };

  const hold: HoldReason | null =
    pauseOrFreeze(config, policy, facts.fleetPaused === true, now) ?? guardrailHold(input, effective.strategy, changes);
  if (hold) return { ...decision, action: 'blocked', phase: 'Blocked', reason: hold };

  if (effective.strategy === 'in-place') return { ...decision, action: 'in-place', phase: 'InPlace' };
  if (effective.strategy === 'rollout') {
    return { ...decision, action: 'pull-request', phase: 'Proposed', reason: effective.reason };
  }
  // Deferred (D1–D3, G6): proposed at once; outside a window the merge is held to the next one
  // that no freeze swallows (none open now: a freeze would have blocked above).
  if (windowState(policy.apply.maintenanceWindows, 'maintenance', now).open) return { ...decision, action: 'pull-request', phase: 'Proposed' };
  const next = freeWindow(policy.apply.maintenanceWindows, [config.freeze.windows, policy.apply.freezeWindows], now);
  return {
    ...decision,
    action: next ? 'pull-request' : 'wait',
    phase: 'Deferred',
    reason: 'OutsideMaintenanceWindow',
    nextWindow: next?.start.toISOString() ?? null,
    ...(next && { nextWindowSpan: { end: next.end.toISOString(), timeZone: next.timeZone } }),
  };
}
