// reconcile when things go wrong: people on kerf's branches, races, rejected pushes, GitHub
// faults and rate limits, a repository that forbids Actions to open PRs. Real git and octokit.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubError } from '../../src/github/github.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { EXAMPLE, OWNER, SOMEONE, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';

let git: GitServer;
let h: Harness;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
afterEach(async () => {
  await h?.close();
});

const CHECKOUT = 'kerf/shop/deployment/checkout';

function outcome(result: ReconcileResult, branch: string) {
  return result.pullRequests.find((pr) => pr.branch === branch);
}

function commentsOn(branch: string): string[] {
  const pr = h.gh.state.prs.find((p) => p.head === branch);
  return h.gh.state.comments.filter((c) => c.issueNumber === pr?.number).map((c) => c.body);
}

/** Main gets a new recommendation for checkout, so its kerf branch wants a rebuild. */
async function changeCheckoutRecommendation(cpu = '700m'): Promise<string> {
  const text = (await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8')).replace('requests: {cpu: 600m, memory: 640Mi}', `requests: {cpu: ${cpu}, memory: 640Mi}`);
  return git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': text });
}

/** A pre-receive hook in the bare repo (GitHub's rules and hooks refuse pushes the same way). */
async function installPreReceive(script: string): Promise<void> {
  const hook = join(h.bare, 'hooks/pre-receive');
  await writeFile(hook, `#!/bin/sh\n${script}\n`);
  await chmod(hook, 0o755);
}

describe('reconcile: people on kerf branches', () => {
  it("someone else's commit on a kerf branch stops updates, said once on the PR", async () => {
    h = await startHarness(git);
    await h.run();
    const theirs = await git.pushAs(OWNER, h.repo, SOMEONE, CHECKOUT, { 'apps/shop/checkout.yaml': 'tweaked by hand\n' });
    await changeCheckoutRecommendation();
    const pushes = h.pushes();

    const first = await h.run();
    expect(outcome(first, CHECKOUT)).toMatchObject({ action: 'held', reason: expect.stringContaining(`commit \`${theirs.slice(0, 12)}\` by \`${SOMEONE.email}\` is not kerf's`) });
    expect(await h.head(CHECKOUT)).toBe(theirs);
    const second = await h.run();
    expect(outcome(second, CHECKOUT)?.action).toBe('held');
    expect(await h.head(CHECKOUT)).toBe(theirs);
    expect(h.pushes()).toBe(pushes);
    const comments = commentsOn(CHECKOUT);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatch(/^kerf no longer updates this branch: someone else pushed/);
  });

  it('the label kerf/stop-updating stops updates, said once', async () => {
    h = await startHarness(git);
    await h.run();
    const pr = h.gh.state.prs.find((p) => p.head === CHECKOUT);
    const labelled = await fetch(`${h.gh.url}/repos/${OWNER}/${h.repo}/issues/${pr?.number}/labels`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ labels: ['kerf/stop-updating'] }),
    });
    expect(labelled.status).toBe(200);
    const head = await h.head(CHECKOUT);
    await changeCheckoutRecommendation();
    await h.run();
    await h.run();
    expect(await h.head(CHECKOUT)).toBe(head);
    expect(commentsOn(CHECKOUT)).toEqual([expect.stringContaining('the pull request carries the label kerf/stop-updating')]);
  });

  it('a failed push lease (someone moved the branch meanwhile) stops updating it, never forces', async () => {
    h = await startHarness(git);
    await h.run();
    await changeCheckoutRecommendation();
    let theirs: string | undefined;
    const result = await h.run({}, {
      git: (port) => ({
        ...port,
        async push(sha, branch, expected) {
          if (branch === CHECKOUT) theirs = await git.pushAs(OWNER, h.repo, SOMEONE, CHECKOUT, { 'notes.txt': 'mine\n' });
          return port.push(sha, branch, expected);
        },
      }),
    });
    expect(result.errors).toEqual([]);
    expect(outcome(result, CHECKOUT)).toMatchObject({ action: 'held', reason: expect.stringContaining('the push lease failed') });
    expect(await h.head(CHECKOUT)).toBe(theirs);
    expect(commentsOn(CHECKOUT)).toEqual([expect.stringContaining(`someone else pushed to the branch while kerf was working on it (commit \`${theirs?.slice(0, 12)}\` by \`${SOMEONE.email}\``)]);
  });
});

