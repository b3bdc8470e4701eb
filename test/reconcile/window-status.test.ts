import { describe, expect, it } from 'vitest';
import { decisionWindowStatus, groupWindowStatus } from '../../src/reconcile/window-status.js';
import { aDecision } from '../support/decisions.js';

const deferredOutside = aDecision({ strategy: 'deferred', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z', nextWindowSpan: { end: '2026-12-05T03:00:00.000Z', timeZone: 'Europe/Berlin' } });

describe('kerf/window status per decision', () => {
  it.each([
    ['G6: a plain rollout may merge at once', aDecision(), 'success', 'Rollout: may merge at any time'],
    ['D1: a deferred change outside its window waits for the next one', deferredOutside, 'pending', 'Waiting for the maintenance window Sat 5 Dec 01:00–04:00 Europe/Berlin (00:00 UTC)'],
    ['D2: a deferred change inside a window may merge', aDecision({ strategy: 'deferred' }), 'success', 'Inside a maintenance window, guardrails checked again: merge now'],
    ['D3: no valid maintenance window at all', aDecision({ strategy: 'deferred', action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }), 'pending', 'Waiting: no maintenance window is free (none is valid, or a freeze covers every one)'],
    ['Z1: frozen', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' }), 'failure', 'Do not merge: a freeze window is open'],
    ['Z4: paused', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'Paused' }), 'failure', 'Do not merge: kerf is paused for this cluster or the whole fleet'],
    ['SR5: blocked by a guardrail', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' }), 'failure', 'Do not merge: the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down'],
  ] as const)('%s', (_, decision, state, description) => {
    expect(decisionWindowStatus(decision)).toEqual({ state, description });
  });
});

describe('kerf/window status of a PR', () => {
  it('failure beats pending beats success; pending names the earliest next window', () => {
    const later = { ...deferredOutside, nextWindow: '2026-12-12T00:00:00.000Z' };
    // No rule id in what people read.
    expect(decisionWindowStatus(deferredOutside).description).not.toMatch(/\b[A-Z]{1,2}\d\b/);
    expect(groupWindowStatus([aDecision(), later, deferredOutside]).description).toBe('Waiting for the maintenance window Sat 5 Dec 01:00–04:00 Europe/Berlin (00:00 UTC)');
    expect(groupWindowStatus([deferredOutside, aDecision({ action: 'blocked', reason: 'FreezeWindow' })]).state).toBe('failure');
    expect(groupWindowStatus([aDecision(), aDecision({ strategy: 'deferred' })]).state).toBe('success');
  });
});
