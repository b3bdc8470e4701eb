// The loop's choice per recommendation, over a real plan of a small repo and fake ports: what it
// writes, what it leaves to the helper, and when it asks GitHub. (End to end: integration/loop*.)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPort, EventRecord } from '../../src/cluster/cluster-port.js';
import type { KubeObject } from '../../src/cluster/objects.js';
import { closeLoop, type LoopPorts } from '../../src/reconcile/close-loop.js';
import type { PullRequestState } from '../../src/github/github.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { fakeClusterSource, wireRecommendation } from '../support/cluster-source.js';
import { aPod, aPodContainer } from '../helper/builders.js';

const NOW = new Date('2026-12-02T10:00:00Z');
let repo: string;

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'kerf-loop-'));
  await mkdir(join(repo, 'apps'));
  await writeFile(join(repo, 'apps/api.yaml'), `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/api:1
          resources: {requests: {cpu: 500m, memory: 512Mi}}
`);
  await writeFile(join(repo, 'apps/policy.yaml'), `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: web}
spec: {mode: auto-patch, apply: {strategy: rollout, healthWatch: {duration: 5m}}}
`);
});
afterAll(() => rm(repo, { recursive: true, force: true }));

function liveApi(cpu: string): KubeObject {
  return {
    metadata: { name: 'api', namespace: 'web', generation: 2 },
    spec: { replicas: 3, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'app', resources: { requests: { cpu, memory: '512Mi' } } }] } } },
    status: { observedGeneration: 2, replicas: 3, updatedReplicas: 3 },
  };
}

/** `count` Ready pods of the api Deployment (through its ReplicaSet) running cpu `cpu`. */
function apiPods(count: number, cpu: string, overrides: Parameters<typeof aPod>[0] = {}) {
  const replicaSet = { metadata: { name: 'api-abc', namespace: 'web', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'u', controller: true }] } };
  const pods = Array.from({ length: count }, (_, index) =>
    aPod({ name: `api-abc-${index}`, namespace: 'web', owner: { kind: 'ReplicaSet', name: 'api-abc' }, containers: [aPodContainer({ resources: { requests: { cpu, memory: '512Mi' } } })], ...overrides }),
  );
  return { replicaSets: [replicaSet], pods };
}

/**
 * One loop over the api recommendation (cpu `recommended`, default 250m; Git has 500m) with
 * `status`, the live Deployment at cpu `live` (default 500m); what it wrote, recorded and asked.
 */
async function loopWith(status: Record<string, unknown>, options: { live?: string; pull?: Partial<PullRequestState>; recommended?: string; pods?: ReturnType<typeof apiPods> } = {}) {
  const cluster = fakeClusterSource({
    recommendations: [wireRecommendation('web', 'api', { kind: 'Deployment', name: 'api' }, [{ name: 'app', requests: { cpu: options.recommended ?? '250m' } }], status)],
    deployments: [liveApi(options.live ?? '500m')],
    ...options.pods,
  });
  const run = await runPlan({ repo, recommendations: ['cluster'], cluster, now: NOW, fleetPaused: false, cwd: process.cwd() });
  const writes: Record<string, unknown>[] = [];
  const events: EventRecord[] = [];
  const asked: number[] = [];
  const port = {
    patchRecommendationStatus: async (_namespace: string, _name: string, written: Record<string, unknown>) => void writes.push(written),
    createEvent: async (event: EventRecord) => void events.push(event),
  } as unknown as ClusterPort;
  const unused = new Proxy({}, { get: (_, name) => () => Promise.reject(new Error(`unexpected call ${String(name)}`)) });
  const ports: LoopPorts = {
    cluster: port,
    pulls: { getPull: async (number) => (asked.push(number), { number, merged: false, mergedAt: null, mergeCommitSha: null, ...options.pull }) },
    revisions: { contains: async () => false },
    git: unused as never,
    github: unused as never,
    identity: 'test',
  };
  const result = await closeLoop({ basis: { defaultBranch: 'main', sha: 'a'.repeat(40), run, config: run.config, openPulls: [] }, pullRequests: [] }, ports);
  return { writes, events, asked, result };
}

const proposed = { phase: 'Proposed', strategy: 'rollout', configuredStrategy: 'rollout', pullRequest: { number: 7, url: 'https://github.example/pull/7' } };

