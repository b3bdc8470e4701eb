import { describe, expect, it } from 'vitest';
import type { Decision, WindowSpec } from '../../src/model/types.js';
import { decide, type DecisionInput } from '../../src/rules/decide.js';
import { aConfig, aContainer, aPolicy, aRecommendation, aWorkload } from '../support/builders.js';

// Wednesday 2026-12-02 10:00 UTC.
const now = new Date('2026-12-02T10:00:00Z');
const openNow: WindowSpec = { schedule: '0 9 * * 3', duration: '2h' };
const saturdayBerlin: WindowSpec = { schedule: '0 1 * * 6', duration: '4h', timeZone: 'Europe/Berlin' };
const invalidWindow: WindowSpec = { schedule: '0 1 * *', duration: '4h' };
const restartOnResize = [
  { resourceName: 'cpu', restartPolicy: 'RestartContainer' },
  { resourceName: 'memory', restartPolicy: 'RestartContainer' },
];

function input(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    workload: aWorkload(),
    recommendation: aRecommendation(),
    policy: aPolicy(),
    config: aConfig(),
    facts: {},
    now,
    ...overrides,
  };
}

type Row = [string, Partial<DecisionInput>, Partial<Decision>];

const rows: Row[] = [
  // Strategy
  ['S1: the policy strategy applies', { policy: aPolicy({ strategy: 'rollout' }) }, { configuredStrategy: 'rollout', strategy: 'rollout', action: 'pull-request', phase: 'Proposed', reason: null }],
  ['S1: the workload annotation overrides the policy', { workload: aWorkload({ annotations: { 'kerf.getkerf.dev/strategy': 'rollout' } }) }, { configuredStrategy: 'rollout', action: 'pull-request' }],
  ['S1: the default strategy is in-place', {}, { configuredStrategy: 'in-place', strategy: 'in-place', action: 'in-place', phase: 'InPlace', reason: null }],
  ['S2: in-place changes are left to the helper, never a PR', {}, { action: 'in-place', phase: 'InPlace' }],
  ['S3: a rollout change becomes a pull request', { policy: aPolicy({ strategy: 'rollout' }) }, { action: 'pull-request', phase: 'Proposed' }],
  ['S4: a deferred change is held until a maintenance window opens', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin] }) }, { configuredStrategy: 'deferred', strategy: 'deferred', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }],
  ['S4: in a window a deferred change is applied as a rollout (a mergeable PR)', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [openNow] }) }, { strategy: 'deferred', action: 'pull-request', phase: 'Proposed' }],
  // Fallback
  ['F3: a fallback recorded for the configured strategy sticks', { recommendation: aRecommendation(undefined, { status: { strategy: 'rollout', configuredStrategy: 'in-place' } }) }, { configuredStrategy: 'in-place', strategy: 'rollout', reason: 'Fallback', action: 'pull-request', phase: 'Proposed' }],
  ['F3: a fallback recorded under another configured strategy no longer applies', { recommendation: aRecommendation(undefined, { status: { strategy: 'rollout', configuredStrategy: 'deferred' } }) }, { strategy: 'in-place', reason: null, action: 'in-place' }],
  ['F3: a rollout recorded for a JVM is not a sticky fallback', { recommendation: aRecommendation(undefined, { status: { strategy: 'rollout', configuredStrategy: 'in-place', reason: 'JVMMemory' } }) }, { strategy: 'in-place', action: 'in-place' }],
  // HPA, JVM/Python, limit removal
  ['R3: a workload with an HPA goes by rollout', { facts: { hpas: [{ ref: { namespace: 'shop', kind: 'HorizontalPodAutoscaler', name: 'cart' }, target: { kind: 'Deployment', name: 'cart' }, minReplicas: 2 }] } }, { configuredStrategy: 'in-place', strategy: 'rollout', reason: 'HPACoordination', action: 'pull-request' }],
  ['R3: an HPA of another workload does not count', { facts: { hpas: [{ ref: { namespace: 'shop', kind: 'HorizontalPodAutoscaler', name: 'x' }, target: { kind: 'Deployment', name: 'other' } }] } }, { strategy: 'in-place' }],
  ['N3: JVM memory without RestartContainer goes by rollout (image)', { workload: aWorkload({ containers: [aContainer({ image: 'eclipse-temurin:21-jre' })] }) }, { strategy: 'rollout', reason: 'JVMMemory', action: 'pull-request' }],
  ['N3: JVM detected by JAVA_TOOL_OPTIONS', { workload: aWorkload({ containers: [aContainer({ envNames: ['JAVA_TOOL_OPTIONS'] })] }) }, { strategy: 'rollout', reason: 'JVMMemory' }],
  ['N3: Python memory without RestartContainer goes by rollout', { workload: aWorkload({ containers: [aContainer({ image: 'docker.io/library/python:3.12-slim' })] }) }, { strategy: 'rollout', reason: 'JVMMemory' }],
  ['N3: JVM memory with RestartContainer for memory stays in-place', { workload: aWorkload({ containers: [aContainer({ image: 'amazoncorretto:21', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] })] }) }, { strategy: 'in-place', action: 'in-place' }],
  ['N3: a JVM CPU-only change stays in-place', { workload: aWorkload({ containers: [aContainer({ image: 'openjdk:17' })] }), recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]) }, { strategy: 'in-place' }],
  ['N3: the runtime annotation wins over the image', { workload: aWorkload({ annotations: { 'kerf.getkerf.dev/runtime': 'other' }, containers: [aContainer({ image: 'openjdk:17' })] }) }, { strategy: 'in-place' }],
  ['N3: the runtime annotation marks a JVM the image hides', { workload: aWorkload({ annotations: { 'kerf.getkerf.dev/runtime': 'jvm' } }) }, { strategy: 'rollout', reason: 'JVMMemory' }],
  ['N4: a limit removal stays in-place (the webhook gives it to new pods)', { recommendation: aRecommendation([{ name: 'app', requests: {}, limits: { memory: null } }]) }, { action: 'in-place', changes: [{ container: 'app', field: 'limits.memory', from: '1Gi', to: null, file: 'apps/cart.yaml' }] }],
  ['N1: swap on a node blocks an in-place memory change', { facts: { nodes: [{ name: 'n1', swap: true, unsupported: false }] } }, { action: 'blocked', phase: 'Blocked', reason: 'UnsupportedNode' }],
  ['N1: swap does not block an in-place CPU change', { facts: { nodes: [{ name: 'n1', swap: true, unsupported: false }] }, recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]) }, { action: 'in-place' }],
  ['N2: an unsupported node blocks every in-place change', { facts: { nodes: [{ name: 'n1', swap: false, unsupported: true }] }, recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]) }, { action: 'blocked', reason: 'UnsupportedNode' }],
  ['N2: node facts do not matter to a rollout', { policy: aPolicy({ strategy: 'rollout' }), facts: { nodes: [{ name: 'n1', swap: true, unsupported: true }] } }, { action: 'pull-request' }],
  // Single replicas
  ['SR1: absent replicas mean one replica', { workload: aWorkload({ replicas: undefined, updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR1: a PDB that allows no disruption makes a workload single-replica', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'cart' }, selector: { matchLabels: { app: 'cart' } }, minAvailable: '100%' }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR1: a PDB with maxUnavailable 0 makes a DaemonSet single-replica', { workload: aWorkload({ kind: 'DaemonSet', replicas: undefined }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'cart' }, selector: { matchLabels: { app: 'cart' } }, maxUnavailable: 0 }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR1: a PDB of another namespace does not count', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'other', kind: 'PodDisruptionBudget', name: 'cart' }, selector: { matchLabels: { app: 'cart' } }, maxUnavailable: 0 }] } }, { action: 'pull-request' }],
  ['SR1: a PDB whose selector does not match the pod labels does not count', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'x' }, selector: { matchLabels: { app: 'other' } }, maxUnavailable: 0 }] } }, { action: 'pull-request' }],
  ['SR1: a PDB minAvailable 2 of 3 replicas allows a disruption', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'cart' }, selector: { matchLabels: { app: 'cart' } }, minAvailable: 2 }] } }, { action: 'pull-request' }],
  ['SR1: a PDB minAvailable 67% of 3 replicas rounds up to 3 and allows none', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'cart' }, selector: { matchLabels: { app: 'cart' } }, minAvailable: '67%' }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR1: a live disruptionsAllowed of 0 counts', { workload: aWorkload({ updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'cart' }, selector: {}, maxUnavailable: 1, disruptionsAllowed: 0 }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR1: an HPA minReplicas of 1 makes a single replica', { workload: aWorkload({ replicas: 3, updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }), facts: { hpas: [{ ref: { namespace: 'shop', kind: 'HorizontalPodAutoscaler', name: 'cart' }, target: { kind: 'Deployment', name: 'cart' } }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR2: an in-place resize that restarts nothing is safe for one replica', { workload: aWorkload({ replicas: 1 }) }, { action: 'in-place', reason: null }],
  ['SR3: an in-place resize that restarts a container is blocked for one replica', { workload: aWorkload({ replicas: 1, containers: [aContainer({ resizePolicy: restartOnResize })] }) }, { action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR3: a restart on resize is fine with several replicas', { workload: aWorkload({ replicas: 2, containers: [aContainer({ resizePolicy: restartOnResize })] }) }, { action: 'in-place' }],
  ['SR4: a default Deployment rollout (25%/25%) is safe for one replica', { workload: aWorkload({ replicas: 1 }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'pull-request', reason: null }],
  ['SR4: maxSurge 1 / maxUnavailable 0 is safe', { workload: aWorkload({ replicas: 1, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'pull-request' }],
  ['SR4: maxSurge 0 / maxUnavailable 1 is unsafe', { workload: aWorkload({ replicas: 1, updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: maxSurge 1 / maxUnavailable 1 is unsafe', { workload: aWorkload({ replicas: 1, updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: maxSurge 2 with maxUnavailable 25% of 4 (1) is unsafe', { workload: aWorkload({ replicas: 4, updateStrategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' } } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'x' }, selector: {}, minAvailable: 4 }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: maxSurge 0% and maxUnavailable 0% resolve to unavailable 1 (unsafe)', { workload: aWorkload({ replicas: 1, updateStrategy: { rollingUpdate: { maxSurge: '0%', maxUnavailable: '0%' } } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: maxUnavailable 50% of one replica rounds down to 0 (safe)', { workload: aWorkload({ replicas: 1, updateStrategy: { rollingUpdate: { maxSurge: '10%', maxUnavailable: '50%' } } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'pull-request' }],
  ['SR4: a Recreate Deployment never qualifies', { workload: aWorkload({ replicas: 1, updateStrategy: { type: 'Recreate' } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: a StatefulSet never qualifies', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1 }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: a DaemonSet with maxSurge 1 / maxUnavailable 0 qualifies', { workload: aWorkload({ kind: 'DaemonSet', replicas: undefined, updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'x' }, selector: {}, maxUnavailable: 0 }] } }, { action: 'pull-request' }],
  ['SR4: a DaemonSet by default (surge 0, unavailable 1) does not qualify', { workload: aWorkload({ kind: 'DaemonSet', replicas: undefined }), policy: aPolicy({ strategy: 'rollout' }), facts: { pdbs: [{ ref: { namespace: 'shop', kind: 'PodDisruptionBudget', name: 'x' }, selector: {}, maxUnavailable: 0 }] } }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR4: a deferred change is judged as a rollout', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1 }), policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [openNow] }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['SR5: allow-disruption accepts a short disruption', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1, annotations: { 'kerf.getkerf.dev/allow-disruption': 'true' } }), policy: aPolicy({ strategy: 'rollout' }) }, { action: 'pull-request', reason: null }],
  ['SR5: allow-disruption other than "true" does not', { workload: aWorkload({ replicas: 1, containers: [aContainer({ resizePolicy: restartOnResize })], annotations: { 'kerf.getkerf.dev/allow-disruption': 'yes' } }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  // Deferred
  ['D1: a deferred change outside a window is proposed, its merge held to the next window', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin] }) }, { action: 'pull-request', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z' }],
  ['D2: inside a window a deferred change is proposed and mergeable', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin, openNow] }) }, { action: 'pull-request', phase: 'Proposed', reason: null, nextWindow: null }],
  ['D2: inside a window the guardrails are checked again', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1 }), policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [openNow] }) }, { action: 'blocked', reason: 'SingleReplicaUnsafe' }],
  ['D1: the next window is one no freeze swallows, with its end and time zone', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin], freezeWindows: [{ start: '2026-12-04T00:00:00Z', end: '2026-12-06T00:00:00Z' }] }) }, { action: 'pull-request', phase: 'Deferred', nextWindow: '2026-12-12T00:00:00.000Z', nextWindowSpan: { end: '2026-12-12T04:00:00.000Z', timeZone: 'Europe/Berlin' } }],
  ['D1: a window a freeze always covers is never promised: the change waits', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin], freezeWindows: [{ schedule: '0 0 * * 5', duration: '72h' }] }) }, { action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: null }],
  ['Z4: the chart freeze swallows an opening too', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin] }), config: aConfig({ freeze: { now: false, windows: [{ start: '2026-12-04T00:00:00Z', end: '2026-12-06T00:00:00Z' }] } }) }, { action: 'pull-request', nextWindow: '2026-12-12T00:00:00.000Z' }],
  ['D3: with no maintenance window the change waits without a next window', { policy: aPolicy({ strategy: 'deferred' }) }, { action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: null }],
  ['D3: with only invalid maintenance windows the change waits', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [invalidWindow] }) }, { action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: null }],
  ['W3: an invalid maintenance window counts as closed', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [invalidWindow, saturdayBerlin] }) }, { action: 'pull-request', phase: 'Deferred', nextWindow: '2026-12-05T00:00:00.000Z' }],
  ['G6: a deferred change outside a window is a pull request', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin] }) }, { action: 'pull-request', phase: 'Deferred' }],
  // Freeze and pause
  ['Z1: an open policy freeze window blocks every strategy', { policy: aPolicy({ freezeWindows: [openNow] }) }, { action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow', strategy: 'in-place' }],
  ['Z1: a freeze blocks a rollout', { policy: aPolicy({ strategy: 'rollout', freezeWindows: [{ start: '2026-12-01T00:00:00Z', end: '2026-12-03T00:00:00Z' }] }) }, { action: 'blocked', reason: 'FreezeWindow' }],
  ['Z1: a freeze blocks a deferred change inside a maintenance window', { policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [openNow], freezeWindows: [openNow] }) }, { action: 'blocked', reason: 'FreezeWindow', nextWindow: null }],
  ['Z1: a closed freeze window does not block', { policy: aPolicy({ freezeWindows: [{ start: '2026-12-03T00:00:00Z', end: '2026-12-04T00:00:00Z' }] }) }, { action: 'in-place' }],
  ['Z3: an invalid freeze window counts as open', { policy: aPolicy({ freezeWindows: [invalidWindow] }) }, { action: 'blocked', reason: 'FreezeWindow' }],
  ['Z4: the chart-wide freeze.now blocks', { config: aConfig({ freeze: { now: true, windows: [] } }) }, { action: 'blocked', reason: 'FreezeWindow' }],
  ['Z4: a chart-wide freeze window blocks', { config: aConfig({ freeze: { now: false, windows: [openNow] } }) }, { action: 'blocked', reason: 'FreezeWindow' }],
  ['Z4: a cluster pause blocks with Paused', { config: aConfig({ pause: true }) }, { action: 'blocked', reason: 'Paused' }],
  ['Z4: the fleet pause blocks with Paused', { facts: { fleetPaused: true } }, { action: 'blocked', reason: 'Paused' }],
  ['Z4: a pause wins over a freeze', { facts: { fleetPaused: true }, policy: aPolicy({ freezeWindows: [openNow] }) }, { reason: 'Paused' }],
  ['Z4: a freeze wins over the guardrails', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1 }), policy: aPolicy({ strategy: 'rollout', freezeWindows: [openNow] }) }, { reason: 'FreezeWindow' }],
  ['Z4: the guardrails win over the maintenance window', { workload: aWorkload({ kind: 'StatefulSet', replicas: 1 }), policy: aPolicy({ strategy: 'deferred', maintenanceWindows: [saturdayBerlin] }) }, { reason: 'SingleReplicaUnsafe', nextWindow: null }],
  // Coverage
  ['no policy: the workload is unmanaged and never changed', { policy: undefined }, { action: 'none', phase: 'Unmanaged', strategy: null, configuredStrategy: null }],
  ['mode recommend: report only', { policy: aPolicy({}, { mode: 'recommend' }) }, { action: 'none', phase: 'Recommended' }],
  ['up to date: equal quantities in other spellings are no change', { workload: aWorkload({ containers: [aContainer({ requests: { cpu: '0.25', memory: '402653184' } })] }) }, { action: 'none', phase: 'UpToDate', changes: [] }],
  ['up to date wins over a freeze', { workload: aWorkload({ containers: [aContainer({ requests: { cpu: '250m', memory: '384Mi' } })] }), policy: aPolicy({ freezeWindows: [openNow] }) }, { action: 'none', phase: 'UpToDate' }],
];

