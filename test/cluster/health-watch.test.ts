// The helper's health watch of in-place changes, pure (issue 6 item 4): start, end Healthy, roll
// back on a breach (Z2), stay rolled back until the spec changes; and OD2's view of a breach.
import { describe, expect, it } from 'vitest';
import { planHealthWatch, type HealthWatchInput } from '../../src/helper/health-watch.js';
import { watchedBreach } from '../../src/lifecycle/health-watch.js';
import { planResize } from '../../src/helper/resize-plan.js';
import { liveWorkload } from '../../src/lifecycle/live-workload.js';
import type { Pod } from '../../src/cluster/objects.js';
import { aConfig, aPolicy, aRecommendation } from '../support/builders.js';
import { aDeployment, aPod, aPodContainer } from '../helper/builders.js';

const NOW = new Date('2026-12-02T10:10:00Z');
const APPLIED = '2026-12-02T10:00:00.000Z';
const resized = aPodContainer({ resources: { requests: { cpu: '250m', memory: '384Mi' }, limits: { memory: '1Gi' } } });
const workload = liveWorkload(aDeployment('cart'))!;

const oomKilled = (pod: Pod): Pod => ({
  ...pod,
  status: { ...pod.status, containerStatuses: [{ name: 'app', restartCount: 1, lastState: { terminated: { reason: 'OOMKilled', finishedAt: '2026-12-02T10:05:00Z' } } }] },
});

function input(overrides: Partial<HealthWatchInput> = {}): HealthWatchInput {
  return {
    recommendation: aRecommendation(),
    status: { phase: 'Applied', strategy: 'in-place', appliedAt: APPLIED, health: { state: 'Watching', until: '2026-12-02T10:30:00.000Z' } },
    generation: 1,
    workload,
    policy: aPolicy({ healthWatch: { duration: '30m' } }),
    configured: 'in-place',
    pods: [aPod({ name: 'cart-abc-1', containers: [resized] }), aPod({ name: 'cart-abc-2', containers: [resized] })],
    now: NOW,
    ...overrides,
  };
}

describe('planHealthWatch', () => {
  it('starts the watch on an Applied change: until = appliedAt + healthWatch.duration', () => {
    const plan = planHealthWatch(input({ status: { phase: 'Applied', strategy: 'in-place', appliedAt: APPLIED } }));
    expect(plan?.status).toMatchObject({ phase: 'Applied', health: { state: 'Watching', until: '2026-12-02T10:30:00.000Z' } });
    expect(plan?.resize).toBeUndefined();
  });

  it('leaves a quiet watch to planResize, and ends it Healthy when its time is up', () => {
    expect(planHealthWatch(input())).toBeUndefined();
    expect(planHealthWatch(input({ now: new Date('2026-12-02T10:30:00Z') }))?.status).toMatchObject({ phase: 'Applied', health: { state: 'Healthy' } });
  });

  it('Z2: a breach rolls back: RolledBack, the webhook released, the breach in an Event, the first pod resized back', () => {
    const [first, second] = input().pods;
    const plan = planHealthWatch(input({ pods: [first!, oomKilled(second!)] }));
    expect(plan?.status).toEqual({
      phase: 'RolledBack',
      strategy: 'in-place',
      configuredStrategy: 'in-place',
      reason: null,
      nextWindow: null,
      observedGeneration: null,
      rolledBackGeneration: 1,
      health: { state: 'Breached', until: '2026-12-02T10:30:00.000Z', breach: 'container app of pod cart-abc-2 was OOMKilled at 2026-12-02T10:05:00Z' },
    });
    expect(plan?.events).toEqual([{ action: 'RolledBack', reason: 'OOMKilled', note: expect.stringContaining('resizing back in place'), pod: 'cart-abc-2' }]);
    expect(plan?.resize).toEqual({ pod: 'cart-abc-1', containers: [{ name: 'app', requests: { cpu: '500m', memory: '512Mi' }, limits: {} }] });
  });

  it('a rolled-back generation goes back pod by pod, waits for a resize in flight, then stays put (no flapping)', () => {
    const rolledBack = { phase: 'RolledBack', strategy: 'in-place', rolledBackGeneration: 1 };
    const back = aPod({ name: 'cart-abc-1' });
    expect(planHealthWatch(input({ status: rolledBack, pods: [back, aPod({ name: 'cart-abc-2', containers: [resized] })] }))?.resize?.pod).toBe('cart-abc-2');
    const inFlight = aPod({ name: 'cart-abc-1', generation: 2, observedGeneration: 1, containers: [aPodContainer()] });
    expect(planHealthWatch(input({ status: rolledBack, pods: [inFlight, aPod({ name: 'cart-abc-2', containers: [resized] })] }))).toEqual({ events: [], memory: {} });
    expect(planHealthWatch(input({ status: rolledBack, pods: [back, aPod({ name: 'cart-abc-2' })] }))).toEqual({ events: [], memory: {} });
    // A new spec (generation 2) is the resize loop's again.
    expect(planHealthWatch(input({ status: rolledBack, generation: 2 }))).toBeUndefined();
  });

  it('OD2: a breach under watch, or a rollback, stops pod replacement; a finished watch does not', () => {
    const pods = [oomKilled(aPod())];
    expect(watchedBreach(input().status, pods, NOW)).toMatchObject({ kind: 'OOMKilled' });
    expect(watchedBreach({ phase: 'RolledBack' }, [], NOW)).toBe('rolled-back');
    expect(watchedBreach({ ...input().status, health: { state: 'Healthy' } }, pods, NOW)).toBeUndefined();
    expect(watchedBreach(input().status, pods, new Date('2026-12-02T10:31:00Z'))).toBeUndefined();
  });
});

describe('planResize after a rollout the reconciler applied', () => {
  it('G5: pods at the values of an R3/N3 rollout are not claimed as Applied in place', () => {
    const recommendation = aRecommendation(undefined, { status: { phase: 'Applied', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'HPACoordination' } });
    const given = { recommendation, generation: 1, workload, policies: [aPolicy()], config: aConfig(), pods: input().pods, allPods: input().pods, workloadObject: aDeployment('cart', { replicas: input().pods.length }), nodes: new Map(), pdbs: [], hpas: [], memory: {}, now: NOW };
    expect(planResize(given)).toBeUndefined();
    expect(planResize({ ...given, recommendation: aRecommendation() })?.status).toMatchObject({ phase: 'Applied', strategy: 'in-place' });
  });
});
