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
