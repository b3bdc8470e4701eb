// The changes a run holds back, each with why and until when: blocked and waiting decisions,
// deferred PRs whose merge waits for a window (D1), and proposals a PR limit or a human's
// takeover kept out of Git. They drive the summary, the `held-back` output and warnings.
import type { Decision } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import { heldReason } from '../plan/reason-text.js';
import type { PullRequestOutcome, ReconcileResult } from '../reconcile/change-set.js';

export interface HeldBackChange {
  decision: Decision;
  reason: string;
  /** Deferred changes only: when the maintenance window opens (RFC 3339). */
  nextWindow: string | null;
  /** The PR of the change's branch, when there is one. */
  pullRequest: { number: number; url: string } | null;
}

function why(decision: Decision, outcome: PullRequestOutcome | undefined): string | null {
  switch (decision.action) {
    case 'blocked':
    case 'wait':
      return heldReason(decision) ?? 'Blocked';
    case 'pull-request':
      if (outcome?.action === 'held') return outcome.reason ?? 'held';
      return decision.phase === 'Deferred' ? 'OutsideMaintenanceWindow: the merge waits for the window (kerf/window pending)' : null;
    default:
      return null;
  }
}

export function heldBackChanges(result: ReconcileResult): HeldBackChange[] {
  // A closed PR may name a target that another branch now carries; the live outcome is the one that counts.
  const outcomes = new Map(result.pullRequests.filter((pr) => pr.action !== 'closed').flatMap((pr) => pr.targets.map((target) => [target, pr] as const)));
  return result.plan.decisions.flatMap((decision): HeldBackChange[] => {
    if (decision.changes.length === 0) return [];
    const outcome = outcomes.get(workloadKey(decision.target));
    const reason = why(decision, outcome);
    if (reason === null) return [];
    const pullRequest = outcome && outcome.number !== null && outcome.url !== null ? { number: outcome.number, url: outcome.url } : null;
    return [{ decision, reason, nextWindow: decision.nextWindow, pullRequest }];
  });
}
