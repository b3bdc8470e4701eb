// The status life cycle's table: who may move a recommendation from which stage to which, and
// what each move clears of the stage before (README "Status: one life cycle, one owner per stage").
import { describe, expect, it } from 'vitest';
import { mayWrite, ownerOf, withCleared } from '../../src/lifecycle/state-machine.js';
import type { Writer } from '../../src/lifecycle/state-machine.js';

const pr = { number: 7, url: 'https://github.example/pull/7' };
const status = {
  none: {},
  helperPending: { phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'HPACoordination' },
  proposed: { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'HPACoordination', pullRequest: pr },
  resizingRollout: { phase: 'Resizing', strategy: 'rollout', configuredStrategy: 'rollout', pullRequest: pr },
  evictionBlock: { phase: 'Blocked', strategy: 'rollout', configuredStrategy: 'rollout', reason: 'PodDisruptionBudget', pullRequest: pr, message: 'refused' },
  appliedInPlace: { phase: 'Applied', strategy: 'in-place', configuredStrategy: 'in-place', appliedAt: '2026-12-03T10:00:00Z', health: { state: 'Watching', until: '2026-12-03T10:30:00Z' } },
  resizingInPlace: { phase: 'Resizing', strategy: 'in-place', configuredStrategy: 'in-place' },
} satisfies Record<string, Record<string, unknown>>;

describe('ownerOf: one owner per stage', () => {
  it.each([
    ['none', undefined],
    ['helperPending', 'reconciler'],
    ['proposed', 'reconciler'],
    ['resizingRollout', 'reconciler'],
    ['evictionBlock', 'helper'],
    ['appliedInPlace', 'helper'],
    ['resizingInPlace', 'helper'],
  ] as const)('%s → %s', (name, owner) => {
    expect(ownerOf(status[name])).toBe(owner);
  });
});

describe('mayWrite: a writer never writes a phase it does not own', () => {
  it.each([
    // writer, from, to, allowed
    ['helper', 'none', { phase: 'Resizing', strategy: 'in-place' }, true],
    ['helper', 'resizingInPlace', { phase: 'Pending', strategy: 'rollout', reason: 'Fallback' }, true],
    ['helper', 'appliedInPlace', { phase: 'Pending', strategy: 'rollout', reason: 'HPACoordination' }, true],
    // issue 11 finding 2: the helper wrote Pending over the reconciler's Proposed on every pass.
    ['helper', 'proposed', { phase: 'Pending', strategy: 'rollout', reason: 'HPACoordination' }, false],
    ['helper', 'proposed', { phase: 'Resizing', strategy: 'in-place' }, true],
    ['helper', 'resizingRollout', { phase: 'Blocked', strategy: 'rollout', reason: 'PodDisruptionBudget' }, true],
    ['helper', 'evictionBlock', { phase: 'Resizing', strategy: 'rollout', reason: null }, true],
    ['helper', 'resizingRollout', { phase: 'Applied', strategy: 'rollout' }, false],
    ['reconciler', 'helperPending', { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'in-place' }, true],
    ['reconciler', 'resizingInPlace', { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'in-place' }, false],
    ['reconciler', 'appliedInPlace', { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'rollout' }, true],
    ['reconciler', 'evictionBlock', { phase: 'Applied' }, true],
    ['reconciler', 'evictionBlock', { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'rollout' }, false],
  ] as const)('%s: %s → %j: %s', (writer, from, next, allowed) => {
    expect(mayWrite(writer as Writer, status[from], next).allowed).toBe(allowed);
  });
});

describe('withCleared: every transition clears what the stage before left', () => {
  it('issue 11 finding 1: a fallback after Applied (422 QoS change → Pending) clears appliedAt and the health watch', () => {
    const next = withCleared(status.appliedInPlace, { phase: 'Pending', strategy: 'rollout', reason: 'Fallback' });
    expect(next).toMatchObject({ appliedAt: null, health: null });
  });

  it.each([
    ['Proposed keeps nothing of an apply', status.appliedInPlace, { phase: 'Proposed', strategy: 'rollout', pullRequest: pr }, { appliedAt: null, health: null }],
    ['Pending ends a proposal: its PR is cleared', status.proposed, { phase: 'Pending', strategy: 'rollout' }, { pullRequest: null }],
    ['a rollout Resizing keeps its PR, drops the block message', status.evictionBlock, { phase: 'Resizing', strategy: 'rollout', reason: null }, { message: null }],
    ['in-place Resizing drops an earlier PR', status.proposed, { phase: 'Resizing', strategy: 'in-place' }, { pullRequest: null }],
  ])('%s', (_case, current, next, cleared) => {
    expect(withCleared(current, next)).toMatchObject(cleared);
  });

  it('a rollout Resizing keeps its PR; a write that does not move the phase clears nothing', () => {
    expect(withCleared(status.evictionBlock, { phase: 'Resizing', strategy: 'rollout' })).not.toHaveProperty('pullRequest');
    expect(withCleared(status.appliedInPlace, { health: { state: 'Healthy' } })).toEqual({ health: { state: 'Healthy' } });
  });
});
