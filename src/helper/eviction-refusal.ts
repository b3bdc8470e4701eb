// How the API server refuses an eviction, read from its answer: a PodDisruptionBudget (429 whose
// causes name DisruptionBudget), several budgets over the pod (500, which the eviction subresource
// does not support), or throttling (any other 429: API Priority and Fairness, storage initializing)
// that is no block and says when to come back. Refused evictions back off per workload. Pure.
import { ClusterError } from '../cluster/cluster-port.js';

export type EvictionRefusal =
  | { kind: 'budget'; message: string }
  | { kind: 'several-budgets'; message: string }
  | { kind: 'throttled'; retryAfterMs: number; message: string };

const SEVERAL_BUDGETS = /more than one PodDisruptionBudget/;
/** When a 429 names no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/** The refusal an eviction error stands for; undefined for anything else (the caller rethrows). */
export function readEvictionRefusal(error: unknown): EvictionRefusal | undefined {
  if (!(error instanceof ClusterError)) return undefined;
  const message = error.details.serverMessage ?? error.message;
  if (error.status === 429) {
    if (error.details.causes?.some((cause) => cause.reason === 'DisruptionBudget')) {
      const cause = error.details.causes.find((c) => c.reason === 'DisruptionBudget')?.message;
      return { kind: 'budget', message: cause ? `${message} ${cause}` : message };
    }
    const seconds = error.details.retryAfterSeconds;
    return { kind: 'throttled', retryAfterMs: seconds !== undefined ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS, message };
  }
  if (error.status === 500 && SEVERAL_BUDGETS.test(message)) return { kind: 'several-budgets', message };
  return undefined;
}

export const EVICTION_BACKOFF_BASE_MS = 5_000;
export const EVICTION_BACKOFF_CAP_MS = 5 * 60_000;

/** The wait after the `failures`-th refusal in a row: 5 s, doubling, at most 5 minutes. */
export function evictionBackoffMs(failures: number): number {
  return Math.min(EVICTION_BACKOFF_CAP_MS, EVICTION_BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

/** Per workload: refusals in a row and when the next eviction may be tried (ms since the epoch). */
export interface EvictionBackoff {
  failures: number;
  notBefore: number;
}

/** The backoff after a refusal: a block doubles the wait, throttling waits what the server asked. */
export function afterRefusal(previous: EvictionBackoff | undefined, refusal: EvictionRefusal, now: Date): EvictionBackoff {
  if (refusal.kind === 'throttled') return { failures: previous?.failures ?? 0, notBefore: now.getTime() + refusal.retryAfterMs };
  const failures = (previous?.failures ?? 0) + 1;
  return { failures, notBefore: now.getTime() + evictionBackoffMs(failures) };
}
