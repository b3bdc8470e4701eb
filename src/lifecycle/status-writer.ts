// The one status writer of the helper and the reconciler: a write the life cycle does not allow
// this writer is not sent, the patch carries the resourceVersion its status was computed from (a
// writer that read a stale status gets 409 and reads again instead of silently interleaving), and
// an Event is recorded only when the write moved the phase or reason.
import { ClusterError } from '../cluster/cluster-port.js';
import type { ClusterPort } from '../cluster/cluster-port.js';
import type { KubeObject } from '../cluster/objects.js';
import type { EventNote } from './outcome.js';
import { statusChanges, workloadEvent } from './outcome.js';
import { mayWrite, withCleared } from './state-machine.js';
import type { Writer } from './state-machine.js';

export interface StatusWrite {
  writer: Writer;
  namespace: string;
  name: string;
  /** The recommendation's resourceVersion `current` was read at; the write is conditional on it. */
  resourceVersion?: string;
  /** The status as read. */
  current: Record<string, unknown>;
  status: Record<string, unknown>;
  /** Recorded on the workload when the phase or reason moves. */
  event?: EventNote;
  workload?: KubeObject;
  /** Fields derived from the status to write (the helper's condition), added after the change check. */
  decorate?: (status: Record<string, unknown>) => Record<string, unknown>;
}

export type WriteOutcome =
  | { kind: 'written'; status: Record<string, unknown>; resourceVersion?: string }
  | { kind: 'unchanged' }
  | { kind: 'not-owner'; why: string }
  /** The status changed since it was read: nothing written; the next pass or run reads it again. */
  | { kind: 'conflict'; message: string };

export async function writeStatus(port: ClusterPort, write: StatusWrite, identity: string, now: Date): Promise<WriteOutcome> {
  const verdict = mayWrite(write.writer, write.current, write.status);
  if (!verdict.allowed) return { kind: 'not-owner', why: verdict.why };
  const status = withCleared(write.current, write.status);
  if (!statusChanges(write.current, status)) return { kind: 'unchanged' };
  let resourceVersion: string | undefined;
  try {
    resourceVersion = await port.patchRecommendationStatus(write.namespace, write.name, { ...status, ...write.decorate?.(status) }, write.resourceVersion);
  } catch (error) {
    if (error instanceof ClusterError && error.code === 'Conflict') return { kind: 'conflict', message: error.message };
    throw error;
  }
  const moved = ['phase', 'reason'].some((key) => key in status && (write.current[key] ?? null) !== (status[key] ?? null));
  if (moved && write.event && write.workload) await port.createEvent(workloadEvent(write.workload, write.event, identity, now));
  return { kind: 'written', status, ...(resourceVersion !== undefined && { resourceVersion }) };
}
