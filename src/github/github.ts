// The GitHub port: exactly the REST calls the reconcile run makes, over one octokit client whose
// retry and throttling plugins ride out 5xx answers and rate limits within a budget.
import { Octokit, RequestError } from 'octokit';
import type { Logger } from '../util/logger.js';
import { redact } from '../util/redact.js';

/** The commit status context of the window check (G6), which branch protection requires. */
export const WINDOW_STATUS_CONTEXT = 'kerf/window';

export type WindowStatusState = 'success' | 'pending' | 'failure';

export interface WindowStatus {
  state: WindowStatusState;
  description: string;
}

/** Whether the default branch requires the `kerf/window` status (a ruleset or branch protection). */
export type BranchProtection =
  | { state: 'required'; branch: string }
  | { state: 'missing'; branch: string }
  | { state: 'unknown'; branch: string; detail: string };

/** One pull request's merge state. */
export interface PullRequestState {
  number: number;
  merged: boolean;
  /** RFC 3339; null until merged. */
  mergedAt: string | null;
  mergeCommitSha: string | null;
}

export interface OpenPullRequest {
  number: number;
  url: string;
  branch: string;
  base: string;
  headSha: string;
  title: string;
  body: string;
  labels: string[];
  /** RFC 3339, when GitHub created it (the hourly PR limit counts these). */
  createdAt: string;
  /** GraphQL node id (for mutations REST lacks, such as enabling auto-merge). */
  nodeId: string;
  /** Auto-merge is enabled on it. */
  autoMerge: boolean;
}

export interface IssueRef {
  number: number;
  url: string;
  body: string;
}

export interface ClosedPullRequest {
  number: number;
  url: string;
  body: string;
  merged: boolean;
}

export interface GitHubPort {
  /** `owner/repo` */
  readonly repository: string;
  /** The repository's web address (`https://github.com/owner/repo`), for links in PR bodies. */
  readonly webUrl?: string;
  /** Every open PR whose head branch lives in this repository (forks are not kerf's). */
  listOpenPulls(): Promise<OpenPullRequest[]>;
  findOpenPull(branch: string, base: string): Promise<OpenPullRequest | null>;
  /** One pull request's merge state (G5 needs the merge commit and time). */
  getPull(number: number): Promise<PullRequestState>;
  createPull(input: { branch: string; base: string; title: string; body: string }): Promise<OpenPullRequest>;
  updatePull(number: number, input: { title?: string; body?: string; state?: 'closed' }): Promise<void>;
  addLabels(number: number, labels: readonly string[]): Promise<void>;
  requestReviewers(number: number, input: { reviewers: readonly string[]; teamReviewers: readonly string[] }): Promise<void>;
  /** Closed PRs of `branch` into `base`, newest first: a person's close is a decision kerf reads back. */
  listClosedPulls(branch: string, base: string): Promise<ClosedPullRequest[]>;
  comment(number: number, body: string): Promise<void>;
  /** The latest `kerf/window` status of a commit, or null when it has none. */
  getWindowStatus(sha: string): Promise<WindowStatus | null>;
  setWindowStatus(sha: string, status: WindowStatus): Promise<void>;
  /** The oldest open issue (not PR) whose body holds `marker`, or null. */
  findIssue(marker: string): Promise<IssueRef | null>;
  createIssue(input: { title: string; body: string }): Promise<IssueRef>;
  updateIssue(number: number, input: { body: string }): Promise<void>;
  /**
   * Enables GitHub auto-merge (GraphQL `enablePullRequestAutoMerge`): GitHub merges the PR once its
   * required checks pass. `mergeable` when GitHub refuses because the PR can be merged right now.
   */
  enableAutoMerge(pr: Pick<OpenPullRequest, 'number' | 'nodeId'>): Promise<'enabled' | 'mergeable'>;
  /**
   * Whether `branch` (default: the repository's default branch) requires the `kerf/window` status,
   * by a ruleset or else by classic protection; `unknown`, with why, when GitHub will not tell.
   */
  windowProtection(branch?: string): Promise<BranchProtection>;
}

