import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/cluster/cluster-port.js';
import { leaseStep } from '../../src/helper/leader-election.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

function lease(overrides: Partial<Lease> = {}): Lease {
  return { namespace: 'kerf-system', name: 'kerf-gitops-helper', holderIdentity: 'helper-b', leaseDurationSeconds: 15, renewTime: secondsAgo(5), leaseTransitions: 2, resourceVersion: '7', ...overrides };
}

function step(current: Lease | undefined, observedSecondsAgo: number) {
  return leaseStep({ lease: current, namespace: 'kerf-system', name: 'kerf-gitops-helper', identity: 'helper-a', durationSeconds: 15, now: NOW, observedAt: secondsAgo(observedSecondsAgo) });
}

describe('leaseStep', () => {
  it.each([
    ['no lease yet: create it, holding it', undefined, 0, 'create'],
    ['our own lease: renew it', lease({ holderIdentity: 'helper-a' }), 0, 'renew'],
    ['another holder, seen changing 5s ago (duration 15s): wait', lease(), 5, 'wait'],
    ['another holder, unchanged for 16s: take it over', lease(), 16, 'acquire'],
    ['a released lease (no holder): take it over at once', lease({ holderIdentity: '' }), 0, 'acquire'],
    ['the holder\'s own lease duration counts (60s), not ours', lease({ leaseDurationSeconds: 60 }), 30, 'wait'],
  ])('%s', (_name, current, observed, action) => {
    expect(step(current, observed).action).toBe(action);
  });

  it('a takeover records the new holder, times and one more transition', () => {
    const result = step(lease(), 16);
    expect(result).toEqual({
      action: 'acquire',
      lease: expect.objectContaining({ holderIdentity: 'helper-a', acquireTime: NOW, renewTime: NOW, leaseTransitions: 3, resourceVersion: '7', leaseDurationSeconds: 15 }),
    });
  });

  it('a renewal keeps the acquire time and moves the renew time', () => {
    const acquired = secondsAgo(100);
    const result = step(lease({ holderIdentity: 'helper-a', acquireTime: acquired }), 0);
    expect(result).toEqual({ action: 'renew', lease: expect.objectContaining({ acquireTime: acquired, renewTime: NOW, leaseTransitions: 2 }) });
  });
});
