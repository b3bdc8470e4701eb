// What a pure helper or reconciler step asks to write: the recommendation status and an Event (the life cycle's vocabulary).
import type { Phase, Reason, Strategy } from '../model/types.js';
import type { EventRecord } from '../cluster/cluster-port.js';
import type { HealthStatus } from '../cluster/health.js';
import type { KubeObject } from '../cluster/objects.js';

/** DESIGN "The helper": the Event's action is the verb. */
export type EventAction = 'Proposed' | 'Resized' | 'Blocked' | 'Fallback' | 'Evicted' | 'Applied' | 'RolledBack';

/** The recommendation status fields the helper owns (DESIGN "Objects"). */
export interface StatusUpdate {
  phase: Phase;
  strategy: Strategy;
  configuredStrategy: Strategy;
  reason: Reason | null;
  nextWindow: null;
  /** The recommendation generation whose values were released to pods in place (the webhook reads it); null takes them back. */
  observedGeneration?: number | null;
  /** Set by Applied; null clears what an earlier stage left. */
  appliedAt?: string | null;
  /** For people: why the phase is what it is (the server's words for a refusal); null clears it. */
  message?: string | null;
  /** null ends a finished apply's watch when a new change starts. */
  health?: HealthStatus | null;
  /** The generation a breach rolled back: not applied again until the spec changes. */
  rolledBackGeneration?: number;
}

export interface EventNote {
  action: EventAction;
  /** The rule-book reason, or the action itself where the rule book names none (a completed resize). */
  reason: string;
  note: string;
  /** The pod the event is about, if any. */
  pod?: string;
}

/** Whether writing `next` would change what the status already says (appliedAt aside: it only moves with the phase). */
export function statusChanges(current: Record<string, unknown> | undefined, next: object): boolean {
  const now = current ?? {};
  return Object.entries(next)
    .filter(([key]) => key !== 'appliedAt')
    .some(([key, value]) => JSON.stringify(now[key] ?? null) !== JSON.stringify(value ?? null));
}

const WARNINGS: ReadonlySet<EventAction> = new Set(['Fallback', 'RolledBack']);

/** The Event about a workload, as the helper and the reconciler both record it. */
export function workloadEvent(workload: KubeObject, event: EventNote, reportingInstance: string, eventTime: Date): EventRecord {
  const namespace = workload.metadata.namespace ?? 'default';
  const warning =
    WARNINGS.has(event.action) || event.reason === 'PodDisruptionBudget' || event.reason === 'HelmMappingMismatch' || (event.action === 'Applied' && event.reason === 'OutsideMaintenanceWindow');
  return {
    regarding: {
      apiVersion: 'apps/v1',
      kind: workload.kind ?? '',
      namespace,
      name: workload.metadata.name,
      ...(workload.metadata.uid && { uid: workload.metadata.uid }),
    },
    ...(event.pod && { related: { apiVersion: 'v1', kind: 'Pod', namespace, name: event.pod } }),
    action: event.action,
    reason: event.reason,
    note: event.note,
    type: warning ? 'Warning' : 'Normal',
    reportingInstance,
    eventTime,
  };
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
