// The `kerf/window` commit status (G6): branch protection holds a kerf PR's merge until its
// changes may go in. Pure: the state follows from the decisions alone.
import type { Decision } from '../model/types.js';

export const WINDOW_STATUS_CONTEXT = 'kerf/window';

export type WindowStatusState = 'success' | 'pending' | 'failure';

export interface WindowStatus {
  state: WindowStatusState;
  description: string;
}

/** GitHub refuses longer status descriptions. */
const MAX_DESCRIPTION = 140;

/** `2026-12-05T00:00:00.000Z` → `2026-12-05 00:00 UTC`. */
export function formatWindowTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The status one decision asks for. */
export function decisionWindowStatus(decision: Decision): WindowStatus {
  if (decision.action === 'blocked') {
    const why =
      decision.reason === 'FreezeWindow' ? 'a freeze window is open (Z1)'
      : decision.reason === 'Paused' ? 'kerf is paused (Z4)'
      : `blocked: ${decision.reason ?? 'unknown reason'}`;
    return { state: 'failure', description: `Do not merge: ${why}` };
  }
  if (decision.action === 'wait') {
    return { state: 'pending', description: 'Waiting: no valid maintenance window is configured (D3)' };
  }
  if (decision.phase === 'Deferred' && decision.nextWindow) {
    return { state: 'pending', description: `Waiting for the maintenance window at ${formatWindowTime(decision.nextWindow)} (D1)` };
  }
  if (decision.strategy === 'deferred') {
    return { state: 'success', description: 'Inside a maintenance window: merge now (D2)' };
  }
  return { state: 'success', description: 'Rollout: may merge at any time' };
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
  return clip(success ?? { state: 'success', description: 'Rollout: may merge at any time' });
}

function clip(status: WindowStatus): WindowStatus {
  return status.description.length <= MAX_DESCRIPTION ? status : { ...status, description: `${status.description.slice(0, MAX_DESCRIPTION - 1)}…` };
}
