// What a pure helper step asks the controller to write: the recommendation's status and an Event.
import type { Phase, Reason, Strategy } from '../model/types.js';

export type EventAction = 'Resized' | 'Blocked' | 'Fallback' | 'Evicted';

/** The recommendation status fields the helper owns (DESIGN "Objects"). */
export interface StatusUpdate {
  phase: Phase;
  strategy: Strategy;
  configuredStrategy: Strategy;
  reason: Reason | null;
  nextWindow: null;
  /** The recommendation generation whose values were released to pods in place (the webhook reads it). */
  observedGeneration?: number;
  appliedAt?: string;
}

export interface EventNote {
  action: EventAction;
  /** The rule-book reason, or the action itself where the rule book names none (a completed resize). */
  reason: string;
  note: string;
  /** The pod the event is about, if any. */
  pod?: string;
}

/** Whether writing `next` would change what the status already says. */
export function statusChanges(current: Record<string, unknown> | undefined, next: StatusUpdate): boolean {
  const now = current ?? {};
  return (Object.keys(next) as (keyof StatusUpdate)[])
    .filter((key) => key !== 'appliedAt')
    .some((key) => (now[key] ?? null) !== (next[key] ?? null));
}

export const IN_PLACE_CONDITION = 'InPlaceApplied';

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * The recommendation's conditions with the helper's own (InPlaceApplied) set from the status it
 * writes; others' conditions are kept, and the transition time moves only when the state does.
 */
export function withInPlaceCondition(current: unknown, status: StatusUpdate, generation: number, now: Date): Condition[] {
  const conditions = (Array.isArray(current) ? current : []) as Condition[];
  const previous = conditions.find((c) => c.type === IN_PLACE_CONDITION);
  const state = status.phase === 'Applied' ? 'True' : 'False';
  const reason = status.reason ?? status.phase;
  const next: Condition = {
    type: IN_PLACE_CONDITION,
    status: state,
    reason,
    message: status.phase === 'Applied' ? 'every pod runs the recommended values' : `phase ${status.phase}${status.reason ? `, reason ${status.reason}` : ''}`,
    lastTransitionTime: previous?.status === state ? previous.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    observedGeneration: generation,
  };
  return [...conditions.filter((c) => c.type !== IN_PLACE_CONDITION), next];
}
