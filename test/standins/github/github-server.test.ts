import { Octokit, RequestError } from 'octokit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../git/git-server.js';
import { runGit } from '../git/run-git.js';
import { startGitHub, type GitHubStandIn } from './github-server.js';

const TOKEN = 'ghs_standin_token';
const OWNER = 'acme';
const kerf = { name: 'kerf', email: 'kerf@example.test' };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let git: GitServer;
let gh: GitHubStandIn;
let repo: string;
let repoCounter = 0;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
beforeEach(async () => {
  repo = `deploy-${++repoCounter}`;
  await git.createBareRepo(OWNER, repo, { files: { 'apps/cart/deployment.yaml': 'cpu: 500m\n' } });
  gh = await startGitHub({ git, token: TOKEN, owner: OWNER, repo });
});
afterEach(async () => {
  await gh.close(); // fails the test if any request or response broke GitHub's schema
});

/**
 * The real client, configured as kerf configures it. The throttling plugin spaces
 * writes 1-3 s apart, so functional tests switch it off; the rate-limit tests turn it on.
 */
function client(options: { throttle?: Partial<NonNullable<ConstructorParameters<typeof Octokit>[0]>['throttle']>; auth?: string } = {}) {
  return new Octokit({
    auth: options.auth ?? TOKEN,
    baseUrl: gh.url,
    log: quiet,
    throttle: {
      enabled: options.throttle !== undefined,
      onRateLimit: () => false,
      onSecondaryRateLimit: () => false,
      ...options.throttle,
    },
  });
}

/** The RequestError a call fails with; a call that succeeds fails the test. */
async function failure(promise: Promise<unknown>): Promise<RequestError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof RequestError)) throw new Error(`expected a RequestError, got ${String(error)}`);
  return error;
}

async function openPull(octokit: Octokit, branch = 'kerf/shop/deployment/cart') {
  await git.pushAs(OWNER, repo, kerf, branch, { 'apps/cart/deployment.yaml': `cpu: 250m # ${branch}\n` });
  const { data } = await octokit.rest.pulls.create({ owner: OWNER, repo, title: `Resize ${branch}`, head: branch, base: 'main', body: 'why' });
  return data;
}

