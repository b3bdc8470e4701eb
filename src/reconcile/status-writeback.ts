// The reconciler's statuses after a reconcile: each recommendation's status says where its change
// stands (Proposed with its PR, Deferred with the next window, Blocked with its reason, Z1
// included), with the Event of the move; the life cycle's writer (src/lifecycle) writes them.
import type { Change, ContainerRecommendation, Decision, ResourceName } from '../model/types.js';
import { isObject } from '../util/json.js';
import type { EventNote } from '../lifecycle/outcome.js';
import { describeChanges } from '../plan/plan-table.js';
import type { PullRequestOutcome } from './change-set.js';
import { NO_FREE_WINDOW } from '../plan/reason-text.js';
import { describeNextWindow } from '../plan/window-text.js';

/** The values before kerf's change, per container, as `status.previous` records them (null: was not set). */
export type PreviousValues = ContainerRecommendation[];

/** What a rollback goes back to: the `from` side of the proposed changes. */
export function previousValues(changes: readonly Change[]): PreviousValues {
  const byContainer = new Map<string, ContainerRecommendation>();
  for (const change of changes) {
    const entry = byContainer.get(change.container) ?? { name: change.container, requests: {}, limits: {} };
    const [group, resource] = change.field.split('.') as ['requests' | 'limits', ResourceName];
    entry[group][resource] = change.from;
    byContainer.set(change.container, entry);
  }
  return [...byContainer.values()];
}

/** `status.previous` read back; entries that are not containers are skipped. */
export function readPreviousValues(value: unknown): PreviousValues {
  const values = (map: unknown) =>
    Object.fromEntries(
      Object.entries(isObject(map) ? map : {}).filter(([key, v]) => (key === 'cpu' || key === 'memory') && (v === null || typeof v === 'string' || typeof v === 'number')).map(([key, v]) => [key, v === null ? null : String(v)]),
    );
  return (Array.isArray(value) ? value : [])
    .filter(isObject)
    .filter((entry) => typeof entry.name === 'string')
    .map((entry) => ({ name: entry.name as string, requests: values(entry.requests), limits: values(entry.limits) }));
}

/** A `{number, url}` of the status (pullRequest, rollbackPullRequest) as written, or null. */
export function readPullRequest(value: unknown): { number: number; url: string } | null {
  return isObject(value) && typeof value.number === 'number' && typeof value.url === 'string' ? { number: value.number, url: value.url } : null;
}

/** The PR the run left for a target (opened, updated, unchanged or held with one open). */
export function pullRequestFor(outcomes: readonly PullRequestOutcome[], target: string): { number: number; url: string } | null {
  const outcome = outcomes.find((o) => o.number !== null && o.url !== null && o.action !== 'closed' && o.targets.includes(target));
  return outcome ? { number: outcome.number as number, url: outcome.url as string } : null;
}

/**
 * The status a reconciler decision asks for; `previous` is recorded while a change is proposed.
 * What an earlier change left (applied at, its health watch, its revert PR) is cleared.
 */
export function decisionStatus(decision: Decision, pullRequest: { number: number; url: string } | null): Record<string, unknown> {
  return {
    phase: decision.phase,
    strategy: decision.strategy,
    configuredStrategy: decision.configuredStrategy,
    reason: decision.reason,
    nextWindow: decision.nextWindow,
    pullRequest,
    appliedAt: null,
    health: null,
    rollbackPullRequest: null,
    // An invalid policy's error, so `kubectl get` shows why the workload is held.
    ...(decision.message !== undefined && { message: decision.message }),
    ...(decision.action === 'pull-request' && { previous: previousValues(decision.changes) }),
  };
}

/** The Event of a decision's status (D1: a deferred change records `Blocked` with OutsideMaintenanceWindow). */
export function decisionEvent(decision: Decision, pullRequest: { number: number } | null): EventNote | undefined {
  const pr = pullRequest ? `pull request #${pullRequest.number}` : 'no pull request yet';
  switch (decision.phase) {
    case 'Proposed':
      return { action: 'Proposed', reason: decision.reason ?? 'Proposed', note: `${pr} proposes ${describeChanges(decision.changes)}` };
    case 'Deferred':
      return {
        action: 'Blocked',
        reason: 'OutsideMaintenanceWindow',
        note: decision.nextWindow ? `held until the maintenance window ${describeNextWindow(decision)}; ${pr} waits for it` : `held: ${NO_FREE_WINDOW.says}`,
      };
    case 'Blocked':
      return { action: 'Blocked', reason: decision.reason ?? 'Blocked', note: `change held: ${decision.reason ?? 'blocked'}${decision.message ? ` (${decision.message})` : ''}${pullRequest ? `; ${pr} must not be merged` : ''}` };
    default:
      return undefined;
  }
}