describe('the loop, per recommendation', () => {
  it('G5: a merged PR whose values are not live yet writes nothing and waits', async () => {
    const { writes, asked, result } = await loopWith(proposed, { pull: { merged: true, mergeCommitSha: 'b'.repeat(40), mergedAt: '2026-12-02T09:00:00Z' } });
    expect(result.errors).toEqual([]);
    expect(asked).toEqual([7]);
    expect(writes).toEqual([]);
  });

  it('G5: merged and live, the pods not yet at the values → Resizing (its PR kept), no Event', async () => {
    const merged = { live: '250m', recommended: '250m', pull: { merged: true, mergeCommitSha: 'b'.repeat(40), mergedAt: '2026-12-02T09:00:00Z' } };
    const notCreated = await loopWith(proposed, { ...merged, pods: apiPods(2, '250m') });
    expect(notCreated.writes).toEqual([expect.objectContaining({ phase: 'Resizing', message: 'pull request #7 reached the cluster; waiting for 2 of 3 pods exist' })]);
    expect(notCreated.writes[0]).not.toHaveProperty('pullRequest');
    expect(notCreated.events).toEqual([]);
    const old = await loopWith(proposed, { ...merged, pods: apiPods(3, '500m') });
    expect(old.writes).toEqual([expect.objectContaining({ phase: 'Resizing', message: expect.stringContaining('pod api-abc-0 does not have the values yet') })]);
    const pending = await loopWith(proposed, { ...merged, pods: apiPods(3, '250m', { ready: false }) });
    expect(pending.writes).toEqual([expect.objectContaining({ phase: 'Resizing', message: expect.stringContaining('pod api-abc-0 is not Ready') })]);
    // Issue 11 finding 3: a pod still Terminating (its replacement not there yet) is no pod at the values.
    const replacing = apiPods(3, '250m');
    replacing.pods[2] = { ...replacing.pods[2]!, metadata: { ...replacing.pods[2]!.metadata, deletionTimestamp: '2026-12-02T10:00:30Z' } };
    const terminating = await loopWith({ ...proposed, phase: 'Resizing' }, { live: '250m', recommended: '250m', pods: replacing });
    expect(terminating.writes).toEqual([]);
  });

  it('G5: a Resizing rollout whose pods now run the values → Applied on the next run', async () => {
    const { writes, events } = await loopWith({ ...proposed, phase: 'Resizing' }, { live: '250m', recommended: '250m', pods: apiPods(3, '250m') });
    expect(writes).toEqual([expect.objectContaining({ phase: 'Applied', appliedAt: NOW.toISOString() })]);
    expect(events).toMatchObject([{ action: 'Applied', reason: 'Applied' }]);
  });

  it('D2: a deferred change merged outside its window keeps the reason through Resizing to Applied', async () => {
    const resizing = { phase: 'Resizing', strategy: 'deferred', configuredStrategy: 'deferred', reason: 'OutsideMaintenanceWindow', pullRequest: proposed.pullRequest };
    const { writes, events } = await loopWith(resizing, { live: '250m', recommended: '250m', pods: apiPods(3, '250m') });
    expect(writes).toEqual([expect.objectContaining({ phase: 'Applied', reason: 'OutsideMaintenanceWindow' })]);
    expect(events).toMatchObject([{ action: 'Applied', reason: 'OutsideMaintenanceWindow', type: 'Warning' }]);
  });

  it('G5: merged and live (no GitOps tool manages it) → Applied, watched for the policy duration, with an Applied Event', async () => {
    const { writes, events } = await loopWith(proposed, { live: '250m', recommended: '250m', pods: apiPods(3, '250m'), pull: { merged: true, mergeCommitSha: 'b'.repeat(40), mergedAt: '2026-12-02T09:00:00Z' } });
    expect(writes).toEqual([expect.objectContaining({ phase: 'Applied', reason: null, appliedAt: NOW.toISOString(), health: { state: 'Watching', until: '2026-12-02T10:05:00.000Z' } })]);
    expect(events).toMatchObject([{ action: 'Applied', reason: 'Applied', regarding: { kind: 'Deployment', name: 'api' }, reportingInstance: 'test' }]);
  });

  it('a PR closed without a merge: the decision stands (Proposed again, no PR until the run opens one)', async () => {
    const { writes } = await loopWith(proposed);
    expect(writes).toEqual([expect.objectContaining({ phase: 'Proposed', pullRequest: null, previous: [{ name: 'app', requests: { cpu: '500m' }, limits: {} }] })]);
  });

  it('OD3: the helper recording a PodDisruptionBudget refusal while it replaces pods is left alone', async () => {
    const { writes, asked } = await loopWith({ ...proposed, phase: 'Blocked', reason: 'PodDisruptionBudget' }, { live: '250m', recommended: '500m' });
    expect(writes).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('a watch whose time is up ends Healthy; one still running with healthy pods writes nothing', async () => {
    const applied = { phase: 'Applied', strategy: 'rollout', configuredStrategy: 'rollout', appliedAt: '2026-12-02T09:00:00Z' };
    const over = await loopWith({ ...applied, health: { state: 'Watching', until: '2026-12-02T09:30:00Z' } }, { live: '250m', recommended: '500m' });
    expect(over.writes).toEqual([{ health: { state: 'Healthy', until: '2026-12-02T09:30:00Z' } }]);
    const running = await loopWith({ ...applied, health: { state: 'Watching', until: '2026-12-02T10:30:00Z' } }, { live: '250m', recommended: '500m' });
    expect(running.writes).toEqual([]);
  });
});