describe('GitHub stand-in: auth and headers', () => {
  it('answers a missing or wrong token with 401, and every answer carries rate-limit headers', async () => {
    const anonymous = new Octokit({ baseUrl: gh.url, log: quiet, throttle: { enabled: false } });
    const error = await failure(anonymous.rest.repos.get({ owner: OWNER, repo }));
    expect(error.status).toBe(401);
    expect(error.response?.data).toMatchObject({ message: 'Requires authentication' });
    expect(error.response?.headers['x-ratelimit-remaining']).toBeDefined();

    const wrong = await failure(client({ auth: 'nope' }).rest.repos.get({ owner: OWNER, repo }));
    expect(wrong.status).toBe(401);
    expect(wrong.response?.data).toMatchObject({ message: 'Bad credentials' });

    const ok = await client().rest.repos.get({ owner: OWNER, repo });
    expect(ok.data).toMatchObject({ default_branch: 'main', full_name: `${OWNER}/${repo}`, permissions: { push: true, admin: false } });
    expect(ok.headers).toMatchObject({ 'x-ratelimit-limit': '5000', 'x-ratelimit-resource': 'core' });
    expect(Number(ok.headers['x-ratelimit-used'])).toBe(Number(ok.headers['x-ratelimit-limit']) - Number(ok.headers['x-ratelimit-remaining']));
    expect(Number(ok.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);

    expect((await failure(client().rest.repos.get({ owner: OWNER, repo: 'elsewhere' }))).status).toBe(404);
  });
});

describe('GitHub stand-in: pull requests', () => {
  it('opens a PR on a pushed branch, refuses a duplicate with 422, and finds it by owner:branch', async () => {
    const octokit = client();
    const pr = await openPull(octokit);
    expect(pr).toMatchObject({ number: 1, state: 'open', title: 'Resize kerf/shop/deployment/cart', body: 'why', merged: false });
    expect(pr.head.sha).toBe(await git.headOf(OWNER, repo, 'kerf/shop/deployment/cart'));
    expect(pr.base).toMatchObject({ ref: 'main', sha: await git.headOf(OWNER, repo, 'main') });
    expect(pr.user.login).toBe('github-actions[bot]');

    const duplicate = await failure(octokit.rest.pulls
      .create({ owner: OWNER, repo, title: 'again', head: 'kerf/shop/deployment/cart', base: 'main' })
      );
    expect(duplicate.status).toBe(422);
    expect(duplicate.response?.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${OWNER}:kerf/shop/deployment/cart.` }],
    });

    const found = await octokit.rest.pulls.list({ owner: OWNER, repo, state: 'open', head: `${OWNER}:kerf/shop/deployment/cart`, base: 'main' });
    expect(found.data.map((p) => p.number)).toEqual([1]);
    const other = await octokit.rest.pulls.list({ owner: OWNER, repo, head: `${OWNER}:kerf/other` });
    expect(other.data).toEqual([]);
    // Without the owner prefix GitHub ignores the filter and lists every PR.
    const unfiltered = await octokit.rest.pulls.list({ owner: OWNER, repo, head: 'kerf/other' });
    expect(unfiltered.data.map((p) => p.number)).toEqual([1]);
  });

  it('refuses a PR whose head branch does not exist (422) and one from Actions when the repo forbids it (403)', async () => {
    const octokit = client();
    const missing = await failure(octokit.rest.pulls.create({ owner: OWNER, repo, title: 't', head: 'kerf/nope', base: 'main' }));
    expect(missing.status).toBe(422);
    expect(missing.response?.data).toMatchObject({ errors: [{ field: 'head', code: 'invalid' }] });

    await git.pushAs(OWNER, repo, kerf, 'kerf/a', { 'a.txt': 'a\n' });
    gh.settings.actionsMayCreatePRs = false;
    const forbidden = await failure(octokit.rest.pulls.create({ owner: OWNER, repo, title: 't', head: 'kerf/a', base: 'main' }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.response?.data).toMatchObject({ message: 'GitHub Actions is not permitted to create or approve pull requests.' });
    expect(gh.state.prs).toEqual([]);
  });

  it('updates title and body, labels, reviewers, comments, and closes', async () => {
    const octokit = client();
    const { number } = await openPull(octokit);
    await octokit.rest.pulls.update({ owner: OWNER, repo, pull_number: number, title: 'New title', body: 'New body' });

    await octokit.rest.issues.addLabels({ owner: OWNER, repo, issue_number: number, labels: ['kerf', 'rightsizing'] });
    await octokit.rest.issues.setLabels({ owner: OWNER, repo, issue_number: number, labels: ['kerf', 'deferred'] });
    const afterRemove = await octokit.rest.issues.removeLabel({ owner: OWNER, repo, issue_number: number, name: 'deferred' });
    expect(afterRemove.data.map((l) => l.name)).toEqual(['kerf']);
    expect((await failure(octokit.rest.issues.removeLabel({ owner: OWNER, repo, issue_number: number, name: 'deferred' }))).status).toBe(404);
    expect((await octokit.rest.issues.listLabelsOnIssue({ owner: OWNER, repo, issue_number: number })).data.map((l) => l.name)).toEqual(['kerf']);

    const requested = await octokit.rest.pulls.requestReviewers({ owner: OWNER, repo, pull_number: number, reviewers: ['alice'], team_reviewers: ['sre'] });
    expect(requested.data.requested_reviewers?.map((u) => u.login)).toEqual(['alice']);
    expect(requested.data.requested_teams?.map((t) => t.slug)).toEqual(['sre']);
    expect((await failure(octokit.rest.pulls.requestReviewers({ owner: OWNER, repo, pull_number: number, reviewers: ['github-actions[bot]'] }))).status).toBe(422);

    await octokit.rest.issues.createComment({ owner: OWNER, repo, issue_number: number, body: 'No longer needed.' });
    const closed = await octokit.rest.pulls.update({ owner: OWNER, repo, pull_number: number, state: 'closed' });
    expect(closed.data).toMatchObject({ state: 'closed', title: 'New title', body: 'New body', merged: false, comments: 1 });
    expect(closed.data.closed_at).not.toBeNull();
    expect(closed.data.labels.map((l) => l.name)).toEqual(['kerf']);

    const comments = await octokit.rest.issues.listComments({ owner: OWNER, repo, issue_number: number });
    expect(comments.data.map((c) => c.body)).toEqual(['No longer needed.']);
    expect((await octokit.rest.pulls.list({ owner: OWNER, repo, state: 'open' })).data).toEqual([]);
    expect((await failure(octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: 99 }))).status).toBe(404);

    const writes = gh.writeRequests().map((r) => `${r.method} ${r.path.replace(`/repos/${OWNER}/${repo}`, '')}`);
    expect(writes).toEqual([
      'POST /pulls',
      'PATCH /pulls/1',
      'POST /issues/1/labels',
      'PUT /issues/1/labels',
      'DELETE /issues/1/labels/deferred',
      'DELETE /issues/1/labels/deferred',
      'POST /pulls/1/requested_reviewers',
      'POST /pulls/1/requested_reviewers',
      'POST /issues/1/comments',
      'PATCH /pulls/1',
    ]);
  });

  it('refuses a PR body or comment over 65,536 characters with 422, as GitHub does', async () => {
    const octokit = client();
    const { number } = await openPull(octokit);
    const tooLong = 'x'.repeat(65_537);
    const update = await failure(octokit.rest.pulls.update({ owner: OWNER, repo, pull_number: number, body: tooLong }));
    expect(update.status).toBe(422);
    expect(JSON.stringify(update.response?.data)).toContain('body is too long (maximum is 65536 characters)');
    expect((await failure(octokit.rest.issues.createComment({ owner: OWNER, repo, issue_number: number, body: tooLong }))).status).toBe(422);
    await octokit.rest.pulls.update({ owner: OWNER, repo, pull_number: number, body: tooLong.slice(1) });
  });

  it('follows the head branch: head.sha moves with pushes and mergeable reflects conflicts', async () => {
    const octokit = client();
    const { number } = await openPull(octokit);
    const moved = await git.pushAs(OWNER, repo, kerf, 'kerf/shop/deployment/cart', { 'extra.txt': 'x\n' });
    let pr = (await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: number })).data;
    expect(pr).toMatchObject({ mergeable: true, mergeable_state: 'clean', head: { sha: moved } });

    await git.pushAs(OWNER, repo, { name: 'Dev', email: 'dev@example.test' }, 'main', { 'apps/cart/deployment.yaml': 'cpu: 1\n' });
    pr = (await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: number })).data;
    expect(pr).toMatchObject({ mergeable: false, mergeable_state: 'dirty' });
  });

  it('merges a PR with a real merge commit into the base branch', async () => {
    const octokit = client();
    const { number, head } = await openPull(octokit);
    const mainBefore = await git.headOf(OWNER, repo, 'main');
    const sha = await gh.mergePullRequest(number);

    expect(await git.headOf(OWNER, repo, 'main')).toBe(sha);
    const parents = await runGit(['log', '-1', '--format=%P', sha], { cwd: git.bareDir(OWNER, repo) });
    expect(parents.split(' ')).toEqual([mainBefore, head.sha]);
    const file = await runGit(['show', `${sha}:apps/cart/deployment.yaml`], { cwd: git.bareDir(OWNER, repo) });
    expect(file).toBe('cpu: 250m # kerf/shop/deployment/cart');
    const pr = (await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: number })).data;
    expect(pr).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: sha });
  });

  it('pages pull requests with Link headers', async () => {
    const octokit = client();
    for (const name of ['a', 'b', 'c']) await openPull(octokit, `kerf/${name}`);
    const all = await octokit.paginate(octokit.rest.pulls.list, { owner: OWNER, repo, per_page: 2 });
    expect(all.map((p) => p.head.ref)).toEqual(['kerf/c', 'kerf/b', 'kerf/a']);
    expect(gh.requests.filter((r) => r.path.includes('/pulls?')).length).toBe(2);
  });
});

describe('GitHub stand-in: statuses, refs, rules, protection', () => {
  it('records commit statuses and combines the latest per context', async () => {
    const octokit = client();
    const { head } = await openPull(octokit);
    const base = { owner: OWNER, repo, sha: head.sha, context: 'kerf/window' };
    await octokit.rest.repos.createCommitStatus({ ...base, state: 'pending', description: 'Next window 2026-12-06T01:00Z' });
    await octokit.rest.repos.createCommitStatus({ ...base, state: 'success', description: 'Window open' });
    await octokit.rest.repos.createCommitStatus({ ...base, context: 'ci', state: 'failure' });

    const combined = await octokit.rest.repos.getCombinedStatusForRef({ owner: OWNER, repo, ref: 'kerf/shop/deployment/cart' });
    expect(combined.data).toMatchObject({ sha: head.sha, state: 'failure', total_count: 2 });
    expect(combined.data.statuses.find((s) => s.context === 'kerf/window')?.state).toBe('success');

    const list = await octokit.rest.repos.listCommitStatusesForRef({ owner: OWNER, repo, ref: head.sha });
    expect(list.data.map((s) => `${s.context}:${s.state}`)).toEqual(['ci:failure', 'kerf/window:success', 'kerf/window:pending']);
    expect((await failure(octokit.rest.repos.createCommitStatus({ ...base, sha: 'f'.repeat(40), state: 'success' }))).status).toBe(422);
    expect((await failure(octokit.rest.repos.getCombinedStatusForRef({ owner: OWNER, repo, ref: 'no/such/branch' }))).status).toBe(404);
  });

  it('reads and deletes branch refs in the bare repository, closing the PR of a deleted head', async () => {
    const octokit = client();
    const { number, head } = await openPull(octokit);
    const ref = await octokit.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/kerf/shop/deployment/cart' });
    expect(ref.data).toMatchObject({ ref: 'refs/heads/kerf/shop/deployment/cart', object: { type: 'commit', sha: head.sha } });

    await octokit.rest.git.deleteRef({ owner: OWNER, repo, ref: 'heads/kerf/shop/deployment/cart' });
    expect(await git.headOf(OWNER, repo, 'kerf/shop/deployment/cart')).toBeNull();
    expect((await octokit.rest.pulls.get({ owner: OWNER, repo, pull_number: number })).data.state).toBe('closed');
    expect((await failure(octokit.rest.git.getRef({ owner: OWNER, repo, ref: 'heads/kerf/shop/deployment/cart' }))).status).toBe(404);
    expect((await failure(octokit.rest.git.deleteRef({ owner: OWNER, repo, ref: 'heads/kerf/shop/deployment/cart' }))).status).toBe(422);
  });

  it('serves rulesets per branch and classic protection only to admins', async () => {
    const octokit = client();
    expect((await octokit.rest.repos.getBranchRules({ owner: OWNER, repo, branch: 'main' })).data).toEqual([]);
    gh.state.branchRules.set('main', [
      {
        type: 'required_status_checks',
        parameters: { strict_required_status_checks_policy: false, required_status_checks: [{ context: 'kerf/window' }] },
        ruleset_source_type: 'Repository',
        ruleset_source: `${OWNER}/${repo}`,
        ruleset_id: 7,
      },
    ]);
    const rules = await octokit.rest.repos.getBranchRules({ owner: OWNER, repo, branch: 'main' });
    expect(rules.data[0]).toMatchObject({ type: 'required_status_checks', ruleset_id: 7 });

    expect((await failure(octokit.rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' }))).status).toBe(403);
    gh.settings.permissions.admin = true;
    expect((await failure(octokit.rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' }))).status).toBe(404);
    gh.state.branchProtection.set('main', {
      enabled: true,
      required_status_checks: { contexts: ['kerf/window'], checks: [{ context: 'kerf/window', app_id: null }], strict: false },
    });
    const protection = await octokit.rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' });
    expect(protection.data.required_status_checks?.contexts).toEqual(['kerf/window']);
  });
});

describe('GitHub stand-in: schema checks and faults', () => {
  it('answers a request body that breaks the schema with 422 and records the violation', async () => {
    const octokit = client();
    const { head } = await openPull(octokit);
    const bad = octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      owner: OWNER,
      repo,
      sha: head.sha,
      state: 'bogus' as 'success',
    });
    expect((await failure(bad)).status).toBe(422);
    expect(gh.takeViolations()).toEqual([expect.stringContaining('$.state: "bogus" is not one of')]);
  });

  it('refuses to send a response that breaks the schema (here: malformed test setup) and records it', async () => {
    gh.settings.permissions.admin = true;
    gh.state.branchProtection.set('main', { required_status_checks: { contexts: ['kerf/window'] } } as never);
    const error = await failure(client().rest.repos.getBranchProtection({ owner: OWNER, repo, branch: 'main' }));
    expect(error.status).toBe(400);
    expect(gh.takeViolations()).toEqual([
      `GET /repos/${OWNER}/${repo}/branches/main/protection response 200 $.required_status_checks: missing required property "checks"`,
    ]);
  });

  it('lets the retry plugin ride out a 502', async () => {
    gh.failNext(1, { status: 502 });
    const octokit = new Octokit({ auth: TOKEN, baseUrl: gh.url, log: quiet, throttle: { enabled: false } });
    const { data } = await octokit.rest.repos.get({ owner: OWNER, repo });
    expect(data.name).toBe(repo);
    expect(gh.requests.map((r) => r.status)).toEqual([502, 200]);
  });

  it('answers an exhausted primary limit with 403, remaining 0 and a reset the throttling plugin waits for', async () => {
    const seen: number[] = [];
    const octokit = client({
      throttle: {
        onRateLimit: (retryAfter: number, options: { request: { retryCount: number } }) => {
          seen.push(retryAfter);
          return options.request.retryCount === 0;
        },
      },
    });
    gh.rateLimit({ resetInSeconds: 1 });
    const started = Date.now();
    const { data } = await octokit.rest.repos.get({ owner: OWNER, repo });
    expect(data.name).toBe(repo);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(gh.requests.map((r) => r.status)).toEqual([403, 200]);
  });

  it('surfaces the primary limit as 403 when onRateLimit declines', async () => {
    gh.rateLimit({ resetInSeconds: 1 });
    const error = await failure(client({ throttle: { onRateLimit: () => false } })
      .rest.repos.get({ owner: OWNER, repo })
      );
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/^API rate limit exceeded for /);
    expect(error.response?.headers['x-ratelimit-remaining']).toBe('0');
    const reset = Number(error.response?.headers['x-ratelimit-reset']) * 1000;
    expect(reset - Date.now()).toBeGreaterThan(0);
    expect(reset - Date.now()).toBeLessThanOrEqual(2000);
  });

  it.each([
    { code: 403, doNotRetry: undefined },
    // octokit's retry plugin sits inside the throttling plugin and retries 429 itself unless told not to.
    { code: 429, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
  ] as const)('answers a secondary limit with $code and retry-after, retried once by the throttling plugin', async ({ code, doNotRetry }) => {
    const seen: number[] = [];
    const octokit = new Octokit({
      auth: TOKEN,
      baseUrl: gh.url,
      log: quiet,
      ...(doNotRetry ? { retry: { doNotRetry: [...doNotRetry] } } : {}),
      throttle: {
        onRateLimit: () => false,
        onSecondaryRateLimit: (retryAfter: number, options: { request: { retryCount: number } }) => {
          seen.push(retryAfter);
          return options.request.retryCount === 0;
        },
      },
    });
    gh.secondaryRateLimit({ status: code, retryAfter: 1 });
    const { data } = await octokit.rest.pulls.list({ owner: OWNER, repo });
    expect(data).toEqual([]);
    expect(seen).toEqual([1]);
    expect(gh.requests.map((r) => r.status)).toEqual([code, 200]);
  });

  it('with octokit defaults a 429 secondary limit is retried by the retry plugin, not the throttling plugin', async () => {
    const seen: number[] = [];
    const octokit = client({ throttle: { onSecondaryRateLimit: (retryAfter: number) => (seen.push(retryAfter), false) } });
    gh.secondaryRateLimit({ status: 429 });
    await octokit.rest.pulls.list({ owner: OWNER, repo });
    expect(seen).toEqual([]);
    expect(gh.requests.map((r) => r.status)).toEqual([429, 200]);
  });
});