/** How long kerf keeps retrying one request before it reports the failure. */
export interface RetryBudget {
  /** Retries per request, for server errors and for rate limits alike. */
  retries: number;
  /** A rate limit that lifts later than this is reported at once instead of waited for. */
  maxWaitSeconds: number;
  /** Milliseconds per second of advertised wait (1000 in earnest; tests shrink it). */
  baseMs: number;
}

/** Minimum spacing of writes, as GitHub asks of integrations (one at a time, ≥ 1 s; ≥ 3 s for those that notify). */
export interface Pacing {
  writeMs: number;
  notificationMs: number;
}

export interface GitHubOptions {
  token: string;
  /** `GITHUB_API_URL`: https://api.github.com, or `https://HOST/api/v3` on GitHub Enterprise Server. */
  apiUrl: string;
  /** `GITHUB_REPOSITORY`: `owner/repo`. */
  repository: string;
  budget?: Partial<RetryBudget>;
  pacing?: Partial<Pacing>;
  log?: Logger;
}

export const DEFAULT_BUDGET: RetryBudget = { retries: 3, maxWaitSeconds: 300, baseMs: 1000 };
export const DEFAULT_PACING: Pacing = { writeMs: 1000, notificationMs: 3000 };

export type GitHubErrorCode =
  | 'MissingGitHubEnvironment'
  | 'ActionsMayNotCreatePullRequests'
  | 'MissingPermission'
  | 'RateLimited'
  | 'GitHubUnavailable'
  | 'PullRequestExists'
  | 'AutoMergeUnavailable'
  | 'GitHubRequestFailed';

export class GitHubError extends Error {
  constructor(
    readonly code: GitHubErrorCode,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GitHubError';
  }
}

/** `GITHUB_API_URL`, `GITHUB_REPOSITORY` and `GITHUB_TOKEN`, as a workflow run has them. */
export function gitHubOptionsFromEnv(env: NodeJS.ProcessEnv): Pick<GitHubOptions, 'token' | 'apiUrl' | 'repository'> {
  const token = env.GITHUB_TOKEN ?? '';
  const repository = env.GITHUB_REPOSITORY ?? '';
  const missing = [!token && 'GITHUB_TOKEN', !repository && 'GITHUB_REPOSITORY'].filter(Boolean);
  if (missing.length > 0) {
    throw new GitHubError('MissingGitHubEnvironment', `reconcile needs ${missing.join(' and ')} in the environment (or --dry-run, which needs neither)`);
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    throw new GitHubError('MissingGitHubEnvironment', `GITHUB_REPOSITORY must be owner/repo, got ${JSON.stringify(repository)}`);
  }
  return { token, repository, apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '') };
}

/** The call that failed, and the permission a token needs for it (named in errors). */
type Operation = keyof typeof PERMISSIONS;
const PERMISSIONS = {
  'list pull requests': 'pull-requests: read',
  'open a pull request': 'pull-requests: write',
  'update a pull request': 'pull-requests: write',
  'label a pull request': 'pull-requests: write',
  'request reviewers': 'pull-requests: write',
  'read a pull request': 'pull-requests: read',
  'comment': 'pull-requests: write',
  'read commit statuses': 'statuses: read',
  'set a commit status': 'statuses: write',
  'enable auto-merge': 'pull-requests: write',
  'list issues': 'issues: read',
  'open an issue': 'issues: write',
  'update an issue': 'issues: write',
  'read the repository': 'metadata: read',
  'read branch rules': 'metadata: read',
  'read branch protection': 'administration: read',
} as const;

const ACTIONS_MAY_NOT = /not permitted to create or approve pull requests/i;

