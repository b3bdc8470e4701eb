import type { operations } from '@octokit/openapi-types';
import { branchHead, deleteBranch, mergedTree } from '../git/bare-repo.js';
import { GitCommandError, runGit } from '../git/run-git.js';
import type {
  CommentRecord,
  GitHubObjects,
  IssueRecord,
  LabelRecord,
  PullRequestRecord,
  Schemas,
  StatusRecord,
} from './github-objects.js';

/** What the stand-in knows; tests read it for assertions and write it for setup (rules, protection). */
export interface GitHubState {
  prs: PullRequestRecord[];
  /** Issues that are not PRs. */
  issues: IssueRecord[];
  comments: CommentRecord[];
  statuses: StatusRecord[];
  /** Labels defined in the repository (adding an unknown label to an issue creates it, as GitHub does). */
  labels: LabelRecord[];
  /** `GET /rules/branches/{branch}` answers; a branch without an entry has no rules. */
  branchRules: Map<string, Schemas['repository-rule-detailed'][]>;
  /** Classic protection per branch; readable only with admin permission. */
  branchProtection: Map<string, Schemas['branch-protection']>;
}

export interface GitHubSettings {
  /** The user the token belongs to: PR author, comment and status creator. */
  login: string;
  /** The repository setting "Allow GitHub Actions to create and approve pull requests". */
  actionsMayCreatePRs: boolean;
  /** The repository setting "Allow auto-merge". */
  allowAutoMerge: boolean;
  permissions: { admin: boolean; maintain: boolean; push: boolean; triage: boolean; pull: boolean };
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export type RouteHandler = (request: RouteRequest) => Promise<Reply>;

/** The JSON request body GitHub documents for an operation. */
type Body<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;

/** A GitHub error answer, thrown by handlers. */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, unknown>[],
  ) {
    super(message);
  }

  get body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      documentation_url: 'https://docs.github.com/rest',
      status: String(this.status),
    };
  }
}

export const validationFailed = (...errors: Record<string, unknown>[]): GitHubError =>
  new GitHubError(422, 'Validation Failed', errors);

/** GitHub refuses a pull request body or comment longer than this. */
const BODY_LIMIT = 65_536;

function refuseLongBody(resource: 'PullRequest' | 'IssueComment', body: string | null | undefined): void {
  if ((body ?? '').length > BODY_LIMIT) {
    throw validationFailed({ resource, code: 'custom', field: 'body', message: `body is too long (maximum is ${BODY_LIMIT} characters)` });
  }
}

export interface RouteContext {
  owner: string;
  repo: string;
  bareDir: string;
  defaultBranch: string;
  state: GitHubState;
  settings: GitHubSettings;
  objects: GitHubObjects;
  nextId(kind: 'issue' | 'pull' | 'comment' | 'status' | 'label'): number;
  now(): string;
}

