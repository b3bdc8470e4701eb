// The health watch's verdict over wire pods (issue 6 item 4; OD2 and Z2 rely on it).
import { describe, expect, it } from 'vitest';
import { healthBreach, READINESS_GRACE_MS, watchOver } from '../../src/cluster/health.js';
import type { ContainerStatus, Pod } from '../../src/cluster/objects.js';

const APPLIED = new Date('2026-12-02T10:00:00Z');
const NOW = new Date('2026-12-02T10:10:00Z');

function aPod(name: string, options: { ready?: boolean; readySince?: string; status?: Partial<ContainerStatus>; phase?: string; terminating?: boolean } = {}): Pod {
  const { ready = true, readySince = '2026-12-02T09:00:00Z', phase = 'Running' } = options;
  return {
    metadata: { name, namespace: 'shop', creationTimestamp: '2026-12-02T09:00:00Z', ...(options.terminating && { deletionTimestamp: '2026-12-02T10:05:00Z' }) },
    spec: { containers: [{ name: 'app' }] },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readySince }],
      containerStatuses: [{ name: 'app', ready, restartCount: 0, state: { running: { startedAt: '2026-12-02T09:00:00Z' } }, ...options.status }],
    },
  };
}

const oomAt = (finishedAt: string): Partial<ContainerStatus> => ({ restartCount: 1, lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt } } });

describe('healthBreach', () => {
  it.each([
    ['healthy pods', [aPod('a'), aPod('b')], undefined],
    ['an OOMKilled container after apply', [aPod('a'), aPod('b', { status: oomAt('2026-12-02T10:03:00Z') })], { kind: 'OOMKilled', pod: 'b', container: 'app', message: 'container app of pod b was OOMKilled at 2026-12-02T10:03:00Z' }],
    ['an OOM kill from before the apply does not count', [aPod('a', { status: oomAt('2026-12-02T09:30:00Z') })], undefined],
    ['a container terminated by OOM right now', [aPod('a', { status: { state: { terminated: { reason: 'OOMKilled', finishedAt: '2026-12-02T10:09:00Z' } } } })], { kind: 'OOMKilled', pod: 'a' }],
    ['a restart-count increase (an Error exit after apply)', [aPod('a', { status: { restartCount: 3, lastState: { terminated: { reason: 'Error', exitCode: 1, finishedAt: '2026-12-02T10:01:00Z' } } } })], { kind: 'Restarted', message: 'container app of pod a restarted at 2026-12-02T10:01:00Z (Error, restart count 3)' }],
    ['lost readiness for longer than the grace', [aPod('a', { ready: false, readySince: '2026-12-02T10:05:00Z' })], { kind: 'NotReady', message: 'pod a has not been Ready since 2026-12-02T10:05:00.000Z' }],
    ['not Ready for less than the grace (a rolling restart starting a pod)', [aPod('a', { ready: false, readySince: '2026-12-02T10:09:00Z' })], undefined],
    ['a terminating pod is left out', [aPod('a', { terminating: true, status: oomAt('2026-12-02T10:03:00Z') })], undefined],
    ['OOMKilled is reported before a readiness loss of another pod', [aPod('a', { ready: false, readySince: '2026-12-02T10:01:00Z' }), aPod('b', { status: oomAt('2026-12-02T10:03:00Z') })], { kind: 'OOMKilled', pod: 'b' }],
  ])('%s', (_, pods, expected) => {
    const breach = healthBreach(pods, APPLIED, NOW);
    if (expected === undefined) expect(breach).toBeUndefined();
    else expect(breach).toMatchObject(expected);
  });

  it('readiness counts from the apply, not from a pod that was unready before it', () => {
    const unreadyBefore = [aPod('a', { ready: false, readySince: '2026-12-02T08:00:00Z' })];
    expect(healthBreach(unreadyBefore, APPLIED, new Date(APPLIED.getTime() + READINESS_GRACE_MS - 1))).toBeUndefined();
    expect(healthBreach(unreadyBefore, APPLIED, new Date(APPLIED.getTime() + READINESS_GRACE_MS))).toMatchObject({ kind: 'NotReady' });
  });
});

describe('watchOver', () => {
  it.each([
    ['2026-12-02T10:30:00.000Z', false],
    ['2026-12-02T10:10:00.000Z', true],
    [undefined, true],
  ])('until %s at 10:10 → over %s', (until, over) => {
    expect(watchOver(until, NOW)).toBe(over);
  });
});