/** Turns octokit's RequestError into a one-line GitHubError that names what to change; never shows the token. */
export function describeRequestError(error: unknown, operation: Operation, repository: string, token: string): GitHubError {
  if (!(error instanceof RequestError)) {
    return new GitHubError('GitHubRequestFailed', redact(`GitHub: cannot ${operation} in ${repository}: ${String((error as Error)?.message ?? error)}`, [token]), undefined, { cause: error });
  }
  const status = error.status;
  const message = redact(String((error.response?.data as { message?: unknown } | undefined)?.message ?? error.message), [token]);
  const headers = error.response?.headers ?? {};
  const details = JSON.stringify((error.response?.data as { errors?: unknown } | undefined)?.errors ?? '');
  const fail = (code: GitHubErrorCode, text: string) => new GitHubError(code, redact(text, [token]), status);
  if (status === 403 && ACTIONS_MAY_NOT.test(message)) {
    return fail(
      'ActionsMayNotCreatePullRequests',
      `GitHub Actions may not open pull requests in ${repository}: turn on the repository setting "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions)`,
    );
  }
  if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))) {
    const reset = Number(headers['x-ratelimit-reset']);
    const until = headers['x-ratelimit-remaining'] === '0' && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : '';
    return fail('RateLimited', `GitHub: cannot ${operation} in ${repository}: rate limited${until} (${message}); kerf gave up after its retries`);
  }
  if (status === 422 && /already exists/i.test(details)) {
    return fail('PullRequestExists', `GitHub: a pull request for this branch already exists in ${repository}`);
  }
  const writes = PERMISSIONS[operation].endsWith('write');
  if (status === 403 || (status === 404 && writes)) {
    return fail('MissingPermission', `GitHub refused to ${operation} in ${repository} (${status} ${message}): the token needs the permission "${PERMISSIONS[operation]}"`);
  }
  if (status >= 500) return fail('GitHubUnavailable', `GitHub: cannot ${operation} in ${repository}: ${status} ${message}, still failing after retries`);
  return fail('GitHubRequestFailed', `GitHub: cannot ${operation} in ${repository}: ${status} ${message}${details !== '""' ? ` ${details}` : ''}`);
}

/**
 * A stand-in for the throttling plugin's Bottleneck groups (its `write` and `notifications`
 * options): the same one-at-a-time spacing, with a configurable minimum so tests need not
 * wait 3 s per comment.
 */
class PacedQueue {
  #chain: Promise<unknown> = Promise.resolve();
  #nextStart = 0;
  constructor(private readonly minTimeMs: number) {}
  key(): this {
    return this;
  }
  schedule<T>(_jobOptions: unknown, job: (...args: unknown[]) => Promise<T>, ...args: unknown[]): Promise<T> {
    const run = this.#chain.then(async () => {
      const wait = this.#nextStart - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.#nextStart = Date.now() + this.minTimeMs;
      return job(...args);
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }
}

type ThrottleOptions = Extract<NonNullable<NonNullable<ConstructorParameters<typeof Octokit>[0]>['throttle']>, { onRateLimit: unknown }>;
type ThrottleGroup = NonNullable<ThrottleOptions['write']>;

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface PullLike {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  created_at: string;
  node_id: string;
  auto_merge?: unknown;
  head: { ref: string; sha: string; repo?: { full_name: string } | null };
  base: { ref: string };
  labels: { name?: string }[];
}

function toPull(pr: PullLike): OpenPullRequest {
  return {
    number: pr.number,
    url: pr.html_url,
    branch: pr.head.ref,
    base: pr.base.ref,
    headSha: pr.head.sha,
    title: pr.title,
    body: pr.body ?? '',
    labels: pr.labels.map((label) => label.name ?? '').filter(Boolean),
    createdAt: pr.created_at,
    nodeId: pr.node_id,
    autoMerge: pr.auto_merge !== null && pr.auto_merge !== undefined,
  };
}

const ENABLE_AUTO_MERGE = `mutation($id: ID!) { enablePullRequestAutoMerge(input: {pullRequestId: $id}) { pullRequest { number } } }`;
/** GitHub's answer when the PR could be merged at once: nothing to wait for, so nothing to enable. */
const CLEAN_STATUS = /clean status/i;

