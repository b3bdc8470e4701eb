import { describe, expect, it } from 'vitest';
import type { NodeFacts } from '../../src/rules/decide.js';
import { nodeFacts } from '../../src/lifecycle/pod-state.js';
import { deferredSince, planResize } from '../../src/helper/resize-plan.js';
import type { ResizeInput, ResizeMemory } from '../../src/helper/resize-plan.js';
import { liveWorkload } from '../../src/lifecycle/live-workload.js';
import type { Node, Pod } from '../../src/cluster/objects.js';
import { aConfig, aPolicy, aRecommendation } from '../support/builders.js';
import { aDeployment, aNode, aPod, aPodContainer } from './builders.js';

const NOW = new Date('2026-03-02T10:00:00Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

const memoryRestart = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
const resized = { requests: { cpu: '250m', memory: '384Mi' }, limits: { memory: '1Gi' } };
const deferred = (since?: string) => ({
  type: 'PodResizePending',
  status: 'True',
  reason: 'Deferred',
  message: 'Node didn\'t have enough capacity',
  ...(since && { lastTransitionTime: since }),
});

function input(overrides: Partial<ResizeInput> & { replicas?: number; annotations?: Record<string, string>; nodeList?: Node[] } = {}): ResizeInput {
  const { replicas = 3, annotations = {}, nodeList = [aNode('node-a')], ...rest } = overrides;
  const config = rest.config ?? aConfig();
  const nodes = new Map<string, NodeFacts>(nodeList.map((node) => [node.metadata.name, nodeFacts(node, config.unsupportedNodeSelectors)]));
  const workloadObject = aDeployment('cart', { replicas, annotations });
  const workload = liveWorkload(workloadObject);
  if (!workload) throw new Error('builder gave no workload');
  const pods = rest.pods ?? [aPod({ name: 'cart-abc-1' }), aPod({ name: 'cart-abc-2' })];
  return {
    allPods: pods,
    recommendation: aRecommendation(),
    generation: 2,
    workload,
    policies: [aPolicy()],
    config,
    pods,
    workloadObject,
    nodes,
    pdbs: [],
    hpas: [],
    memory: {},
    now: NOW,
    ...rest,
  };
}

describe('planResize: what moves', () => {
  it.each([
    ['S2: pods behind the recommendation: the first is resized, cpu and memory only', input()],
    ['SR2: a single replica whose resize restarts no container goes in', input({ replicas: 1, pods: [aPod()] })],
    ['SR5: allow-disruption accepts a restarting resize of a single replica', input({
      replicas: 1,
      annotations: { 'kerf.getkerf.dev/allow-disruption': 'true' },
      pods: [aPod({ containers: [aPodContainer({ resizePolicy: memoryRestart })] })],
    })],
    ['N3: a JVM container with RestartContainer for memory is resized in place', input({
      pods: [aPod({ containers: [aPodContainer({ image: 'eclipse-temurin:21', resizePolicy: memoryRestart })] })],
    })],
  ])('%s', (_name, given) => {
    const plan = planResize(given);
    expect(plan?.resize).toEqual({
      pod: given.pods[0]?.metadata.name,
      containers: [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' }, limits: {} }],
    });
    expect(plan?.status).toMatchObject({ phase: 'Resizing', strategy: 'in-place', configuredStrategy: 'in-place', reason: null, observedGeneration: 2 });
  });

  it('N1: swap on the node leaves a CPU-only change alone', () => {
    const plan = planResize(input({
      recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]),
      nodeList: [aNode('node-a', { swap: true })],
    }));
    expect(plan?.resize?.containers).toEqual([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]);
  });

  it('N4: a limit removal is left out of the resize; the rest goes in', () => {
    const plan = planResize(input({
      recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: { memory: null } }]),
    }));
    expect(plan?.resize?.containers).toEqual([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]);
  });

  it('N4: a change that only removes a limit needs no resize: Applied, released to the webhook', () => {
    const plan = planResize(input({ replicas: 2, recommendation: aRecommendation([{ name: 'app', requests: {}, limits: { memory: null } }]) }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toMatchObject({ phase: 'Applied', observedGeneration: 2, appliedAt: NOW.toISOString() });
  });

  it('S2: every pod at the recommended values: Applied', () => {
    const plan = planResize(input({ replicas: 1, pods: [aPod({ containers: [aPodContainer({ resources: resized })] })] }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toMatchObject({ phase: 'Applied', strategy: 'in-place', reason: null });
  });

  const atValues = (name: string, extra: Parameters<typeof aPod>[0] = {}) => aPod({ name, containers: [aPodContainer({ resources: resized })], ...extra });
  const terminating = (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: '2026-03-02T10:00:30Z' } });
  const pendingPod = (pod: Pod): Pod => ({ ...pod, status: { ...pod.status, phase: 'Pending' } });
  it.each([
    ['a replica not yet created (2 of 3 pods exist)', [atValues('cart-abc-1'), atValues('cart-abc-2')], '2 of 3 pods exist'],
    ['a replica still Pending', [atValues('cart-abc-1'), atValues('cart-abc-2'), pendingPod(atValues('cart-abc-3'))], 'pod cart-abc-3 is Pending'],
    ['a replica Terminating', [atValues('cart-abc-1'), atValues('cart-abc-2'), terminating(atValues('cart-abc-3'))], 'pod cart-abc-3 is terminating'],
    ['a replica not reporting the values', [atValues('cart-abc-1'), atValues('cart-abc-2'), atValues('cart-abc-3', { actual: { app: { requests: { cpu: '500m', memory: '512Mi' } } } })], 'does not report'],
  ])('issue 11 finding 1 (Applied before any pod runs): %s keeps it Resizing, with no appliedAt and no resize', (_case, allPods, _why) => {
    const running = allPods.filter((pod) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp);
    const plan = planResize(input({ replicas: 3, pods: running, allPods }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toMatchObject({ phase: 'Resizing', strategy: 'in-place' });
    expect(plan?.status).not.toHaveProperty('appliedAt');
  });
});

describe('planResize: what holds', () => {
  it.each([
    ['SR3: a single replica whose resize restarts a container', 'SingleReplicaUnsafe', input({
      replicas: 1,
      pods: [aPod({ containers: [aPodContainer({ resizePolicy: memoryRestart })] })],
    })],
    ['N1: swap on a pod\'s node blocks a memory change', 'UnsupportedNode', input({ nodeList: [aNode('node-a', { swap: true })] })],
    ['N2: a node matching unsupportedNodeSelectors blocks every change', 'UnsupportedNode', input({
      recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]),
      nodeList: [aNode('node-a', { labels: { 'kerf.getkerf.dev/cpu-manager-policy': 'static' } })],
      config: aConfig({ unsupportedNodeSelectors: [{ matchLabels: { 'kerf.getkerf.dev/cpu-manager-policy': 'static' } }] }),
    })],
    ['Z1: an open freeze starts no resize', 'FreezeWindow', input({ config: aConfig({ freeze: { now: true, windows: [] } }) })],
    ['Z4: a cluster pause starts no resize', 'Paused', input({ config: aConfig({ pause: true }) })],
  ])('%s', (_name, reason, given) => {
    const plan = planResize(given);
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toMatchObject({ phase: 'Blocked', strategy: 'in-place', reason });
    expect(plan?.events).toEqual([expect.objectContaining({ action: 'Blocked', reason })]);
  });

  it('Z1: a hold already recorded records no second event', () => {
    const given = input({ config: aConfig({ freeze: { now: true, windows: [] } }) });
    given.recommendation.status = { phase: 'Blocked', reason: 'FreezeWindow' };
    expect(planResize(given)?.events).toEqual([]);
  });

  it('Z1: a blocked change keeps the generation already released, so the webhook keeps the applied values', () => {
    const plan = planResize(input({ observedGeneration: 1, config: aConfig({ freeze: { now: true, windows: [] } }) }));
    expect(plan?.status?.observedGeneration).toBe(1);
  });

  it('N3: JVM memory without RestartContainer falls to rollout (JVMMemory)', () => {
    const plan = planResize(input({ pods: [aPod({ containers: [aPodContainer({ image: 'eclipse-temurin:21' })] })] }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toEqual({ phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'JVMMemory', nextWindow: null });
  });

  it.each([
    ['F3: a fallback sticks while in-place stays configured', input({
      recommendation: aRecommendation(undefined, { status: { strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback' } }),
    })],
    ['S1: a workload annotated rollout is the reconciler\'s', input({ annotations: { 'kerf.getkerf.dev/strategy': 'rollout' } })],
    ['mode recommend changes nothing', input({ policies: [aPolicy({}, { mode: 'recommend' })] })],
    ['no covering policy: nothing to do', input({ policies: [] })],
  ])('%s', (_name, given) => {
    expect(planResize(given)).toBeUndefined();
  });
});

describe('planResize: a resize in flight', () => {
  const inFlight = (pod: Pod, memory: ResizeMemory = { submitted: { pod: pod.metadata.name, generation: 2 } }, extra: Partial<ResizeInput> = {}) =>
    planResize(input({ pods: [pod, aPod({ name: 'cart-abc-2' })], memory, observedGeneration: 2, ...extra }));

  it.each([
    ['F1: Infeasible falls back at once', [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible', message: 'Node didn\'t have enough capacity' }]],
    ['F1: PodResizeInProgress with reason Error falls back at once', [{ type: 'PodResizeInProgress', status: 'True', reason: 'Error', message: 'runtime failed' }]],
    ['F2: Deferred longer than fallbackAfter (from the condition\'s transition time) falls back', [deferred(minutesAgo(11))]],
  ])('%s', (_name, conditions) => {
    const plan = inFlight(aPod({ generation: 2, observedGeneration: 1, conditions }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toEqual({ phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback', nextWindow: null });
    expect(plan?.events).toEqual([expect.objectContaining({ action: 'Fallback', reason: 'Fallback', pod: 'cart-abc-1' })]);
    expect(plan?.memory).toEqual({});
  });

  it('F2: Deferred for less than fallbackAfter waits, remembering since when', () => {
    const plan = inFlight(aPod({ generation: 2, observedGeneration: 1, conditions: [deferred(minutesAgo(9))] }));
    expect(plan?.status?.phase).toBe('Resizing');
    expect(plan?.resize).toBeUndefined();
    expect(plan?.memory.deferred).toEqual({ pod: 'cart-abc-1', generation: 2, since: minutesAgo(9) });
  });

  it.each([
    ['F2: the policy\'s fallbackAfter counts (1s)', '1s', minutesAgo(1), 'Pending'],
    ['F2: the default is 10m', '', minutesAgo(9), 'Resizing'],
  ])('%s', (_name, fallbackAfter, since, phase) => {
    const plan = inFlight(aPod({ generation: 2, observedGeneration: 1, conditions: [deferred(since)] }), undefined, { policies: [aPolicy({ fallbackAfter })] });
    expect(plan?.status?.phase).toBe(phase);
  });

  it('F2: without a transition time, the first time the helper saw it Deferred counts', () => {
    const pod = aPod({ generation: 2, observedGeneration: 1, conditions: [deferred()] });
    const first = inFlight(pod);
    expect(first?.memory.deferred?.since).toBe(NOW.toISOString());
    const remembered = { submitted: { pod: pod.metadata.name, generation: 2 }, deferred: { pod: pod.metadata.name, generation: 2, since: minutesAgo(10) } };
    expect(inFlight(pod, remembered)?.status?.reason).toBe('Fallback');
  });

  it.each([
    ['F2: a whole-second condition time counts from the end of its second (never early)', '2026-03-02T09:59:59Z', undefined, '2026-03-02T09:59:59.999Z'],
    ['F2: a condition time with fractions counts as is', '2026-03-02T09:59:59.250Z', undefined, '2026-03-02T09:59:59.250Z'],
    ['F2: what the helper saw first counts when earlier than the rounded condition time', '2026-03-02T09:59:59Z', '2026-03-02T09:59:59.400Z', '2026-03-02T09:59:59.400Z'],
    ['F2: without either, now', undefined, undefined, NOW.toISOString()],
  ])('%s', (_name, reported, remembered, expected) => {
    expect(deferredSince(reported, remembered, NOW)).toBe(expected);
  });

  it('Z2: a freeze does not stop watching a submitted resize to its end', () => {
    const plan = inFlight(
      aPod({ generation: 2, observedGeneration: 1, conditions: [{ type: 'PodResizeInProgress', status: 'True' }] }),
      undefined,
      { config: aConfig({ freeze: { now: true, windows: [] } }) },
    );
    expect(plan?.status).toMatchObject({ phase: 'Resizing', reason: null });
    expect(plan?.events).toEqual([]);
    expect(plan?.resize).toBeUndefined();
  });

  it('Z2: once the submitted resize ends during a freeze, the rest holds', () => {
    const plan = inFlight(aPod({ generation: 2, observedGeneration: 2, containers: [aPodContainer({ resources: resized })] }), undefined, {
      config: aConfig({ freeze: { now: true, windows: [] } }),
    });
    expect(plan?.events.map((e) => e.action)).toEqual(['Resized', 'Blocked']);
    expect(plan?.status).toMatchObject({ phase: 'Blocked', reason: 'FreezeWindow' });
    expect(plan?.resize).toBeUndefined();
  });

  it('S2: one pod at a time: the next is resized only after the first settles (observedGeneration reached)', () => {
    const waiting = inFlight(aPod({ generation: 2, observedGeneration: 1, containers: [aPodContainer({ resources: resized })] }));
    expect(waiting?.resize).toBeUndefined();
    expect(waiting?.status?.phase).toBe('Resizing');
    const done = inFlight(aPod({ generation: 2, observedGeneration: 2, containers: [aPodContainer({ resources: resized })] }));
    expect(done?.events).toEqual([expect.objectContaining({ action: 'Resized', pod: 'cart-abc-1' })]);
    expect(done?.resize?.pod).toBe('cart-abc-2');
    expect(done?.memory).toEqual({});
  });

  it('S2: a cache that has not seen the patched pod yet does not start a second resize', () => {
    const stale = aPod({ generation: 1, observedGeneration: 1 });
    const plan = inFlight(stale);
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status?.phase).toBe('Resizing');
  });

  it.each([
    ['S2 (1.33, no observedGeneration): actual resources within rounding settle it', { requests: { cpu: '251m', memory: '384Mi' }, limits: { memory: '1Gi' } }, 'Resized'],
    ['S2 (1.33, no observedGeneration): actual resources still short keep it in flight', { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } }, undefined],
  ])('%s', (_name, actual, event) => {
    const pod = aPod({ generation: 2, observedGeneration: null, containers: [aPodContainer({ resources: resized })], actual: { app: actual } });
    expect(inFlight(pod)?.events[0]?.action).toBe(event);
  });
});

describe('planResize: an invalid cluster policy', () => {
  it.each([
    ['with its strategy', aPolicy({ strategy: 'in-place' }, { invalid: 'spec.selectr: unknown field' })],
    ['in recommend mode as written', aPolicy({}, { mode: 'recommend', invalid: 'spec.mode: must be one of auto-patch, recommend' })],
  ])('holds the workload (Blocked, InvalidPolicy) %s: no resize, the error on the Event', (_name, policy) => {
    const plan = planResize(input({ policies: [policy] }));
    expect(plan?.resize).toBeUndefined();
    expect(plan?.status).toMatchObject({ phase: 'Blocked', reason: 'InvalidPolicy', strategy: 'in-place' });
    expect(plan?.events).toEqual([expect.objectContaining({ action: 'Blocked', reason: 'InvalidPolicy', note: expect.stringContaining(policy.invalid as string) })]);
  });
});
