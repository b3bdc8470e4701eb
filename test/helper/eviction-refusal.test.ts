// Evictions as the API server refuses them, and the backoff after a refusal (issue 11 finding 4, 5).
import { describe, expect, it } from 'vitest';
import { ClusterError } from '../../src/cluster/cluster-port.js';
import { afterRefusal, evictionBackoffMs, readEvictionRefusal } from '../../src/helper/eviction-refusal.js';

const PDB = "Cannot evict pod as it would violate the pod's disruption budget.";
const NOW = new Date('2026-12-03T10:00:00Z');

describe('readEvictionRefusal', () => {
  it.each([
    ['429 with a DisruptionBudget cause → budget', new ClusterError('TooManyRequests', `evict: 429 ${PDB}`, 429, undefined, { serverMessage: PDB, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget db needs 3 healthy pods and has 3 currently' }] }), { kind: 'budget', message: `${PDB} The disruption budget db needs 3 healthy pods and has 3 currently` }],
    ['429 from API Priority and Fairness → throttled for Retry-After', new ClusterError('TooManyRequests', 'evict: 429', 429, undefined, { serverMessage: 'Too many requests, please try again later.', retryAfterSeconds: 4 }), { kind: 'throttled', retryAfterMs: 4000 }],
    ['429 storage initializing without Retry-After → throttled for 1 s', new ClusterError('TooManyRequests', 'evict: 429', 429, undefined, { serverMessage: 'storage is (re)initializing' }), { kind: 'throttled', retryAfterMs: 1000, message: 'storage is (re)initializing' }],
    ['500 several budgets → several-budgets', new ClusterError('Failed', 'evict: 500', 500, undefined, { serverMessage: 'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' }), { kind: 'several-budgets', message: expect.stringContaining('more than one PodDisruptionBudget') }],
  ])('%s', (_case, error, refusal) => {
    expect(readEvictionRefusal(error)).toMatchObject(refusal);
  });

  it('anything else is no refusal (the caller rethrows)', () => {
    expect(readEvictionRefusal(new ClusterError('Failed', 'evict: 500 etcd timeout', 500, undefined, { serverMessage: 'etcd timeout' }))).toBeUndefined();
    expect(readEvictionRefusal(new ClusterError('NotFound', 'evict: 404', 404))).toBeUndefined();
    expect(readEvictionRefusal(new Error('socket hang up'))).toBeUndefined();
  });
});

describe('eviction backoff, per workload', () => {
  it('doubles from 5 s per refusal in a row, capped at 5 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map(evictionBackoffMs)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('a block counts a failure; throttling waits what the server asked and counts none', () => {
    const blocked = afterRefusal(undefined, { kind: 'budget', message: PDB }, NOW);
    expect(blocked).toEqual({ failures: 1, notBefore: NOW.getTime() + 5_000 });
    expect(afterRefusal(blocked, { kind: 'several-budgets', message: 'x' }, NOW)).toEqual({ failures: 2, notBefore: NOW.getTime() + 10_000 });
    expect(afterRefusal(blocked, { kind: 'throttled', retryAfterMs: 2_000, message: 'x' }, NOW)).toEqual({ failures: 1, notBefore: NOW.getTime() + 2_000 });
  });
});
