import { describe, expect, it } from 'vitest';
import type { StatusUpdate } from '../../src/lifecycle/outcome.js';
import { statusChanges, withInPlaceCondition } from '../../src/lifecycle/outcome.js';

const NOW = new Date('2026-03-02T10:00:00.123Z');
const applied: StatusUpdate = { phase: 'Applied', strategy: 'in-place', configuredStrategy: 'in-place', reason: null, nextWindow: null, observedGeneration: 3, appliedAt: NOW.toISOString() };

describe('status writes', () => {
  it.each([
    ['S2: the same status again is no write (appliedAt aside)', { ...applied, appliedAt: 'earlier' }, false],
    ['Z1: a new hold reason is a write', { phase: 'Blocked', strategy: 'in-place', configuredStrategy: 'in-place', reason: 'FreezeWindow' }, true],
    ['a missing observedGeneration differs from one written', { ...applied, observedGeneration: undefined }, true],
  ])('%s', (_name, current, changes) => {
    expect(statusChanges(current as Record<string, unknown>, applied)).toBe(changes);
  });

  it('F3: a fallback condition keeps other writers\' conditions and says why', () => {
    const other = { type: 'Proposed', status: 'True', reason: 'PullRequest', message: '#12', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const fallback: StatusUpdate = { phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback', nextWindow: null };
    expect(withInPlaceCondition([other], fallback, 4, NOW)).toEqual([
      other,
      { type: 'InPlaceApplied', status: 'False', reason: 'Fallback', message: 'phase Pending, reason Fallback', lastTransitionTime: '2026-03-02T10:00:00Z', observedGeneration: 4 },
    ]);
  });

  it('S2: the transition time moves only when the condition\'s state does', () => {
    const earlier = withInPlaceCondition([], applied, 3, new Date('2026-03-01T00:00:00Z'));
    expect(withInPlaceCondition(earlier, applied, 3, NOW)[0]?.lastTransitionTime).toBe('2026-03-01T00:00:00Z');
    const blocked: StatusUpdate = { phase: 'Blocked', strategy: 'in-place', configuredStrategy: 'in-place', reason: 'FreezeWindow', nextWindow: null };
    expect(withInPlaceCondition(earlier, blocked, 3, NOW)[0]).toMatchObject({ status: 'False', reason: 'FreezeWindow', lastTransitionTime: '2026-03-02T10:00:00Z' });
  });
});
