// reconcile never loses or overrides what a person did: a person's push between kerf's steps
// (hooks on the ports interleave it), a PR a person closed, two kerf runs at once. Every case
// counts the commits the bare repository can reach before and after: the count never drops.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitPort } from '../../src/git/git.js';
import { readMeta } from '../../src/reconcile/pr-body.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { runGit } from '../standins/git/run-git.js';
import { EXAMPLE, KERF, OWNER, SOMEONE, TOKEN, reconcileStandIns, recommendationsWithout, type Harness } from '../reconcile/reconcile-harness.js';

const standIns = reconcileStandIns();
let h: Harness;

const ORDERS = 'kerf/shop/deployment/orders';
const CHECKOUT = 'kerf/shop/deployment/checkout';

function outcome(result: ReconcileResult, branch: string) {
  return result.pullRequests.find((pr) => pr.branch === branch);
}

function prsOf(branch: string) {
  return h.gh.state.prs.filter((p) => p.head === branch);
}

function commentsOn(branch: string): string[] {
  const numbers = prsOf(branch).map((pr) => pr.number);
  return h.gh.state.comments.filter((c) => numbers.includes(c.issueNumber)).map((c) => c.body);
}

/** Every commit any ref of the bare repository reaches that is not kerf's own (kerf replaces its own commits when it rebuilds a branch). */
async function reachable(): Promise<Set<string>> {
  const lines = (await runGit(['log', '--all', '--format=%H %ae'], { cwd: h.bare })).split('\n').filter(Boolean);
  return new Set(lines.filter((line) => !line.endsWith(` ${KERF.email}`)).map((line) => line.split(' ')[0] as string));
}

/** A reconcile run that must not make a person's commit unreachable. */
async function runKeepingCommits(...args: Parameters<Harness['run']>): Promise<ReconcileResult> {
  const before = await reachable();
  const result = await h.run(...args);
  const after = await reachable();
  expect([...before].filter((sha) => !after.has(sha))).toEqual([]);
  return result;
}

async function closeAsPerson(number: number): Promise<void> {
  const closed = await fetch(`${h.gh.url}/repos/${OWNER}/${h.repo}/pulls/${number}`, {
    method: 'PATCH',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'closed' }),
  });
  expect(closed.status).toBe(200);
}