describe('decide()', () => {
  it.each(rows)('%s', (_name, overrides, expected) => {
    expect(decide(input(overrides))).toMatchObject(expected);
  });

  it('S1: an invalid strategy annotation is an error naming the file, object and value', () => {
    const workload = aWorkload({ annotations: { 'kerf.getkerf.dev/strategy': 'fast' } });
    expect(() => decide(input({ workload }))).toThrow(/apps\/cart\.yaml: Deployment shop\/cart: annotation kerf\.getkerf\.dev\/strategy .*"fast"/);
  });

  it('lists every changed field with from and to, and leaves unmentioned fields alone', () => {
    const decision = decide(input({ recommendation: aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: { memory: '768Mi', cpu: '1' } }]) }));
    expect(decision.changes).toEqual([
      { container: 'app', field: 'requests.cpu', from: '500m', to: '250m', file: 'apps/cart.yaml' },
      { container: 'app', field: 'limits.cpu', from: null, to: '1', file: 'apps/cart.yaml' },
      { container: 'app', field: 'limits.memory', from: '1Gi', to: '768Mi', file: 'apps/cart.yaml' },
    ]);
  });

  it('a recommendation naming a container the workload lacks is an error naming both', () => {
    expect(() => decide(input({ recommendation: aRecommendation([{ name: 'sidecar', requests: { cpu: '1' }, limits: {} }]) }))).toThrow(/"sidecar".*it has app/);
  });

  it('a malformed recommended quantity is an error naming the value', () => {
    expect(() => decide(input({ recommendation: aRecommendation([{ name: 'app', requests: { cpu: '1 core' }, limits: {} }]) }))).toThrow(/1 core/);
  });
});
