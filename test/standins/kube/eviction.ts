// The eviction subresource's PodDisruptionBudget check, computed live from the budget's spec and
// the Ready pods it selects (the real apiserver reads the disruption controller's status).
import { ApiError, internalError } from './api-error.js';
import type { KubeObject } from './object-store.js';
import { isPodReady } from './pods.js';
import type { Pod } from './pods.js';
import { matchesLabelSelector } from './selectors.js';
import type { LabelSelector } from './selectors.js';

export const PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

interface BudgetSpec {
  selector?: LabelSelector | null;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export interface BudgetStatus {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptionsAllowed: number;
}

/** Integer or percentage (rounded up, as intstr.GetScaledValueFromIntOrPercent does here). */
function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value);
}

function selects(budget: KubeObject, pod: Pod): boolean {
  // policy/v1: an empty selector selects every pod of the namespace, a missing one none.
  return matchesLabelSelector((budget.spec as BudgetSpec | undefined)?.selector, pod.metadata.labels);
}

function isActive(pod: Pod): boolean {
  return !['Succeeded', 'Failed'].includes(pod.status?.phase ?? '');
}

export function budgetStatus(budget: KubeObject, pods: Pod[]): BudgetStatus {
  const spec = (budget.spec ?? {}) as BudgetSpec;
  const selected = pods.filter((pod) => isActive(pod) && selects(budget, pod));
  const expectedPods = selected.length;
  const currentHealthy = selected.filter(isPodReady).length;
  let desiredHealthy = 0;
  if (spec.minAvailable !== undefined) desiredHealthy = scaled(spec.minAvailable, expectedPods);
  else if (spec.maxUnavailable !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(spec.maxUnavailable, expectedPods));
  return { currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}

export type EvictionDecision = { kind: 'allowed' } | { kind: 'refused'; error: ApiError };

export function evictionDecision(pod: Pod, budgets: KubeObject[], pods: Pod[]): EvictionDecision {
  // Pods that are not running, or already going, cannot disrupt anything; the apiserver deletes them directly.
  if (['Pending', 'Succeeded', 'Failed'].includes(pod.status?.phase ?? 'Pending') || pod.metadata.deletionTimestamp) return { kind: 'allowed' };
  const matching = budgets.filter((budget) => selects(budget, pod));
  if (matching.length === 0) return { kind: 'allowed' };
  if (matching.length > 1) {
    return { kind: 'refused', error: internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.') };
  }
  const budget = matching[0]!;
  const status = budgetStatus(budget, pods);
  const policy = (budget.spec as BudgetSpec).unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
  if (!isPodReady(pod) && (policy === 'AlwaysAllow' || status.currentHealthy >= status.desiredHealthy)) return { kind: 'allowed' };
  if (status.disruptionsAllowed > 0) return { kind: 'allowed' };
  return {
    kind: 'refused',
    error: new ApiError(429, 'TooManyRequests', PDB_VIOLATION, {
      causes: [{
        reason: 'DisruptionBudget',
        message: `The disruption budget ${budget.metadata.name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`,
      }],
    }),
  };
}
