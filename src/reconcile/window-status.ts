// The `kerf/window` commit status (G6): branch protection holds a kerf PR's merge until its
// changes may go in. Pure: the state follows from the decisions alone.
import type { Decision } from '../model/types.js';
import { NO_FREE_WINDOW, reasonWords } from '../plan/reason-text.js';
import { describeNextWindow } from '../plan/window-text.js';
import type { WindowStatus } from '../github/github.js';

/** GitHub refuses longer status descriptions. */
const MAX_DESCRIPTION = 140;
const ROLLOUT_DESCRIPTION = 'Rollout: may merge at any time';

/** `2026-12-05T00:00:00.000Z` → `2026-12-05 00:00 UTC`. */
export function formatWindowTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The status one decision asks for. */
export function decisionWindowStatus(decision: Decision): WindowStatus {
  if (decision.action === 'blocked') {
    return { state: 'failure', description: `Do not merge: ${decision.reason ? reasonWords(decision.reason) : 'blocked'}` };
  }
  if (decision.action === 'wait') {
    return { state: 'pending', description: `Waiting: ${NO_FREE_WINDOW.short}` };
  }
  const next = describeNextWindow(decision);
  if (decision.phase === 'Deferred' && next) {
    return { state: 'pending', description: `Waiting for the maintenance window ${next}` };
  }
  if (decision.strategy === 'deferred') {
    return { state: 'success', description: 'Inside a maintenance window, guardrails checked again: merge now' };
  }
  return { state: 'success', description: ROLLOUT_DESCRIPTION };
}

/**
 * The status of a PR: failure if any of its changes is blocked, else pending if any waits
 * (describing the earliest next window, when the status is next re-judged), else success.
 */
export function groupWindowStatus(decisions: readonly Decision[]): WindowStatus {
  const statuses = decisions.map(decisionWindowStatus);
  const failure = statuses.find((status) => status.state === 'failure');
  if (failure) return clip(failure);
  const waiting = decisions
    .filter((_, i) => statuses[i]?.state === 'pending')
    .sort((a, b) => (a.nextWindow ?? '\uffff').localeCompare(b.nextWindow ?? '\uffff'));
  const [first] = waiting;
  if (first) return clip(decisionWindowStatus(first));
  const [success] = statuses;
  return clip(success ?? { state: 'success', description: ROLLOUT_DESCRIPTION });
}

function clip(status: WindowStatus): WindowStatus {
  return status.description.length <= MAX_DESCRIPTION ? status : { ...status, description: `${status.description.slice(0, MAX_DESCRIPTION - 1)}…` };
}
