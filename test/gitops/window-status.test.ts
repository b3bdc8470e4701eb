import { describe, expect, it } from 'vitest';
import { decisionWindowStatus, groupWindowStatus } from '../../src/gitops/window-status.js';
import { aDecision } from './decisions.js';

const deferredOutside = aDecision({ strategy: 'deferred', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z' });

describe('kerf/window status per decision', () => {
  it.each([
    ['G6: a plain rollout may merge at once', aDecision(), 'success', 'Rollout: may merge at any time'],
    ['D1: a deferred change outside its window waits for the next one', deferredOutside, 'pending', 'Waiting for the maintenance window at 2026-12-05 00:00 UTC (D1)'],
    ['D2: a deferred change inside a window may merge', aDecision({ strategy: 'deferred' }), 'success', 'Inside a maintenance window: merge now (D2)'],
    ['D3: no valid maintenance window at all', aDecision({ strategy: 'deferred', action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }), 'pending', 'Waiting: no valid maintenance window is configured (D3)'],
    ['Z1: frozen', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' }), 'failure', 'Do not merge: a freeze window is open (Z1)'],
    ['Z4: paused', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'Paused' }), 'failure', 'Do not merge: kerf is paused (Z4)'],
    ['SR5: blocked by a guardrail', aDecision({ action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' }), 'failure', 'Do not merge: blocked: SingleReplicaUnsafe'],
  ] as const)('%s', (_, decision, state, description) => {
    expect(decisionWindowStatus(decision)).toEqual({ state, description });
  });
});

describe('kerf/window status of a PR', () => {
  it('failure beats pending beats success; pending names the earliest next window', () => {
    const later = { ...deferredOutside, nextWindow: '2026-12-12T00:00:00.000Z' };
    expect(groupWindowStatus([aDecision(), later, deferredOutside]).description).toBe('Waiting for the maintenance window at 2026-12-05 00:00 UTC (D1)');
    expect(groupWindowStatus([deferredOutside, aDecision({ action: 'blocked', reason: 'FreezeWindow' })]).state).toBe('failure');
    expect(groupWindowStatus([aDecision(), aDecision({ strategy: 'deferred' })]).state).toBe('success');
  });
});
