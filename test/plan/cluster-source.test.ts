// `--recommendations cluster` through runPlan, with a fake ClusterSource over wire objects: status
// from the cluster (F3), live facts (SR1 by PDB and HPA), the helper's record, no flapping, and an
// unreachable cluster.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/plan/run-plan.js';
import { InputError } from '../../src/util/input-error.js';
import type { Decision } from '../../src/model/types.js';
import { fakeClusterSource, wireRecommendation } from '../support/cluster-source.js';

const NOW = new Date('2026-12-02T10:00:00Z');
const EXAMPLE = join(import.meta.dirname, '../../examples/shop');
let repo: string;

const api = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  replicas: 3
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/api:1
          resources: {requests: {cpu: 500m, memory: 512Mi}}
`;

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'kerf-cluster-source-'));
  await mkdir(join(repo, 'apps'));
  await writeFile(join(repo, 'apps/api.yaml'), api);
});
afterAll(() => rm(repo, { recursive: true, force: true }));

const byName = (decisions: readonly Decision[]) => Object.fromEntries(decisions.map((d) => [d.target.name, d]));
const apiRecommendation = (status: Record<string, unknown> = {}, generation = 1) =>
  wireRecommendation('web', 'api', { kind: 'Deployment', name: 'api' }, [{ name: 'app', requests: { cpu: '250m' } }], status, generation);
const rolloutPolicy = {
  apiVersion: 'kerf.getkerf.dev/v1alpha1',
  kind: 'RightsizingPolicy',
  metadata: { name: 'default', namespace: 'web' },
  spec: { mode: 'auto-patch', apply: { strategy: 'rollout' } },
};

describe('--recommendations cluster', () => {
  it('F3: a fallback recorded in the cluster status sticks, so an in-place workload goes by rollout', async () => {
    const cluster = fakeClusterSource({
      recommendations: [
        wireRecommendation('shop', 'cart', { kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }], {
          phase: 'Pending',
          strategy: 'rollout',
          configuredStrategy: 'in-place',
          reason: 'Fallback',
        }),
      ],
    });
    const { plan, cluster: view } = await runPlan({ repo: EXAMPLE, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(plan.errors).toEqual([]);
    expect(plan.decisions).toHaveLength(1);
    expect(plan.decisions[0]).toMatchObject({ target: { name: 'cart' }, action: 'pull-request', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback' });
    expect(view?.facts.recommendations).toHaveLength(1);
  });

  it('policies come from Git where the repo has them and from the cluster otherwise', async () => {
    const cluster = fakeClusterSource({ recommendations: [apiRecommendation()], policies: [rolloutPolicy] });
    const { plan } = await runPlan({ repo, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(plan.decisions).api).toMatchObject({ action: 'pull-request', phase: 'Proposed', strategy: 'rollout' });

    const inGit = await runPlan({ repo: EXAMPLE, recommendations: ['cluster'], cluster: fakeClusterSource({
      recommendations: [wireRecommendation('shop', 'cart', { kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m' } }])],
      policies: [{ ...rolloutPolicy, metadata: { name: 'cluster-only', namespace: 'shop' } }],
    }), now: NOW, fleetPaused: false, cwd: process.cwd() });
    // shop has policies in Git (in-place): the cluster's rollout policy of shop is not used.
    expect(byName(inGit.plan.decisions).cart).toMatchObject({ action: 'in-place', strategy: 'in-place' });
  });

  it.each([
    ['SR1: a live PodDisruptionBudget with disruptionsAllowed 0', { pdbs: [{ metadata: { name: 'api', namespace: 'web' }, spec: { selector: { matchLabels: { app: 'api' } }, minAvailable: 1 }, status: { disruptionsAllowed: 0 } }] }],
    ['SR1: a live HPA running one replica (currentReplicas)', { hpas: [{ metadata: { name: 'api', namespace: 'web' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'api' }, minReplicas: 3 }, status: { currentReplicas: 1 } }] }],
  ])('%s makes the rollout single-replica and unsafe (SR4, SR5)', async (_, facts) => {
    const cluster = fakeClusterSource({ recommendations: [apiRecommendation()], policies: [rolloutPolicy], ...facts });
    const { plan } = await runPlan({ repo, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(plan.decisions).api).toMatchObject({ action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' });
  });

  it('N1, N2: an in-place change the helper recorded as blocked on its nodes is blocked in the plan too', async () => {
    const cluster = fakeClusterSource({
      recommendations: [
        wireRecommendation('shop', 'cart', { kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m' } }], { phase: 'Blocked', strategy: 'in-place', configuredStrategy: 'in-place', reason: 'UnsupportedNode' }),
      ],
    });
    const { plan } = await runPlan({ repo: EXAMPLE, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(plan.decisions).cart).toMatchObject({ action: 'blocked', phase: 'Blocked', reason: 'UnsupportedNode', strategy: 'in-place' });
  });

  it('a rolled-back change is not proposed again until its spec changes (no flapping)', async () => {
    const rolledBack = { phase: 'RolledBack', strategy: 'rollout', configuredStrategy: 'rollout', rolledBackGeneration: 2 };
    const same = await runPlan({ repo, recommendations: ['cluster'], cluster: fakeClusterSource({ recommendations: [apiRecommendation(rolledBack, 2)], policies: [rolloutPolicy] }), now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(same.plan.decisions).api).toMatchObject({ action: 'none', phase: 'RolledBack' });
    const changed = await runPlan({ repo, recommendations: ['cluster'], cluster: fakeClusterSource({ recommendations: [apiRecommendation(rolledBack, 3)], policies: [rolloutPolicy] }), now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(changed.plan.decisions).api).toMatchObject({ action: 'pull-request', phase: 'Proposed' });
  });

  it('a Helm workload whose helm: entry a synced merge proved wrong is held while the entry is the same, and planned once it changes', async () => {
    const helmExample = join(import.meta.dirname, '../../examples/helm');
    const podinfo = (status: Record<string, unknown>) => fakeClusterSource({ recommendations: [wireRecommendation('podinfo', 'podinfo', { kind: 'Deployment', name: 'podinfo' }, [{ name: 'podinfo', requests: { cpu: '40m' } }], status)] });
    const first = await runPlan({ repo: helmExample, recommendations: ['cluster'], cluster: podinfo({}), now: NOW, fleetPaused: false, cwd: process.cwd() });
    const fingerprint = first.index.workloads.get('podinfo/Deployment/podinfo')?.helm?.fingerprint;
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const message = 'pull request #3 was merged and HelmRelease podinfo/podinfo took it, but …';
    const held = await runPlan({ repo: helmExample, recommendations: ['cluster'], cluster: podinfo({ phase: 'Blocked', strategy: 'rollout', reason: 'HelmMappingMismatch', message, helmMappingMismatch: fingerprint }), now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(held.plan.decisions).podinfo).toMatchObject({ action: 'blocked', phase: 'Blocked', reason: 'HelmMappingMismatch', message, changes: [expect.objectContaining({ field: 'requests.cpu', to: '40m' })] });
    // A fingerprint of another entry (the mapping was changed since): planned as usual.
    const changed = await runPlan({ repo: helmExample, recommendations: ['cluster'], cluster: podinfo({ phase: 'Blocked', strategy: 'rollout', reason: 'HelmMappingMismatch', message, helmMappingMismatch: `sha256:${'0'.repeat(64)}` }), now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(byName(changed.plan.decisions).podinfo).toMatchObject({ action: 'pull-request', phase: 'Proposed', reason: null });
  });

  it('an unreachable cluster is one error entry, and the run decides from Git alone', async () => {
    const cluster = fakeClusterSource(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
    const { plan, cluster: view } = await runPlan({ repo: EXAMPLE, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(view).toBeUndefined();
    expect(plan.errors).toEqual([
      { code: 'ClusterUnreachable', object: 'cluster', message: 'cannot read the cluster at https://fake.cluster.test: connect ECONNREFUSED 127.0.0.1:6443; deciding from Git alone (recommendations from the repo, no live facts)' },
    ]);
    expect(byName(plan.decisions).cart).toMatchObject({ action: 'in-place' });
    expect(plan.decisions.length).toBeGreaterThan(5);
  });

  it('a cluster recommendation that does not validate is an error naming it; the others are decided', async () => {
    const broken = wireRecommendation('web', 'broken', { kind: 'Deployment', name: 'api' }, [{ name: 'app', requests: { cpu: 'lots' } }]);
    const cluster = fakeClusterSource({ recommendations: [apiRecommendation(), { ...broken, spec: { targetRef: { kind: 'Deployment' }, containers: [] } }], policies: [rolloutPolicy] });
    const { plan } = await runPlan({ repo, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(plan.decisions.map((d) => d.target.name)).toEqual(['api']);
    expect(plan.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('RightsizingRecommendation web/broken: spec.targetRef.name: is required'));
  });

  it("a recommendation of a workload the repo does not define is another repo's: left out, no error", async () => {
    const elsewhere = wireRecommendation('web', 'admin', { kind: 'Deployment', name: 'admin' }, [{ name: 'app', requests: { cpu: '250m' } }]);
    const cluster = fakeClusterSource({ recommendations: [apiRecommendation(), elsewhere], policies: [rolloutPolicy] });
    const { plan } = await runPlan({ repo, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
    expect(plan.decisions.map((d) => d.target.name)).toEqual(['api']);
    expect(plan.errors).toEqual([]);
  });

  it('without a cluster connection, --recommendations cluster stops the run', async () => {
    await expect(runPlan({ repo, recommendations: ['cluster'], now: NOW, fleetPaused: false, cwd: process.cwd() })).rejects.toThrow(InputError);
  });
});