/** Handlers by operationId, for exactly the operations in SERVED_OPERATIONS. */
export function githubRoutes(ctx: RouteContext): Record<string, RouteHandler> {
  const { state, objects, settings } = ctx;

  const findPull = (value: string | undefined): PullRequestRecord => {
    const pr = state.prs.find((candidate) => String(candidate.number) === value);
    if (!pr) throw new GitHubError(404, 'Not Found');
    return pr;
  };
  /** GitHub follows the branch: an open PR's head and base move with their refs. */
  const refresh = async (pr: PullRequestRecord): Promise<PullRequestRecord> => {
    if (pr.state !== 'open') return pr;
    const [head, base] = await Promise.all([branchHead(ctx.bareDir, pr.head), branchHead(ctx.bareDir, pr.base)]);
    if (head) pr.headSha = head;
    if (base) pr.baseSha = base;
    return pr;
  };
  /** One page of a list, with GitHub's `Link: rel="next"` while more follow. */
  const paged = <T>(items: readonly T[], query: URLSearchParams, path: 'pulls' | 'issues') => {
    const perPage = Math.min(Number(query.get('per_page') ?? 30) || 30, 100);
    const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
    const headers: Record<string, string> = {};
    if (page * perPage < items.length) {
      const next = new URLSearchParams(query);
      next.set('page', String(page + 1));
      next.set('per_page', String(perPage));
      headers.link = `<${objects.repository().url}/${path}?${next}>; rel="next"`;
    }
    return { slice: items.slice((page - 1) * perPage, page * perPage), headers };
  };
  const labelsOf = (pr: PullRequestRecord): LabelRecord[] =>
    pr.labels.map((name) => state.labels.find((label) => label.name === name)).filter((l) => l !== undefined);
  const fullPull = async (pr: PullRequestRecord): Promise<Schemas['pull-request']> => {
    await refresh(pr);
    const mergeable = pr.state === 'open' ? (await mergedTree(ctx.bareDir, pr.baseSha, pr.headSha)) !== null : null;
    const comments = state.comments.filter((c) => c.issueNumber === pr.number).length;
    return objects.pullRequest(pr, labelsOf(pr), mergeable, { comments });
  };
  const touch = (pr: PullRequestRecord): void => {
    pr.updatedAt = ctx.now();
  };
  const ensureLabel = (name: string): void => {
    if (!state.labels.some((label) => label.name === name)) {
      state.labels.push({ id: ctx.nextId('label'), name, color: 'ededed', description: '' });
    }
  };
  const labelNames = (labels: (string | { name: string })[] | undefined): string[] =>
    (labels ?? []).map((label) => (typeof label === 'string' ? label : label.name));
  const issueLabels = (pr: PullRequestRecord): Reply => ({ status: 200, body: labelsOf(pr).map(objects.label) });
  /** A sha, or a branch name, resolved to a commit in the repository. */
  const resolveCommit = async (ref: string): Promise<string | null> => {
    const branch = await branchHead(ctx.bareDir, ref);
    if (branch) return branch;
    try {
      return await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: ctx.bareDir });
    } catch (error) {
      if (error instanceof GitCommandError) return null;
      throw error;
    }
  };
  /** Newest first, as GitHub lists them. */
  const statusesFor = (sha: string): StatusRecord[] => state.statuses.filter((s) => s.sha === sha).reverse();
  const branchOfRef = (ref: string): string => {
    if (!ref.startsWith('heads/')) throw new GitHubError(404, 'Not Found');
    return ref.slice('heads/'.length);
  };

  return {
    'repos/get': async () => ({ status: 200, body: objects.fullRepository() }),

    'issues/list-for-repo': async ({ query }) => {
      const wanted = query.get('state') ?? 'open';
      const creator = query.get('creator');
      const all: (IssueRecord | PullRequestRecord)[] = [...state.issues, ...state.prs];
      const matching = all
        .filter((item) => wanted === 'all' || item.state === wanted)
        .filter((item) => creator === null || item.author === creator)
        .sort((a, b) => b.number - a.number);
      const { slice, headers } = paged(matching, query, 'issues');
      const comments = (number: number) => state.comments.filter((c) => c.issueNumber === number).length;
      const labels = (item: IssueRecord | PullRequestRecord) => item.labels.map((name) => state.labels.find((l) => l.name === name)).filter((l) => l !== undefined);
      return { status: 200, headers, body: slice.map((item) => objects.issue(item, labels(item), comments(item.number))) };
    },

    'issues/create': async ({ body }) => {
      const input = body as Body<'issues/create'>;
      if (!settings.permissions.triage && !settings.permissions.push) throw new GitHubError(403, 'Resource not accessible by integration');
      const at = ctx.now();
      const record: IssueRecord = {
        number: ctx.nextId('issue'),
        id: ctx.nextId('pull'),
        title: String(input.title),
        body: input.body ?? null,
        state: 'open',
        labels: [],
        author: settings.login,
        createdAt: at,
        updatedAt: at,
        closedAt: null,
      };
      state.issues.push(record);
      return { status: 201, body: objects.issue(record, [], 0) };
    },

    'issues/update': async ({ params, body }) => {
      const input = body as Body<'issues/update'>;
      const record = state.issues.find((issue) => String(issue.number) === params.issue_number);
      // A PR is an issue too, but kerf edits PRs through the pulls API; the stand-in serves only issues here.
      if (!record) throw new GitHubError(404, 'Not Found');
      if (input.title !== undefined && input.title !== null) record.title = String(input.title);
      if (input.body !== undefined) record.body = input.body ?? null;
      if (input.state === 'closed' || input.state === 'open') {
        record.state = input.state;
        record.closedAt = input.state === 'closed' ? ctx.now() : null;
      }
      record.updatedAt = ctx.now();
      return { status: 200, body: objects.issue(record, [], state.comments.filter((c) => c.issueNumber === record.number).length) };
    },

    'pulls/list': async ({ query }) => {
      const wanted = query.get('state') ?? 'open';
      // GitHub ignores a head filter without the "owner:" prefix and lists every PR.
      const head = query.get('head');
      const [headOwner, headBranch] = head?.includes(':') ? [head.slice(0, head.indexOf(':')), head.slice(head.indexOf(':') + 1)] : [];
      const base = query.get('base');
      const matching = state.prs
        .filter((pr) => wanted === 'all' || pr.state === wanted)
        .filter((pr) => headOwner === undefined || (headOwner === ctx.owner && pr.head === headBranch))
        .filter((pr) => base === null || pr.base === base)
        .sort((a, b) => b.number - a.number);
      const { slice, headers } = paged(matching, query, 'pulls');
      await Promise.all(slice.map(refresh));
      return { status: 200, headers, body: slice.map((pr) => objects.pullRequestSimple(pr, labelsOf(pr))) };
    },

    'pulls/create': async ({ body }) => {
      const input = body as Body<'pulls/create'>;
      if (!settings.actionsMayCreatePRs) {
        throw new GitHubError(403, 'GitHub Actions is not permitted to create or approve pull requests.');
      }
      if (!input.title) throw validationFailed({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
      refuseLongBody('PullRequest', input.body);
      const head = input.head.startsWith(`${ctx.owner}:`) ? input.head.slice(ctx.owner.length + 1) : input.head;
      const [headSha, baseSha] = await Promise.all([branchHead(ctx.bareDir, head), branchHead(ctx.bareDir, input.base)]);
      if (!baseSha) throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
      if (!headSha) throw validationFailed({ resource: 'PullRequest', field: 'head', code: 'invalid' });
      if (state.prs.some((pr) => pr.state === 'open' && pr.head === head && pr.base === input.base)) {
        throw validationFailed({
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${ctx.owner}:${head}.`,
        });
      }
      const noNewCommits = await runGit(['merge-base', '--is-ancestor', headSha, baseSha], { cwd: ctx.bareDir }).then(
        () => true,
        () => false,
      );
      if (noNewCommits) {
        throw validationFailed({ resource: 'PullRequest', code: 'custom', message: `No commits between ${input.base} and ${head}` });
      }
      const now = ctx.now();
      const pr: PullRequestRecord = {
        number: ctx.nextId('issue'),
        id: ctx.nextId('pull'),
        title: input.title,
        body: input.body ?? null,
        head,
        base: input.base,
        headSha,
        baseSha,
        state: 'open',
        draft: input.draft ?? false,
        merged: false,
        mergedAt: null,
        mergeCommitSha: null,
        closedAt: null,
        createdAt: now,
        updatedAt: now,
        labels: [],
        requestedReviewers: [],
        requestedTeams: [],
        author: settings.login,
        maintainerCanModify: input.maintainer_can_modify ?? true,
      };
      state.prs.push(pr);
      const created = await fullPull(pr);
      return { status: 201, headers: { location: created.url }, body: created };
    },

    'pulls/get': async ({ params }) => ({ status: 200, body: await fullPull(findPull(params.pull_number)) }),

    'pulls/update': async ({ params, body }) => {
      const input = body as Body<'pulls/update'>;
      const pr = await refresh(findPull(params.pull_number));
      refuseLongBody('PullRequest', input.body);
      if (input.base !== undefined && !(await branchHead(ctx.bareDir, input.base))) {
        throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
      }
      if (input.state === 'open' && pr.state === 'closed') {
        if (pr.merged || !(await branchHead(ctx.bareDir, pr.head))) {
          throw validationFailed({ resource: 'PullRequest', code: 'custom', message: 'state cannot be changed.' });
        }
        pr.closedAt = null;
      }
      if (input.state === 'closed' && pr.state === 'open') pr.closedAt = ctx.now();
      if (input.state) pr.state = input.state;
      if (input.title !== undefined) pr.title = input.title;
      if (input.body !== undefined) pr.body = input.body;
      if (input.base !== undefined) pr.base = input.base;
      touch(pr);
      return { status: 200, body: await fullPull(pr) };
    },

    'pulls/request-reviewers': async ({ params, body }) => {
      const input = (body ?? {}) as Body<'pulls/request-reviewers'>;
      const pr = await refresh(findPull(params.pull_number));
      if (input.reviewers?.includes(pr.author)) {
        throw new GitHubError(422, 'Review cannot be requested from pull request author.');
      }
      for (const login of input.reviewers ?? []) if (!pr.requestedReviewers.includes(login)) pr.requestedReviewers.push(login);
      for (const slug of input.team_reviewers ?? []) if (!pr.requestedTeams.includes(slug)) pr.requestedTeams.push(slug);
      touch(pr);
      return { status: 201, body: objects.pullRequestSimple(pr, labelsOf(pr)) };
    },

    'issues/list-labels-on-issue': async ({ params }) => issueLabels(findPull(params.issue_number)),

    'issues/add-labels': async ({ params, body }) => {
      const pr = findPull(params.issue_number);
      for (const name of labelNames((body as Body<'issues/add-labels'>)?.labels)) {
        ensureLabel(name);
        if (!pr.labels.includes(name)) pr.labels.push(name);
      }
      touch(pr);
      return issueLabels(pr);
    },

    'issues/set-labels': async ({ params, body }) => {
      const pr = findPull(params.issue_number);
      const names = labelNames((body as Body<'issues/set-labels'>)?.labels);
      names.forEach(ensureLabel);
      pr.labels = [...new Set(names)];
      touch(pr);
      return issueLabels(pr);
    },

    'issues/remove-label': async ({ params }) => {
      const pr = findPull(params.issue_number);
      if (!pr.labels.includes(params.name ?? '')) throw new GitHubError(404, 'Label does not exist');
      pr.labels = pr.labels.filter((name) => name !== params.name);
      touch(pr);
      return issueLabels(pr);
    },

    'issues/list-comments': async ({ params }) => {
      const pr = findPull(params.issue_number);
      return { status: 200, body: state.comments.filter((c) => c.issueNumber === pr.number).map(objects.issueComment) };
    },

    'issues/create-comment': async ({ params, body }) => {
      const pr = findPull(params.issue_number);
      refuseLongBody('IssueComment', (body as Body<'issues/create-comment'>).body);
      const now = ctx.now();
      const comment: CommentRecord = {
        id: ctx.nextId('comment'),
        issueNumber: pr.number,
        body: (body as Body<'issues/create-comment'>).body,
        author: settings.login,
        createdAt: now,
        updatedAt: now,
      };
      state.comments.push(comment);
      const created = objects.issueComment(comment);
      return { status: 201, headers: { location: created.url }, body: created };
    },

    'repos/create-commit-status': async ({ params, body }) => {
      const input = body as Body<'repos/create-commit-status'>;
      const sha = params.sha ?? '';
      const known = /^[0-9a-f]{40}$/.test(sha) && (await resolveCommit(sha)) === sha;
      if (!known) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
      const record: StatusRecord = {
        id: ctx.nextId('status'),
        sha,
        state: input.state,
        context: input.context ?? 'default',
        description: input.description ?? null,
        targetUrl: input.target_url ?? null,
        author: settings.login,
        createdAt: ctx.now(),
      };
      state.statuses.push(record);
      const created = objects.status(record);
      return { status: 201, headers: { location: created.url }, body: created };
    },

    'repos/get-combined-status-for-ref': async ({ params }) => {
      const sha = await resolveCommit(params.ref ?? '');
      if (!sha) throw new GitHubError(404, 'Not Found');
      const latest = new Map<string, StatusRecord>();
      for (const status of statusesFor(sha)) if (!latest.has(status.context)) latest.set(status.context, status);
      return { status: 200, body: objects.combinedStatus(sha, [...latest.values()]) };
    },

    'repos/list-commit-statuses-for-ref': async ({ params }) => {
      const sha = await resolveCommit(params.ref ?? '');
      return { status: 200, body: sha ? statusesFor(sha).map(objects.status) : [] };
    },

    'git/get-ref': async ({ params }) => {
      const ref = params.ref ?? '';
      const sha = await branchHead(ctx.bareDir, branchOfRef(ref));
      if (!sha) throw new GitHubError(404, 'Not Found');
      return { status: 200, body: objects.gitRef(`refs/${ref}`, sha) };
    },

    'git/delete-ref': async ({ params }) => {
      const branch = branchOfRef(params.ref ?? '');
      if (branch === ctx.defaultBranch || !(await branchHead(ctx.bareDir, branch))) {
        throw new GitHubError(422, 'Reference does not exist');
      }
      await deleteBranch(ctx.bareDir, branch);
      // GitHub closes open pull requests whose head branch goes away.
      for (const pr of state.prs) {
        if (pr.state === 'open' && pr.head === branch) {
          pr.state = 'closed';
          pr.closedAt = ctx.now();
          touch(pr);
        }
      }
      return { status: 204 };
    },

    'repos/get-branch-rules': async ({ params }) => ({ status: 200, body: state.branchRules.get(params.branch ?? '') ?? [] }),

    'repos/get-branch-protection': async ({ params }) => {
      const branch = params.branch ?? '';
      if (!settings.permissions.admin) throw new GitHubError(403, 'Resource not accessible by integration');
      if (!(await branchHead(ctx.bareDir, branch))) throw new GitHubError(404, 'Branch not found');
      const protection = state.branchProtection.get(branch);
      if (!protection) throw new GitHubError(404, 'Branch not protected');
      return { status: 200, body: protection };
    },
  };
}