describe('reconcile: races and rejected pushes', () => {
  it('422 "A pull request already exists" is resolved by finding that PR and updating it', async () => {
    h = await startHarness(git);
    await h.run();
    await changeCheckoutRecommendation();
    // The PR list misses it (as a list read before another run opened it would).
    const result = await h.run({}, { github: (port) => ({ ...port, listOpenPulls: async () => (await port.listOpenPulls()).filter((pr) => pr.branch !== CHECKOUT) }) });
    expect(result.errors).toEqual([]);
    expect(outcome(result, CHECKOUT)?.action).toBe('updated');
    expect(h.gh.state.prs.filter((p) => p.head === CHECKOUT)).toHaveLength(1);
    expect(h.gh.state.prs.find((p) => p.head === CHECKOUT)?.body).toContain('700m');
    expect(h.gh.requests.some((r) => r.method === 'POST' && r.path.endsWith('/pulls') && r.status === 422)).toBe(true);
  });

  it('a push refused because the default branch moved is rebuilt on the new one and retried once', async () => {
    h = await startHarness(git);
    // As a "branch must be up to date" rule would: a kerf branch must sit on main's tip.
    await installPreReceive(`while read old new ref; do
  case "$ref" in refs/heads/kerf/*)
    [ "$(git rev-parse "$new^")" = "$(git rev-parse refs/heads/main)" ] || { echo "$ref is not based on the tip of main"; exit 1; } ;;
  esac
done`);
    let moved: string | undefined;
    const result = await h.run({}, {
      git: (port) => ({
        ...port,
        async push(sha, branch, expected) {
          moved ??= await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'README.md': 'main moved\n' });
          return port.push(sha, branch, expected);
        },
      }),
    });
    expect(result.errors).toEqual([]);
    expect(result.pullRequests.filter((pr) => pr.action === 'opened')).toHaveLength(4);
    for (const pr of h.gh.state.prs) expect(await runGit(['rev-parse', `${pr.headSha}^`], { cwd: h.bare })).toBe(moved);
  });

  it('one failing group does not stop the others', async () => {
    h = await startHarness(git);
    await installPreReceive(`while read old new ref; do
  [ "$ref" = refs/heads/kerf/shop/deployment/frontend ] && { echo "frontend is locked"; exit 1; }
done
exit 0`);
    const result = await h.run();
    expect(result.errors).toEqual([{ branch: 'kerf/shop/deployment/frontend', code: 'PushRejected', message: expect.stringContaining('pre-receive hook declined') }]);
    expect(result.pullRequests.filter((pr) => pr.action === 'opened').map((pr) => pr.branch)).toEqual([
      CHECKOUT,
      'kerf/shop/deployment/orders',
      'kerf/shop/deployment/reports',
    ]);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});

describe('reconcile: GitHub faults', () => {
  it('rides out 5xx answers within the retry budget', async () => {
    h = await startHarness(git);
    h.gh.failNext(2, { status: 502 });
    const result = await h.run();
    expect(result.errors).toEqual([]);
    expect(h.gh.requests.slice(0, 3).map((r) => r.status)).toEqual([502, 502, 200]);
    expect(h.gh.state.prs).toHaveLength(4);
  });

  it('reports 5xx answers beyond the budget, without the token', async () => {
    h = await startHarness(git);
    h.gh.failNext(4);
    const error = await h.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ code: 'GitHubUnavailable', message: expect.stringMatching(/^GitHub: cannot list pull requests in acme\/shop-\d+-\d+: 500/) });
    expect(String((error as Error).message)).not.toContain(TOKEN);
  });

  it('waits out an exhausted primary rate limit until its reset', async () => {
    h = await startHarness(git);
    h.gh.rateLimit({ resetInSeconds: 1 });
    const result = await h.run({}, { budget: { baseMs: 1000 } });
    expect(result.errors).toEqual([]);
    expect(h.gh.requests[0]?.status).toBe(403);
    expect(h.gh.requests[1]?.status).toBe(200);
    expect(h.gh.state.prs).toHaveLength(4);
  });

  it('reports a primary rate limit that lifts later than the budget allows', async () => {
    h = await startHarness(git);
    h.gh.rateLimit({ resetInSeconds: 30 });
    const error = await h.run({}, { budget: { maxWaitSeconds: 5 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RateLimited', message: expect.stringContaining('rate limited until') });
    expect(h.gh.requests).toHaveLength(1);
  });

  it.each([403, 429] as const)('retries a secondary rate limit (%i with retry-after)', async (status) => {
    h = await startHarness(git);
    await h.run();
    await changeCheckoutRecommendation();
    h.gh.secondaryRateLimit({ status, count: 2, retryAfter: 1 });
    const result = await h.run();
    expect(result.errors).toEqual([]);
    expect(outcome(result, CHECKOUT)?.action).toBe('updated');
    expect(h.gh.requests.filter((r) => r.status === status)).toHaveLength(2);
  });

  it('a repository that forbids Actions to open PRs gets a one-line error naming the setting, per group', async () => {
    h = await startHarness(git, { settings: { actionsMayCreatePRs: false } });
    const result = await h.run();
    expect(result.errors).toHaveLength(4);
    for (const error of result.errors) {
      expect(error).toMatchObject({ code: 'ActionsMayNotCreatePullRequests' });
      expect(error.message).toBe(
        `GitHub Actions may not open pull requests in ${OWNER}/${h.repo}: turn on the repository setting "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions)`,
      );
    }
  });
});