/** `https://api.github.com` → `https://github.com`; GitHub Enterprise Server's `https://HOST/api/v3` → `https://HOST`. */
export function webBase(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (url.hostname === 'api.github.com') return 'https://github.com';
  if (url.hostname.startsWith('api.')) return `${url.protocol}//${url.host.slice(4)}`;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/api\/v3\/?$/, '')}`;
}

export function createGitHub(options: GitHubOptions): GitHubPort {
  const budget = { ...DEFAULT_BUDGET, ...options.budget };
  const pacing = { ...DEFAULT_PACING, ...options.pacing };
  const log = options.log ?? quiet;
  const [owner = '', repo = ''] = options.repository.split('/');
  const keepTrying = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    const retry = retryCount < budget.retries && retryAfter <= budget.maxWaitSeconds;
    log.warn(`GitHub ${kind} rate limit`, { method: request.method, url: request.url, retryAfter, retry });
    return retry;
  };
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: options.apiUrl,
    log: {
      debug: (message: string) => log.debug(redact(message, [options.token])),
      info: (message: string) => log.debug(redact(message, [options.token])),
      warn: (message: string) => log.warn(redact(message, [options.token])),
      error: (message: string) => log.error(redact(message, [options.token])),
    },
    // 429 is left to the throttling plugin, which reads retry-after; the retry plugin would guess.
    retry: { retries: budget.retries, retryAfterBaseValue: budget.baseMs, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    throttle: {
      retryAfterBaseValue: budget.baseMs,
      // A secondary limit without retry-after: wait a minute, as GitHub's guidance says.
      fallbackSecondaryRateRetryAfter: 60,
      onRateLimit: keepTrying('primary'),
      onSecondaryRateLimit: keepTrying('secondary'),
      write: new PacedQueue(pacing.writeMs) as unknown as ThrottleGroup,
      notifications: new PacedQueue(pacing.notificationMs) as unknown as ThrottleGroup,
    },
  });
  const call = async <T>(operation: Operation, request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      throw describeRequestError(error, operation, options.repository, options.token);
    }
  };
  /** Rulesets first (readable with metadata read); classic protection only admins may read. */
  const requiresWindow = async (branch: string): Promise<boolean> => {
    const rules = await call('read branch rules', () => octokit.paginate(octokit.rest.repos.getBranchRules, { owner, repo, branch, per_page: 100 }));
    const byRuleset = rules.some(
      (rule) => rule.type === 'required_status_checks' && rule.parameters?.required_status_checks.some((check) => check.context === WINDOW_STATUS_CONTEXT),
    );
    if (byRuleset) return true;
    try {
      const checks = (await octokit.rest.repos.getBranchProtection({ owner, repo, branch })).data.required_status_checks;
      return [...(checks?.contexts ?? []), ...(checks?.checks ?? []).map((check) => check.context)].includes(WINDOW_STATUS_CONTEXT);
    } catch (error) {
      // "Branch not protected" is an answer; a 404 without it is GitHub hiding protection from a non-admin.
      if (error instanceof RequestError && error.status === 404 && /not protected/i.test(String((error.response?.data as { message?: unknown } | undefined)?.message))) return false;
      throw describeRequestError(error, 'read branch protection', options.repository, options.token);
    }
  };
  const ours = (pr: PullLike) => !pr.head.repo || pr.head.repo.full_name.toLowerCase() === options.repository.toLowerCase();

  return {
    repository: options.repository,
    webUrl: `${webBase(options.apiUrl)}/${options.repository}`,
    listOpenPulls: () =>
      call('list pull requests', async () =>
        (await octokit.paginate(octokit.rest.pulls.list, { owner, repo, state: 'open', per_page: 100 })).filter(ours).map(toPull),
      ),
    findOpenPull: (branch, base) =>
      call('list pull requests', async () => {
        const { data } = await octokit.rest.pulls.list({ owner, repo, state: 'open', head: `${owner}:${branch}`, base });
        const [found] = data.filter(ours).map(toPull);
        return found ?? null;
      }),
    getPull: (number) =>
      call('read a pull request', async () => {
        const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
        return { number, merged: data.merged, mergedAt: data.merged_at, mergeCommitSha: data.merged ? data.merge_commit_sha : null };
      }),
    createPull: ({ branch, base, title, body }) =>
      call('open a pull request', async () => toPull((await octokit.rest.pulls.create({ owner, repo, head: branch, base, title, body })).data)),
    updatePull: (number, input) =>
      call('update a pull request', async () => {
        await octokit.rest.pulls.update({ owner, repo, pull_number: number, ...input });
      }),
    addLabels: (number, labels) =>
      call('label a pull request', async () => {
        await octokit.rest.issues.addLabels({ owner, repo, issue_number: number, labels: [...labels] });
      }),
    requestReviewers: (number, { reviewers, teamReviewers }) =>
      call('request reviewers', async () => {
        await octokit.rest.pulls.requestReviewers({ owner, repo, pull_number: number, reviewers: [...reviewers], team_reviewers: [...teamReviewers] });
      }),
    listClosedPulls: (branch, base) =>
      call('list pull requests', async () =>
        (await octokit.paginate(octokit.rest.pulls.list, { owner, repo, state: 'closed', head: `${owner}:${branch}`, base, per_page: 100 }))
          .filter(ours)
          .map((pr) => ({ number: pr.number, url: pr.html_url, body: pr.body ?? '', merged: pr.merged_at !== null })),
      ),
    comment: (number, body) =>
      call('comment', async () => {
        await octokit.rest.issues.createComment({ owner, repo, issue_number: number, body });
      }),
    getWindowStatus: (sha) =>
      call('read commit statuses', async () => {
        const { data } = await octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha });
        const status = data.statuses.find((s) => s.context === WINDOW_STATUS_CONTEXT);
        if (!status) return null;
        return { state: status.state as WindowStatus['state'], description: status.description ?? '' };
      }),
    setWindowStatus: (sha, status) =>
      call('set a commit status', async () => {
        await octokit.rest.repos.createCommitStatus({ owner, repo, sha, context: WINDOW_STATUS_CONTEXT, state: status.state, description: status.description });
      }),
    findIssue: (marker) =>
      call('list issues', async () => {
        const issues = await octokit.paginate(octokit.rest.issues.listForRepo, { owner, repo, state: 'open', per_page: 100 });
        const found = issues.filter((issue) => !issue.pull_request && (issue.body ?? '').includes(marker)).sort((a, b) => a.number - b.number)[0];
        return found ? { number: found.number, url: found.html_url, body: found.body ?? '' } : null;
      }),
    createIssue: ({ title, body }) =>
      call('open an issue', async () => {
        const { data } = await octokit.rest.issues.create({ owner, repo, title, body });
        return { number: data.number, url: data.html_url, body: data.body ?? body };
      }),
    updateIssue: (number, { body }) =>
      call('update an issue', async () => {
        await octokit.rest.issues.update({ owner, repo, issue_number: number, body });
      }),
    enableAutoMerge: async (pr) => {
      try {
        await call('enable auto-merge', () => octokit.graphql(ENABLE_AUTO_MERGE, { id: pr.nodeId }));
        return 'enabled';
      } catch (error) {
        // octokit's GraphqlResponseError (a 200 answer carrying `errors`) is not exported by the octokit package.
        const graphql = (error as GitHubError).cause as { name?: string; errors?: { message: string }[]; message?: string } | undefined;
        if (graphql?.name !== 'GraphqlResponseError') throw error;
        const message = graphql.errors?.map((e) => e.message).join('; ') ?? String(graphql.message);
        if (CLEAN_STATUS.test(message)) return 'mergeable';
        throw new GitHubError('AutoMergeUnavailable', redact(`GitHub would not enable auto-merge on #${pr.number} in ${options.repository}: ${message} (allow auto-merge in Settings → General, and require the kerf/window check on the base branch)`, [options.token]), undefined, { cause: error });
      }
    },
    windowProtection: async (branch) => {
      let name = branch;
      try {
        name ??= (await call('read the repository', () => octokit.rest.repos.get({ owner, repo }))).data.default_branch;
        return { state: (await requiresWindow(name)) ? 'required' : 'missing', branch: name };
      } catch (error) {
        // Doctor's question, not a run's: whatever kept GitHub from answering (no admin rights for
        // classic protection, an outage) makes the answer unknown, with the reason.
        if (error instanceof GitHubError) return { state: 'unknown', branch: name ?? 'the default branch', detail: error.message };
        throw error;
      }
    },
  };
}
