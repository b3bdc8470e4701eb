import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { branchHead, mergeBranch } from '../git/bare-repo.js';
import type { GitServer } from '../git/git-server.js';
import { runGit } from '../git/run-git.js';
import { githubObjects, type PullRequestRecord } from './github-objects.js';
import {
  GitHubError,
  githubRoutes,
  validationFailed,
  type GitHubSettings,
  type GitHubState,
  type Reply,
} from './github-routes.js';
import { apiSubset, matchOperation, type ServedOperation } from './openapi-subset.js';
import { validateSchema } from './schema-validator.js';

export interface StartGitHubOptions {
  git: GitServer;
  token: string;
  owner: string;
  repo: string;
  /** Overrides of the defaults: login `github-actions[bot]`, Actions may create PRs, push but not admin. */
  settings?: Partial<GitHubSettings>;
}

export interface LoggedRequest {
  method: string;
  /** Path and query, e.g. `/repos/acme/deploy/pulls?state=open`. */
  path: string;
  /** Parsed JSON body, undefined without one. */
  body: unknown;
  status: number;
}

export interface GitHubStandIn {
  /** The API root to pass as `baseUrl` / GITHUB_API_URL. */
  readonly url: string;
  readonly state: GitHubState;
  /** Mutable: flip `actionsMayCreatePRs` or permissions between calls. */
  readonly settings: GitHubSettings;
  /** Every request answered, in order, including faults and rejections. */
  readonly requests: LoggedRequest[];
  /** Requests that are not GET/HEAD. */
  writeRequests(): LoggedRequest[];
  /** Schema violations (request bodies, responses) and stand-in failures seen so far; `close()` fails while any remain. */
  readonly violations: string[];
  /** Returns and forgets the violations, for tests that provoke one on purpose. */
  takeViolations(): string[];
  /** The next `count` requests fail with a server error. */
  failNext(count: number, options?: { status?: 500 | 502 | 503 }): void;
  /** Exhausts the primary rate limit until a reset `resetInSeconds` (default 1) ahead. */
  rateLimit(options?: { resetInSeconds?: number }): void;
  /** The next `count` requests hit a secondary rate limit (`retry-after`). */
  secondaryRateLimit(options?: { count?: number; status?: 403 | 429; retryAfter?: number }): void;
  /** Merges PR `number` into its base with a real merge commit; resolves with the merge commit sha. */
  mergePullRequest(number: number): Promise<string>;
  close(): Promise<void>;
}

const RATE_LIMIT = 5000;
const MERGER = { name: 'GitHub', email: 'noreply@github.com' };

