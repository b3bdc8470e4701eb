// reconcile end to end: real git over smart HTTP, real octokit against the GitHub stand-in, the
// example repo. Counts come from the stand-ins' request logs and the bare repo's refs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { EXAMPLE, KERF, OWNER, SOMEONE, TOKEN, recommendationsWithout, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';

let git: GitServer;
let h: Harness;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
afterEach(async () => {
  await h?.close(); // fails the test on any schema violation seen by the GitHub stand-in
});

const PROPOSED = ['kerf/shop/deployment/checkout', 'kerf/shop/deployment/frontend', 'kerf/shop/deployment/orders', 'kerf/shop/deployment/reports'];

function byBranch(result: ReconcileResult) {
  return Object.fromEntries(result.pullRequests.map((pr) => [pr.branch, pr]));
}

function windowStatus(sha: string) {
  return h.gh.state.statuses.filter((s) => s.sha === sha && s.context === 'kerf/window').map((s) => `${s.state}: ${s.description}`);
}

function prOf(branch: string) {
  const pr = h.gh.state.prs.find((candidate) => candidate.head === branch);
  if (!pr) throw new Error(`no PR for ${branch}`);
  return pr;
}

describe('reconcile against the stand-ins', () => {
  it('G1 G4 G6: opens a PR per pull-request decision with labels, reviewers and kerf/window statuses; a second run writes nothing', async () => {
    h = await startHarness(git);
    expect(await runGit(['rev-parse', '--is-shallow-repository'], { cwd: h.clone })).toBe('true');
    const first = await h.run({ reviewers: ['alice'] });
    expect(first.errors).toEqual([]);
    const outcomes = byBranch(first);
    for (const branch of PROPOSED) expect(outcomes[branch]?.action).toBe('opened');
    expect(outcomes['kerf/payments/deployment/ledger']).toMatchObject({ action: 'held', number: null, reason: expect.stringContaining('FreezeWindow') });
    expect(outcomes['kerf/shop/statefulset/redis']).toMatchObject({ action: 'held', reason: expect.stringContaining('SingleReplicaUnsafe') });
    expect(h.gh.state.prs.map((pr) => pr.head).sort()).toEqual(PROPOSED);

    const main = await h.head('main');
    for (const branch of PROPOSED) {
      const pr = prOf(branch);
      expect(pr.labels).toEqual(['kerf', 'rightsizing']);
      expect(pr.requestedTeams).toEqual(['platform']);
      expect(pr.requestedReviewers).toEqual(['alice']);
      const head = (await h.head(branch)) as string;
      expect(await runGit(['log', '-1', '--format=%an <%ae>|%cn <%ce>|%P', head], { cwd: h.bare })).toBe(`${KERF.name} <${KERF.email}>|${KERF.name} <${KERF.email}>|${main}`);
    }
    expect(prOf('kerf/shop/deployment/checkout').title).toBe('kerf: rightsize shop/Deployment/checkout');
    expect(await runGit(['log', '-1', '--format=%s', 'refs/heads/kerf/shop/deployment/checkout'], { cwd: h.bare })).toBe(
      'kerf: rightsize shop/Deployment/checkout (cpu 1→600m, memory 768Mi→640Mi, limit cpu 2→1200m, limit memory 768Mi→640Mi)',
    );
    // R1: only the CPU and memory lines changed, every other byte as it was.
    const before = await readFile(join(EXAMPLE, 'apps/shop/checkout.yaml'), 'utf8');
    const expected = before.replace('cpu: "1"', 'cpu: "600m"').replace('memory: 768Mi', 'memory: 640Mi').replace('cpu: "2"', 'cpu: "1200m"').replace('memory: 768Mi', 'memory: 640Mi');
    // Compared as blob ids, so every byte counts (the final newline too).
    expect(await runGit(['rev-parse', 'refs/heads/kerf/shop/deployment/checkout:apps/shop/checkout.yaml'], { cwd: h.bare })).toBe(
      await runGit(['hash-object', '--stdin'], { cwd: h.bare, input: expected }),
    );
    expect(await runGit(['diff', '--name-only', 'main', 'refs/heads/kerf/shop/deployment/checkout'], { cwd: h.bare })).toBe('apps/shop/checkout.yaml');

    // D1: the deferred change waits for its window; rollouts may merge at once.
    expect(windowStatus((await h.head('kerf/shop/deployment/reports')) as string)).toEqual(['pending: Waiting for the maintenance window Sat 5 Dec 01:00–05:00 Europe/Berlin (00:00 UTC)']);
    expect(windowStatus((await h.head('kerf/shop/deployment/checkout')) as string)).toEqual(['success: Rollout: may merge at any time']);
    expect(prOf('kerf/shop/deployment/reports').body).toContain('Next maintenance window: **Sat 5 Dec 01:00–05:00 Europe/Berlin (00:00 UTC)**');

    const [requests, writes, pushes] = [h.gh.requests.length, h.gh.writeRequests().length, h.pushes()];
    expect(pushes).toBe(4);
    const second = await h.run({ reviewers: ['alice'] });
    expect(second.errors).toEqual([]);
    for (const branch of PROPOSED) expect(byBranch(second)[branch]?.action).toBe('unchanged');
    expect(h.gh.writeRequests().length).toBe(writes);
    expect(h.pushes()).toBe(pushes);
    // Nothing changed, so nothing but the lists of open PRs and issues (the dashboard's, unchanged): the metadata says which status each head has.
    expect(h.gh.requests.slice(requests).map((r) => `${r.method} ${r.path.replace(/\/repos\/[^/]+\/[^/]+/, '')}`)).toEqual(['GET /pulls?state=open&per_page=100', 'GET /issues?state=open&per_page=100']);
  });

  it('a changed recommendation rebuilds only its branch and updates its PR; a moving default branch pushes nothing else', async () => {
    h = await startHarness(git);
    await h.run();
    const heads = Object.fromEntries(await Promise.all(PROPOSED.map(async (b) => [b, await h.head(b)] as const)));
    const recommendations = (await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8')).replace('requests: {cpu: 600m, memory: 640Mi}', 'requests: {cpu: 700m, memory: 640Mi}');
    const main = await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': recommendations, 'README.md': 'unrelated\n' });
    const pushes = h.pushes();

    const result = await h.run();
    expect(result.errors).toEqual([]);
    const outcomes = byBranch(result);
    expect(outcomes['kerf/shop/deployment/checkout']?.action).toBe('updated');
    expect(h.pushes()).toBe(pushes + 1);
    const checkout = (await h.head('kerf/shop/deployment/checkout')) as string;
    expect(await runGit(['rev-parse', `${checkout}^`], { cwd: h.bare })).toBe(main);
    expect(await h.show('kerf/shop/deployment/checkout', 'apps/shop/checkout.yaml')).toContain('cpu: "700m"');
    expect(prOf('kerf/shop/deployment/checkout').body).toContain('| 1 | 700m | -30% |');
    expect(windowStatus(checkout)).toEqual(['success: Rollout: may merge at any time']);
    for (const branch of PROPOSED.filter((b) => b !== 'kerf/shop/deployment/checkout')) {
      expect(outcomes[branch]?.action).toBe('unchanged');
      expect(await h.head(branch)).toBe(heads[branch]);
    }
  });

  it('R2: a removed recommendation closes its PR with a comment and deletes the branch', async () => {
    h = await startHarness(git);
    await h.run();
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': await recommendationsWithout('orders') });
    const result = await h.run();
    expect(result.errors).toEqual([]);
    const orders = byBranch(result)['kerf/shop/deployment/orders'];
    expect(orders).toMatchObject({ action: 'closed', reason: 'shop/Deployment/orders: its recommendation is gone' });
    const pr = prOf('kerf/shop/deployment/orders');
    expect(pr.state).toBe('closed');
    expect(h.gh.state.comments.filter((c) => c.issueNumber === pr.number).map((c) => c.body)).toEqual([
      'kerf closes this pull request: `shop/Deployment/orders`: its recommendation is gone.',
    ]);
    expect(await h.head('kerf/shop/deployment/orders')).toBeNull();
    expect(h.gh.state.prs.filter((p) => p.state === 'open')).toHaveLength(3);
  });

  it('R2: a workload that left auto-patch (mode: recommend) has its PR closed with that reason', async () => {
    h = await startHarness(git);
    await h.run();
    const policies = (await readFile(join(EXAMPLE, 'policies/shop.yaml'), 'utf8')).replace(/mode: auto-patch\n  selector:\n    matchLabels:\n      tier: batch/, 'mode: recommend\n  selector:\n    matchLabels:\n      tier: batch');
    expect(policies).toContain('mode: recommend');
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'policies/shop.yaml': policies });
    const result = await h.run();
    expect(byBranch(result)['kerf/shop/deployment/reports']).toMatchObject({
      action: 'closed',
      reason: 'shop/Deployment/reports: its policy is now mode: recommend, so kerf releases its fields',
    });
  });

  it('Z1: during a chart-wide freeze nothing is closed and every open kerf PR gets a failure status', async () => {
    h = await startHarness(git);
    await h.run();
    const config = (await readFile(join(EXAMPLE, '.kerf/config.yaml'), 'utf8')).replace('now: false', 'now: true');
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { '.kerf/config.yaml': config, 'recommendations/shop.yaml': await recommendationsWithout('orders') });
    const pushes = h.pushes();
    const result = await h.run();
    expect(result.errors).toEqual([]);
    expect(h.gh.state.prs.every((pr) => pr.state === 'open')).toBe(true);
    expect(byBranch(result)['kerf/shop/deployment/orders']).toMatchObject({ action: 'held', reason: expect.stringContaining('FreezeWindow: a freeze window is open; nothing is closed') });
    for (const branch of PROPOSED) {
      expect(windowStatus((await h.head(branch)) as string).at(-1)).toBe('failure: Do not merge: a freeze window is open');
    }
    expect(h.pushes()).toBe(pushes);

    // The freeze lifts: statuses come back, and the change no longer wanted is closed now.
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { '.kerf/config.yaml': config.replace('now: true', 'now: false') });
    const after = await h.run();
    expect(after.errors).toEqual([]);
    expect(byBranch(after)['kerf/shop/deployment/orders']?.action).toBe('closed');
    expect(windowStatus((await h.head('kerf/shop/deployment/checkout')) as string).at(-1)).toBe('success: Rollout: may merge at any time');
    expect(windowStatus((await h.head('kerf/shop/deployment/reports')) as string).at(-1)).toBe('pending: Waiting for the maintenance window Sat 5 Dec 01:00–05:00 Europe/Berlin (00:00 UTC)');
    // One push: the conditional delete of the closed PR's branch.
    expect(h.pushes()).toBe(pushes + 1);
  });

  it('Z4: a fleet pause sets failure statuses and leaves branches alone', async () => {
    h = await startHarness(git);
    await h.run();
    const pushes = h.pushes();
    const result = await h.run({ fleetPaused: true });
    expect(result.errors).toEqual([]);
    for (const branch of PROPOSED) {
      expect(byBranch(result)[branch]).toMatchObject({ action: 'held', reason: expect.stringContaining('Paused') });
      expect(windowStatus((await h.head(branch)) as string).at(-1)).toBe('failure: Do not merge: kerf is paused for this cluster or the whole fleet');
    }
    expect(h.pushes()).toBe(pushes);
  });

  it('works from a full (not shallow) clone too, and groups per namespace', async () => {
    h = await startHarness(git, { shallow: false });
    const result = await h.run({ groupBy: 'per-namespace' });
    expect(result.errors).toEqual([]);
    expect(byBranch(result)['kerf/shop/_all']).toMatchObject({ action: 'opened', title: 'kerf: rightsize 4 workloads in shop' });
    const pr = prOf('kerf/shop/_all');
    expect(pr.body).toContain('### Held back');
    expect(pr.body).toMatch(/`shop\/StatefulSet\/redis` \| .* \| \*\*SingleReplicaUnsafe\*\*/);
    expect(await runGit(['rev-parse', '--is-shallow-repository'], { cwd: h.clone })).toBe('false');
    const message = await runGit(['log', '-1', '--format=%B', 'refs/heads/kerf/shop/_all'], { cwd: h.bare });
    expect(message.split('\n').slice(0, 3)).toEqual(['kerf: rightsize 4 workloads in shop', '', '- shop/Deployment/checkout: cpu 1→600m, memory 768Mi→640Mi, limit cpu 2→1200m, limit memory 768Mi→640Mi']);
  });

  it('prHourlyLimit: PRs beyond the limit are held back and reported, also on the next run within the hour', async () => {
    const config = (await readFile(join(EXAMPLE, '.kerf/config.yaml'), 'utf8')).replace('prHourlyLimit: 4', 'prHourlyLimit: 2');
    h = await startHarness(git, { files: { '.kerf/config.yaml': config } });
    const first = await h.run();
    const actions = first.pullRequests.filter((pr) => PROPOSED.includes(pr.branch)).map((pr) => `${pr.action} ${pr.reason ?? ''}`.trim());
    expect(actions).toEqual(['opened', 'opened', 'held prHourlyLimit: 2 pull requests opened in the last hour', 'held prHourlyLimit: 2 pull requests opened in the last hour']);
    expect(h.gh.state.prs).toHaveLength(2);
    expect(await h.head('kerf/shop/deployment/orders')).toBeNull();
    const second = await h.run();
    expect(second.pullRequests.filter((pr) => pr.action === 'held' && pr.reason?.startsWith('prHourlyLimit'))).toHaveLength(2);
    expect(h.gh.state.prs).toHaveLength(2);
  });

  it('prConcurrentLimit: no more open kerf PRs than the limit; the rest is held back', async () => {
    const config = (await readFile(join(EXAMPLE, '.kerf/config.yaml'), 'utf8')).replace('prConcurrentLimit: 20', 'prConcurrentLimit: 3');
    h = await startHarness(git, { files: { '.kerf/config.yaml': config } });
    const result = await h.run();
    expect(result.pullRequests.filter((pr) => pr.action === 'opened')).toHaveLength(3);
    expect(byBranch(result)['kerf/shop/deployment/reports']).toMatchObject({ action: 'held', reason: 'prConcurrentLimit: 3 kerf pull requests are open' });
  });

  it('D3: with no valid maintenance window at all, the deferred change opens no PR', async () => {
    const policies = (await readFile(join(EXAMPLE, 'policies/shop.yaml'), 'utf8')).replace(
      /strategy: deferred\n    maintenanceWindows:\n      - schedule: "0 1 \* \* 6"/,
      'strategy: deferred\n    maintenanceWindows:\n      - schedule: "0 0 1 * * 6"',
    );
    expect(policies).toContain('"0 0 1 * * 6"');
    h = await startHarness(git, { files: { 'policies/shop.yaml': policies } });
    const result = await h.run();
    expect(byBranch(result)['kerf/shop/deployment/reports']).toMatchObject({ action: 'held', number: null, reason: 'shop/Deployment/reports: OutsideMaintenanceWindow: no maintenance window is free: none is valid, or a freeze covers every one, so no pull request is opened' });
    expect(await h.head('kerf/shop/deployment/reports')).toBeNull();
    expect(h.gh.state.prs.map((pr) => pr.head)).not.toContain('kerf/shop/deployment/reports');
  });
});
