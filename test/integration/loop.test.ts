// The whole life of a rollout, end to end against the stand-ins (issue 6): recommendation in the
// cluster → PR → merge in the bare repo → a simulated sync → Applied → an OOMKilled container →
// RolledBack and a revert PR during a freeze. Real git, octokit and client-node over HTTP.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Pod } from '../../src/cluster/objects.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { statusRows } from '../../src/reconcile/status-command.js';
import { EXAMPLE, OWNER, SOMEONE, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { loopRun } from '../support/loop-run.js';
import { ARGO_APPLICATION_CRD, argoApplication, syncFromGit } from '../support/gitops-sync.js';

// A Wednesday 10:00 UTC that moves with the wall clock, shared by the runs and the Kubernetes stand-in:
// payments is frozen (London business hours), the shop's Saturday window is ahead.
const START = Date.now();
const clock = () => new Date(Date.parse('2026-12-02T10:00:00Z') + (Date.now() - START));

let git: GitServer;
let h: Harness;
let api: KubeApi;

const RECOMMENDED = ['checkout', 'reports', 'ledger'];

async function clusterRecommendations(): Promise<KubernetesObject[]> {
  const texts = await Promise.all(['shop.yaml', 'other-namespaces.yaml'].map((file) => readFile(join(EXAMPLE, 'recommendations', file), 'utf8')));
  return texts
    .flatMap((text) => parseAllDocuments(text).map((doc) => doc.toJS() as KubernetesObject))
    .filter((object) => RECOMMENDED.includes(object.metadata?.name ?? ''));
}

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  h = await startHarness(git, { shallow: false });
  api = await startKubeApi({ clock });
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '32', memory: '64Gi' } });
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  for (const name of ['shop', 'payments', 'argocd']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  api.store.put(ARGO_APPLICATION_CRD);
  // What Argo CD synced before kerf: the example's workloads as the default branch holds them.
  await syncFromGit(api, h.bare, 'main', ['apps/shop/checkout.yaml', 'apps/shop/reports.yaml', 'apps/payments/ledger.yaml']);
  for (const object of await clusterRecommendations()) await objects.create(object);
});
afterAll(async () => {
  await h?.close();
  await api?.close();
  await git?.close();
});

// h and api exist once beforeAll ran.
const run = (): Promise<ReconcileResult> => loopRun(h, api, clock)();

const status = (name: string, namespace = 'shop') => (api.store.get('rightsizingrecommendations', namespace, name)?.status ?? {}) as Record<string, unknown>;
const events = (action: string, namespace = 'shop') =>
  (api.store.list('events.events.k8s.io', namespace) as unknown as { action: string; reason: string; note: string; regarding: { name: string }; reportingController: string }[]).filter((e) => e.action === action);
const prOf = (branch: string) => h.gh.state.prs.find((pr) => pr.head === branch);
const checkoutPods = () => (api.store.list('pods', 'shop') as unknown as Pod[]).filter((pod) => pod.metadata.name.startsWith('checkout-') && !pod.metadata.deletionTimestamp);