async function setCheckoutCpu(cpu: string): Promise<string> {
  const text = (await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8')).replace('requests: {cpu: 600m, memory: 640Mi}', `requests: {cpu: ${cpu}, memory: 640Mi}`);
  return standIns.git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': text });
}

describe('reconcile: a person pushes between kerf steps', () => {
  it('closing an orphan PR deletes its branch only while it is the commit kerf saw; a later push keeps branch and PR, said once', async () => {
    h = await standIns.start();
    await h.run();
    await standIns.git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': await recommendationsWithout('orders') });
    let theirs: string | undefined;
    const raced = (port: GitPort): GitPort => ({
      ...port,
      async deleteBranch(branch, expected) {
        // After kerf's fetch at the start of the run, before its delete: the window the whole run long.
        if (branch === ORDERS && theirs === undefined) theirs = await standIns.git.pushAs(OWNER, h.repo, SOMEONE, ORDERS, { 'notes.txt': 'keep me\n' });
        return port.deleteBranch(branch, expected);
      },
    });
    const first = await runKeepingCommits({}, { git: raced });
    expect(first.errors).toEqual([]);
    expect(outcome(first, ORDERS)).toMatchObject({ action: 'held', reason: expect.stringContaining(`commit \`${theirs?.slice(0, 12)}\` by \`${SOMEONE.email}\` is not kerf's`) });
    expect(await h.head(ORDERS)).toBe(theirs);
    expect(prsOf(ORDERS).map((pr) => pr.state)).toEqual(['open']);
    expect(commentsOn(ORDERS)).toEqual([expect.stringMatching(/^kerf no longer updates this branch: someone else pushed to the branch while kerf was working on it .*kerf no longer proposes this change either, so it left the branch and this pull request as they are/)]);

    const second = await runKeepingCommits();
    expect(outcome(second, ORDERS)).toMatchObject({ action: 'held', reason: expect.stringContaining('left to its new owner') });
    expect(await h.head(ORDERS)).toBe(theirs);
    expect(commentsOn(ORDERS)).toHaveLength(1);
  });

  it('without a push in between, the orphan branch goes and the PR is closed as kerf\'s own close', async () => {
    h = await standIns.start();
    await h.run();
    await standIns.git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': await recommendationsWithout('orders') });
    const result = await runKeepingCommits();
    expect(outcome(result, ORDERS)?.action).toBe('closed');
    expect(await h.head(ORDERS)).toBeNull();
    // kerf's own close is no decision: the same change, wanted again, opens a new PR.
    await standIns.git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8') });
    const again = await runKeepingCommits();
    expect(outcome(again, ORDERS)?.action).toBe('opened');
    expect(prsOf(ORDERS).map((pr) => pr.state)).toEqual(['closed', 'open']);
  });
});

describe('reconcile: a closed PR is a decision', () => {
  it('a PR a person closed is not reopened nor proposed again for the same change; a different change opens a new PR', async () => {
    h = await standIns.start();
    await h.run();
    const [pr] = prsOf(CHECKOUT);
    await closeAsPerson(pr!.number);
    const pushes = h.pushes();

    for (let run = 0; run < 2; run++) {
      const result = await runKeepingCommits();
      expect(outcome(result, CHECKOUT)).toMatchObject({ action: 'held', reason: expect.stringContaining(`a person closed #${pr!.number}`) });
      expect(prsOf(CHECKOUT).map((p) => p.state)).toEqual(['closed']);
    }
    expect(h.pushes()).toBe(pushes);

    await setCheckoutCpu('700m');
    const changed = await runKeepingCommits();
    expect(outcome(changed, CHECKOUT)?.action).toBe('opened');
    expect(prsOf(CHECKOUT).map((p) => p.state)).toEqual(['closed', 'open']);
    expect(await h.show(CHECKOUT, 'apps/shop/checkout.yaml')).toContain('cpu: "700m"');
  });
  it('a taken-over PR closed by deleting its branch (as kerf\'s notice says) hands the change back: kerf opens a fresh PR', async () => {
    h = await standIns.start();
    await h.run();
    await standIns.git.pushAs(OWNER, h.repo, SOMEONE, CHECKOUT, { 'notes.txt': 'mine\n' });
    await runKeepingCommits();
    expect(commentsOn(CHECKOUT)).toHaveLength(1);
    const deleted = await fetch(`${h.gh.url}/repos/${OWNER}/${h.repo}/git/refs/heads/${CHECKOUT}`, { method: 'DELETE', headers: { authorization: `token ${TOKEN}` } });
    expect(deleted.status).toBe(204);
    expect(prsOf(CHECKOUT).map((p) => p.state)).toEqual(['closed']);
    const result = await runKeepingCommits();
    expect(outcome(result, CHECKOUT)?.action).toBe('opened');
    expect(prsOf(CHECKOUT).map((p) => p.state)).toEqual(['closed', 'open']);
  });
});

describe('reconcile: two runs at once', () => {
  it('a lease lost to another kerf run is no take-over: nothing said, the next run goes on; a later person push is still said', async () => {
    h = await standIns.start();
    await h.run();
    await setCheckoutCpu('700m');
    let other: ReconcileResult | undefined;
    const raced = (port: GitPort): GitPort => ({
      ...port,
      async push(sha, branch, expected) {
        // The other run works on the same base and wins the race for the branch. It commits a second
        // later: git dates commits to the second, and two identical commits in one second are one
        // commit, whose push is "up to date" (a race nobody lost).
        if (branch === CHECKOUT && other === undefined) {
          await new Promise((resolve) => setTimeout(resolve, 1100));
          other = await h.run();
        }
        return port.push(sha, branch, expected);
      },
    });
    const loser = await runKeepingCommits({}, { git: raced });
    expect(outcome(other!, CHECKOUT)?.action).toBe('updated');
    expect(outcome(loser, CHECKOUT)).toMatchObject({ action: 'held', reason: expect.stringContaining('another kerf run updated') });
    expect(commentsOn(CHECKOUT)).toEqual([]);

    await setCheckoutCpu('800m');
    const next = await runKeepingCommits();
    expect(outcome(next, CHECKOUT)?.action).toBe('updated');
    expect(await h.show(CHECKOUT, 'apps/shop/checkout.yaml')).toContain('cpu: "800m"');

    const theirs = await standIns.git.pushAs(OWNER, h.repo, SOMEONE, CHECKOUT, { 'notes.txt': 'mine now\n' });
    await runKeepingCommits();
    await runKeepingCommits();
    expect(await h.head(CHECKOUT)).toBe(theirs);
    expect(commentsOn(CHECKOUT)).toEqual([expect.stringContaining(`commit \`${theirs.slice(0, 12)}\` by \`${SOMEONE.email}\` is not kerf's`)]);
  });

  it('a take-over kerf gets back (label removed) and a second take-over is said again', async () => {
    h = await standIns.start();
    await h.run();
    const [pr] = prsOf(CHECKOUT);
    const label = (method: 'POST' | 'DELETE') =>
      fetch(`${h.gh.url}/repos/${OWNER}/${h.repo}/issues/${pr!.number}/labels${method === 'DELETE' ? '/kerf%2Fstop-updating' : ''}`, {
        method,
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        ...(method === 'POST' && { body: JSON.stringify({ labels: ['kerf/stop-updating'] }) }),
      });
    expect((await label('POST')).status).toBe(200);
    await runKeepingCommits();
    expect(commentsOn(CHECKOUT)).toHaveLength(1);
    expect((await label('DELETE')).status).toBe(200);
    await setCheckoutCpu('700m');
    expect(outcome(await runKeepingCommits(), CHECKOUT)?.action).toBe('updated');
    expect((await label('POST')).status).toBe(200);
    await runKeepingCommits();
    await runKeepingCommits();
    expect(commentsOn(CHECKOUT)).toHaveLength(2);
  });
});

describe('reconcile: PR bodies within GitHub\'s limit', () => {
  it('groupBy single over 400 workloads is split into PRs whose bodies fit, each saying so, every workload in exactly one', async () => {
    const count = 400;
    const files: Record<string, string> = {
      '.kerf/config.yaml': 'groupBy: single\nprHourlyLimit: 20\n',
      'policies/fleet.yaml': 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingPolicy\nmetadata: {name: default, namespace: fleet}\nspec: {mode: auto-patch, apply: {strategy: rollout}}\n',
    };
    const recommendations: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `service-with-a-rather-long-name-${String(i).padStart(3, '0')}`;
      files[`apps/${name}.yaml`] = `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: fleet}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: application-server
          image: registry.example/app:1
          resources:
            requests: {cpu: 500m, memory: 512Mi}
`;
      recommendations.push(`apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: ${name}, namespace: fleet}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: ${name}}
  containers:
    - {name: application-server, requests: {cpu: 250m, memory: 384Mi}}
`);
    }
    files['recommendations/fleet.yaml'] = recommendations.join('---\n');
    h = await standIns.start({ baseFiles: files });
    const result = await runKeepingCommits();
    expect(result.errors).toEqual([]);
    const prs = h.gh.state.prs;
    expect(prs.length).toBeGreaterThan(1);
    expect(result.pullRequests.map((pr) => pr.action)).toEqual(prs.map(() => 'opened'));
    for (const [i, pr] of [...prs].sort((a, b) => a.head.localeCompare(b.head)).entries()) {
      expect(pr.head).toBe(`kerf/_all-part-${i + 1}`);
      expect(pr.title).toMatch(new RegExp(`\\(part ${i + 1} of ${prs.length}\\)$`));
      expect((pr.body ?? '').length).toBeLessThanOrEqual(65_536);
      expect(pr.body).toContain(`so this change is split over ${prs.length} pull requests; this is part ${i + 1}.`);
    }
    const targets = prs.flatMap((pr) => readMeta(pr.body)?.targets ?? []);
    expect(targets).toHaveLength(count);
    expect(new Set(targets).size).toBe(count);
  });
});