/** A stateful GitHub REST stand-in for one repository, backed by the git stand-in's bare repository. */
export async function startGitHub(options: StartGitHubOptions): Promise<GitHubStandIn> {
  const api = apiSubset();
  const bareDir = options.git.bareDir(options.owner, options.repo);
  const defaultBranch = await runGit(['symbolic-ref', '--short', 'HEAD'], { cwd: bareDir });
  const settings: GitHubSettings = {
    login: 'github-actions[bot]',
    actionsMayCreatePRs: true,
    allowAutoMerge: true,
    ...options.settings,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true, ...options.settings?.permissions },
  };
  const state: GitHubState = {
    prs: [],
    issues: [],
    comments: [],
    statuses: [],
    labels: [],
    branchRules: new Map(),
    branchProtection: new Map(),
  };
  const requests: LoggedRequest[] = [];
  const violations: string[] = [];
  const counters = new Map<string, number>();
  const nextId = (kind: string): number => {
    const next = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, next);
    return next;
  };
  const ids = new Map<string, number>();
  const idOf = (kind: string, name: string): number => {
    const key = `${kind}:${name}`;
    if (!ids.has(key)) ids.set(key, 1000 + ids.size);
    return ids.get(key)!;
  };
  const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const faults = { serverErrors: [] as number[], secondary: [] as { status: number; retryAfter: number }[] };
  const quota = { used: 0, windowReset: Math.ceil(Date.now() / 1000) + 3600, exhaustedUntil: 0 };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const objects = githubObjects({
    apiUrl: url,
    htmlUrl: options.git.baseUrl,
    owner: options.owner,
    repo: options.repo,
    defaultBranch,
    permissions: settings.permissions,
    idOf,
  });
  const routes = githubRoutes({
    owner: options.owner,
    repo: options.repo,
    bareDir,
    defaultBranch,
    state,
    settings,
    objects,
    nextId,
    now,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(req.url ?? '/', url);
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    let body: unknown;
    let reply: Reply;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
      reply = await answer(method, target, body, req.headers.authorization);
    } catch (error) {
      if (error instanceof SyntaxError) {
        reply = errorReply(new GitHubError(400, 'Problems parsing JSON'));
      } else {
        // A defect of the stand-in, not a GitHub behaviour: fail loudly, and with 400 so octokit does not retry it.
        violations.push(`${method} ${target.pathname} stand-in failure: ${String(error)}`);
        reply = { status: 400, body: { message: `GitHub stand-in failed: ${String(error)}` } };
      }
    }
    requests.push({ method, path: target.pathname + target.search, body, status: reply.status });
    const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...rateLimitHeaders(),
      ...(payload ? { 'content-type': 'application/json; charset=utf-8' } : {}),
      ...reply.headers,
    });
    res.end(payload);
  }

  async function answer(method: string, target: URL, body: unknown, authorization: string | undefined): Promise<Reply> {
    const credentials = /^(?:token|bearer)\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (credentials !== options.token) {
      return errorReply(new GitHubError(401, credentials === undefined ? 'Requires authentication' : 'Bad credentials'));
    }
    quota.used += 1;
    const injected = injectedFault();
    if (injected) return injected;

    if (method === 'POST' && target.pathname === '/graphql') return graphql(body);
    const matched = matchOperation(api, method, target.pathname);
    if (!matched || matched.params.owner !== options.owner || matched.params.repo !== options.repo) {
      return errorReply(new GitHubError(404, 'Not Found'));
    }
    const { operation, params } = matched;
    const bodyProblems = checkRequestBody(operation, body);
    if (bodyProblems.length > 0) {
      violations.push(...bodyProblems.map((p) => `${method} ${target.pathname} request ${p}`));
      return errorReply(validationFailed(...bodyProblems.map((message) => ({ resource: 'Request', code: 'invalid', message }))));
    }
    const handler = routes[operation.operationId];
    if (!handler) throw new Error(`no handler for ${operation.operationId}`);
    let reply: Reply;
    try {
      reply = await handler({ params, query: target.searchParams, body });
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      reply = errorReply(error);
    }
    // A status that turns the required checks green merges a PR with auto-merge, as GitHub does.
    if (operation.operationId === 'repos/create-commit-status' && reply.status < 300) await autoMergeReady();
    const responseProblems = checkResponse(operation, reply);
    if (responseProblems.length > 0) {
      violations.push(...responseProblems.map((p) => `${method} ${target.pathname} response ${reply.status} ${p}`));
      // 400 is not retried by octokit, so the caller sees the stand-in's defect at once.
      return { status: 400, body: { message: `GitHub stand-in answered off-schema: ${responseProblems.join('; ')}` } };
    }
    return reply;
  }

  /** Contexts the base branch requires, by ruleset or classic protection. */
  function requiredContexts(base: string): string[] {
    const byRules = (state.branchRules.get(base) ?? []).flatMap((rule) =>
      rule.type === 'required_status_checks' ? rule.parameters?.required_status_checks.map((check) => check.context) ?? [] : [],
    );
    const classic = state.branchProtection.get(base)?.required_status_checks;
    return [...new Set([...byRules, ...(classic?.contexts ?? [])])];
  }

  function checksPass(pr: PullRequestRecord): boolean {
    const latest = new Map<string, string>();
    for (const status of [...state.statuses].reverse()) if (status.sha === pr.headSha && !latest.has(status.context)) latest.set(status.context, status.state);
    return requiredContexts(pr.base).every((context) => latest.get(context) === 'success');
  }

  /** Merges every open PR with auto-merge whose required checks all pass on its current head. */
  async function autoMergeReady(): Promise<void> {
    for (const pr of state.prs) {
      if (pr.state !== 'open' || !pr.autoMerge) continue;
      const head = await branchHead(bareDir, pr.head);
      if (head) pr.headSha = head;
      if (checksPass(pr)) await mergePull(pr.number);
    }
  }

  /** The one GraphQL mutation kerf sends; errors come back as HTTP 200 with `errors`, as GitHub answers them. */
  async function graphql(body: unknown): Promise<Reply> {
    const { query, variables } = (body ?? {}) as { query?: string; variables?: { id?: string } };
    const fail = (type: string, message: string): Reply => ({ status: 200, body: { data: null, errors: [{ type, path: ['enablePullRequestAutoMerge'], message }] } });
    if (typeof query !== 'string' || !/^\s*mutation\b[^{]*\{\s*enablePullRequestAutoMerge\s*\(\s*input:\s*\{\s*pullRequestId:\s*\$id\s*\}\s*\)/.test(query)) {
      violations.push(`POST /graphql: the stand-in serves only enablePullRequestAutoMerge(input: {pullRequestId: $id}), got ${JSON.stringify(query)}`);
      return { status: 400, body: { message: 'GitHub stand-in: unsupported GraphQL query' } };
    }
    const id = variables?.id;
    const pr = state.prs.find((candidate) => Buffer.from(`PullRequest:${candidate.id}`).toString('base64') === id);
    if (!pr) return fail('NOT_FOUND', `Could not resolve to a node with the global id of '${String(id)}'.`);
    if (!settings.permissions.push) return fail('FORBIDDEN', `${settings.login} does not have permission to enable auto-merge on this pull request.`);
    if (!settings.allowAutoMerge) return fail('UNPROCESSABLE', 'Pull request Auto merge is not allowed for this repository');
    if (pr.state !== 'open') return fail('UNPROCESSABLE', 'Pull request Pull request is closed');
    const head = await branchHead(bareDir, pr.head);
    if (head) pr.headSha = head;
    if (checksPass(pr)) return fail('UNPROCESSABLE', 'Pull request Pull request is in clean status');
    pr.autoMerge = { enabledBy: settings.login, mergeMethod: 'merge' };
    pr.updatedAt = now();
    return { status: 200, body: { data: { enablePullRequestAutoMerge: { pullRequest: { number: pr.number } } } } };
  }

  /** Merges PR `number` into its base with a real merge commit, as the merge button does. */
  async function mergePull(number: number): Promise<string> {
    const pr = state.prs.find((candidate) => candidate.number === number);
    if (!pr || pr.state !== 'open') throw new Error(`pull request #${number} is not open`);
    const sha = await mergeBranch(bareDir, {
      base: pr.base,
      head: pr.head,
      message: `Merge pull request #${number} from ${options.owner}/${pr.head}\n\n${pr.title}`,
      identity: MERGER,
    });
    const at = now();
    Object.assign(pr, { state: 'closed', merged: true, mergedAt: at, closedAt: at, updatedAt: at, mergeCommitSha: sha });
    return sha;
  }

  function checkRequestBody(operation: ServedOperation, body: unknown): string[] {
    if (!operation.requestSchema) return body === undefined ? [] : ['body given to an operation that takes none'];
    if (body === undefined) return operation.requestRequired ? ['body missing'] : [];
    return validateSchema(operation.requestSchema, body, api.resolveRef);
  }

  function checkResponse(operation: ServedOperation, reply: Reply): string[] {
    const documented = operation.responses.get(reply.status);
    if (reply.status >= 400) return validateSchema(documented ?? api.basicError, reply.body, api.resolveRef);
    if (documented === undefined) return [`status ${reply.status} is not documented`];
    if (documented === null) return reply.body === undefined ? [] : ['body where GitHub sends none'];
    return validateSchema(documented, reply.body, api.resolveRef);
  }

  function injectedFault(): Reply | null {
    const serverError = faults.serverErrors.shift();
    if (serverError !== undefined) return { status: serverError, body: { message: 'Server Error' } };
    const secondary = faults.secondary.shift();
    if (secondary) {
      return {
        status: secondary.status,
        headers: { 'retry-after': String(secondary.retryAfter) },
        body: {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
          status: String(secondary.status),
        },
      };
    }
    if (Date.now() < quota.exhaustedUntil) {
      return {
        status: 403,
        body: {
          message: `API rate limit exceeded for installation ID ${idOf('installation', settings.login)}.`,
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits',
          status: '403',
        },
      };
    }
    return null;
  }

  function rateLimitHeaders(): Record<string, string> {
    const exhausted = Date.now() < quota.exhaustedUntil;
    const used = exhausted ? RATE_LIMIT : Math.min(quota.used, RATE_LIMIT);
    return {
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(RATE_LIMIT - used),
      'x-ratelimit-reset': String(exhausted ? quota.exhaustedUntil / 1000 : quota.windowReset),
      'x-ratelimit-used': String(used),
      'x-ratelimit-resource': 'core',
    };
  }

  return {
    url,
    state,
    settings,
    requests,
    writeRequests: () => requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD'),
    violations,
    takeViolations: () => violations.splice(0),
    failNext(count, failOptions = {}) {
      for (let i = 0; i < count; i++) faults.serverErrors.push(failOptions.status ?? 500);
    },
    rateLimit(limitOptions = {}) {
      // Lifted exactly at the advertised reset, a whole second as GitHub sends it.
      quota.exhaustedUntil = Math.ceil((Date.now() + (limitOptions.resetInSeconds ?? 1) * 1000) / 1000) * 1000;
    },
    secondaryRateLimit(limitOptions = {}) {
      for (let i = 0; i < (limitOptions.count ?? 1); i++) {
        faults.secondary.push({ status: limitOptions.status ?? 403, retryAfter: limitOptions.retryAfter ?? 1 });
      }
    },
    mergePullRequest: mergePull,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (violations.length > 0) {
        throw new Error(`GitHub stand-in saw schema violations or failures:\n${violations.join('\n')}`);
      }
    },
  };
}

function errorReply(error: GitHubError): Reply {
  return { status: error.status, body: error.body };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