describe('the life of a rollout, from recommendation to rollback', () => {
  let number: number;
  let mergeCommit: string;

  it('G1, D1, Z1: a reconcile opens the PR and writes Proposed, Deferred and Blocked statuses with Events', async () => {
    const result = await run();
    expect(result.errors).toEqual([]);
    expect(result.plan.errors).toEqual([]);
    const pr = prOf('kerf/shop/deployment/checkout');
    expect(pr).toBeDefined();
    number = pr!.number;
    expect(status('checkout')).toMatchObject({
      phase: 'Proposed',
      strategy: 'rollout',
      configuredStrategy: 'rollout',
      pullRequest: { number, url: expect.stringMatching(new RegExp(`/pull/${number}$`)) },
      previous: [{ name: 'app', requests: { cpu: '1', memory: '768Mi' }, limits: { cpu: '2', memory: '768Mi' } }],
    });
    expect(status('reports')).toMatchObject({ phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z', pullRequest: { number: prOf('kerf/shop/deployment/reports')!.number } });
    // Z1: the freeze writes its Blocked status too.
    expect(status('ledger', 'payments')).toMatchObject({ phase: 'Blocked', reason: 'FreezeWindow' });
    expect(status('ledger', 'payments')).not.toHaveProperty('pullRequest');
    expect(events('Proposed')).toMatchObject([{ reason: 'Proposed', regarding: { name: 'checkout' }, reportingController: 'kerf-gitops', note: expect.stringContaining(`pull request #${number}`) }]);
    expect(events('Blocked').map((e) => `${e.regarding.name}: ${e.reason}`)).toEqual(['reports: OutsideMaintenanceWindow']);
    expect(events('Blocked', 'payments').map((e) => `${e.regarding.name}: ${e.reason}`)).toEqual(['ledger: FreezeWindow']);
  });

  it('nothing is written when nothing changed', async () => {
    const version = api.store.resourceVersion;
    const result = await run();
    expect(result.errors).toEqual([]);
    expect(api.store.resourceVersion).toBe(version);
  });

  it('G5: merged is not applied until the live template carries the values and the Argo CD Application synced the merge', async () => {
    const before = await h.head('main');
    mergeCommit = await h.gh.mergePullRequest(number);
    await run();
    expect(status('checkout')).toMatchObject({ phase: 'Proposed' }); // merged, not synced

    await syncFromGit(api, h.bare, 'main', ['apps/shop/checkout.yaml']);
    // Argo CD manages checkout but reports the revision before the merge: still waiting.
    api.store.put(argoApplication('shop', before as string, [{ namespace: 'shop', kind: 'Deployment', name: 'checkout' }]));
    await run();
    expect(status('checkout')).toMatchObject({ phase: 'Proposed' });

    // A later commit on main contains the merge: that revision is enough.
    const later = await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'README.md': 'unrelated\n' });
    api.store.put(argoApplication('shop', later, [{ namespace: 'shop', kind: 'Deployment', name: 'checkout' }]));
    const result = await run();
    expect(result.errors).toEqual([]);
    expect(status('checkout')).toMatchObject({ phase: 'Applied', appliedAt: expect.any(String), health: { state: 'Watching', until: expect.any(String) } });
    expect(status('checkout')).not.toHaveProperty('reason');
    const { appliedAt, health } = status('checkout') as { appliedAt: string; health: { until: string } };
    expect(Date.parse(health.until) - Date.parse(appliedAt)).toBe(30 * 60_000);
    expect(events('Applied')).toMatchObject([{ reason: 'Applied', regarding: { name: 'checkout' } }]);
    expect(mergeCommit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('D2: a deferred change merged outside its window is Applied with the reason, said on the PR', async () => {
    const reports = prOf('kerf/shop/deployment/reports')!;
    await h.gh.mergePullRequest(reports.number);
    await syncFromGit(api, h.bare, 'main', ['apps/shop/reports.yaml']);
    await run();
    expect(status('reports')).toMatchObject({ phase: 'Applied', reason: 'OutsideMaintenanceWindow' });
    expect(events('Applied').find((e) => e.regarding.name === 'reports')).toMatchObject({ reason: 'OutsideMaintenanceWindow' });
    const comments = h.gh.state.comments.filter((c) => c.issueNumber === reports.number).map((c) => c.body);
    expect(comments).toEqual([expect.stringMatching(/merged at \S+, outside a maintenance window of its policy \(it should have waited/)]);
  });

  it('Z2: an OOMKilled container during the health watch rolls back by a revert PR, mergeable during a freeze', async () => {
    const [pod] = checkoutPods();
    expect(pod).toBeDefined();
    const statuses = pod!.status?.containerStatuses ?? [];
    const oom = { ...statuses[0]!, restartCount: 1, lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: clock().toISOString() } } };
    api.store.put({ ...pod!, status: { ...pod!.status, containerStatuses: [oom, ...statuses.slice(1)] } } as never);
    const config = (await readFile(join(EXAMPLE, '.kerf/config.yaml'), 'utf8')).replace('now: false', 'now: true');
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { '.kerf/config.yaml': config });

    const result = await run();
    expect(result.errors).toEqual([]);
    const branch = 'kerf/_rollback/shop/deployment/checkout';
    const revert = prOf(branch);
    expect(revert).toMatchObject({ state: 'open', labels: ['kerf/rollback', 'kerf', 'rightsizing'], title: 'kerf: roll back shop/Deployment/checkout' });
    expect(result.pullRequests.find((pr) => pr.branch === branch)).toMatchObject({ action: 'opened', number: revert!.number });
    expect(status('checkout')).toMatchObject({
      phase: 'RolledBack',
      rolledBackGeneration: 1,
      health: { state: 'Breached', breach: expect.stringContaining(`pod ${pod!.metadata.name} was OOMKilled`) },
      rollbackPullRequest: { number: revert!.number },
    });
    expect(events('RolledBack')).toMatchObject([{ reason: 'OOMKilled', regarding: { name: 'checkout' }, note: expect.stringContaining('OOMKilled') }]);
    // Z2: success although the chart-wide freeze is on.
    const head = (await h.head(branch)) as string;
    expect(h.gh.state.statuses.filter((s) => s.sha === head && s.context === 'kerf/window').map((s) => s.state)).toEqual(['success']);
    // R1: only the CPU and memory fields, back to the values before kerf's merge.
    // Compared as blob ids, so every byte counts (the final newline too).
    const original = await readFile(join(EXAMPLE, 'apps/shop/checkout.yaml'), 'utf8');
    expect(await runGit(['rev-parse', `refs/heads/${branch}:apps/shop/checkout.yaml`], { cwd: h.bare })).toBe(await runGit(['hash-object', '--stdin'], { cwd: h.bare, input: original }));
    expect(await runGit(['diff', '--name-only', 'main', `refs/heads/${branch}`], { cwd: h.bare })).toBe('apps/shop/checkout.yaml');
    // A change set like any other: the trailer on its commit, the metadata marker in its body.
    const message = await runGit(['log', '-1', '--format=%B', `refs/heads/${branch}`], { cwd: h.bare });
    expect(message).toMatch(/^kerf: roll back shop\/Deployment\/checkout after a health breach \(.+\)\n\nKerf-Change-Set: [0-9a-f]{16}\n*$/);
    expect(revert!.body).toContain(`<!-- kerf:meta {"changeSet":"${/Kerf-Change-Set: ([0-9a-f]+)/.exec(message)?.[1]}","targets":["shop/Deployment/checkout"],"head":"${head}"`);
  });

  it('no flapping: the next run opens nothing and proposes checkout no more; status shows the story', async () => {
    const prs = h.gh.state.prs.length;
    const result = await run();
    expect(result.errors).toEqual([]);
    expect(h.gh.state.prs.length).toBe(prs);
    // The revert PR is the loop's: no group wants its branch, and it is still not closed as an orphan.
    const revert = prOf('kerf/_rollback/shop/deployment/checkout');
    expect(revert).toMatchObject({ state: 'open' });
    // Nor held by the freeze as an orphan would be: its kerf/window stays success (Z2).
    expect(h.gh.state.statuses.filter((s) => s.sha === revert!.headSha && s.context === 'kerf/window').map((s) => s.state)).toEqual(['success']);
    expect(result.plan.decisions.find((d) => d.target.name === 'checkout')).toMatchObject({ action: 'none', phase: 'RolledBack' });
    const rows = statusRows(api.store.list('rightsizingrecommendations') as never, clock());
    expect(rows.find((row) => row.name === 'checkout')).toMatchObject({ phase: 'RolledBack', health: { state: 'Breached' }, rollbackPullRequest: { number: expect.any(Number) } });
  });
});
