import type { components } from '@octokit/openapi-types';

/** GitHub's own types for what it returns, so the stand-in's answers cannot drift from them at compile time. */
export type Schemas = components['schemas'];

export interface PullRequestRecord {
  number: number;
  id: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  /** Last known head commit; refreshed from the branch while it exists. */
  headSha: string;
  baseSha: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
  labels: string[];
  requestedReviewers: string[];
  requestedTeams: string[];
  author: string;
  maintainerCanModify: boolean;
  /** Enabled through GraphQL `enablePullRequestAutoMerge`: merged once the base's required checks pass. */
  autoMerge?: { enabledBy: string; mergeMethod: 'merge' | 'squash' | 'rebase' } | null;
}

export interface CommentRecord {
  id: number;
  issueNumber: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

/** An issue that is not a pull request (kerf's dashboard); numbers are shared with PRs, as on GitHub. */
export interface IssueRecord {
  number: number;
  id: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  labels: string[];
  author: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface StatusRecord {
  id: number;
  sha: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  context: string;
  description: string | null;
  targetUrl: string | null;
  author: string;
  createdAt: string;
}

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string;
}

export interface ObjectContext {
  /** The API root, e.g. `http://127.0.0.1:4567`. */
  apiUrl: string;
  /** The web root; the git server's, as github.com serves both. */
  htmlUrl: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  permissions: { admin: boolean; maintain: boolean; push: boolean; triage: boolean; pull: boolean };
  /** Stable numeric ids per name (users, teams). */
  idOf(kind: string, name: string): number;
}

const CREATED_AT = '2024-01-01T00:00:00Z';

/** Builders of GitHub's response shapes from the stand-in's records. */
export function githubObjects(ctx: ObjectContext) {
  const repoApi = `${ctx.apiUrl}/repos/${ctx.owner}/${ctx.repo}`;
  const repoHtml = `${ctx.htmlUrl}/${ctx.owner}/${ctx.repo}`;
  const nodeId = (kind: string, id: number): string => Buffer.from(`${kind}:${id}`).toString('base64');

  const user = (login: string): Schemas['simple-user'] => {
    const id = ctx.idOf('user', login);
    const api = `${ctx.apiUrl}/users/${encodeURIComponent(login)}`;
    return {
      login,
      id,
      node_id: nodeId('User', id),
      avatar_url: `${ctx.htmlUrl}/avatars/${id}`,
      gravatar_id: '',
      url: api,
      html_url: `${ctx.htmlUrl}/${login}`,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: login.endsWith('[bot]') ? 'Bot' : 'User',
      site_admin: false,
    };
  };

  const repository = (): Schemas['repository'] => {
    const id = ctx.idOf('repo', `${ctx.owner}/${ctx.repo}`);
    return {
      id,
      node_id: nodeId('Repository', id),
      name: ctx.repo,
      full_name: `${ctx.owner}/${ctx.repo}`,
      owner: user(ctx.owner),
      private: true,
      html_url: repoHtml,
      description: null,
      fork: false,
      url: repoApi,
      archive_url: `${repoApi}/{archive_format}{/ref}`,
      assignees_url: `${repoApi}/assignees{/user}`,
      blobs_url: `${repoApi}/git/blobs{/sha}`,
      branches_url: `${repoApi}/branches{/branch}`,
      collaborators_url: `${repoApi}/collaborators{/collaborator}`,
      comments_url: `${repoApi}/comments{/number}`,
      commits_url: `${repoApi}/commits{/sha}`,
      compare_url: `${repoApi}/compare/{base}...{head}`,
      contents_url: `${repoApi}/contents/{+path}`,
      contributors_url: `${repoApi}/contributors`,
      deployments_url: `${repoApi}/deployments`,
      downloads_url: `${repoApi}/downloads`,
      events_url: `${repoApi}/events`,
      forks_url: `${repoApi}/forks`,
      git_commits_url: `${repoApi}/git/commits{/sha}`,
      git_refs_url: `${repoApi}/git/refs{/sha}`,
      git_tags_url: `${repoApi}/git/tags{/sha}`,
      git_url: `git://${new URL(ctx.htmlUrl).host}/${ctx.owner}/${ctx.repo}.git`,
      issue_comment_url: `${repoApi}/issues/comments{/number}`,
      issue_events_url: `${repoApi}/issues/events{/number}`,
      issues_url: `${repoApi}/issues{/number}`,
      keys_url: `${repoApi}/keys{/key_id}`,
      labels_url: `${repoApi}/labels{/name}`,
      languages_url: `${repoApi}/languages`,
      merges_url: `${repoApi}/merges`,
      milestones_url: `${repoApi}/milestones{/number}`,
      notifications_url: `${repoApi}/notifications{?since,all,participating}`,
      pulls_url: `${repoApi}/pulls{/number}`,
      releases_url: `${repoApi}/releases{/id}`,
      ssh_url: `git@${new URL(ctx.htmlUrl).hostname}:${ctx.owner}/${ctx.repo}.git`,
      stargazers_url: `${repoApi}/stargazers`,
      statuses_url: `${repoApi}/statuses/{sha}`,
      subscribers_url: `${repoApi}/subscribers`,
      subscription_url: `${repoApi}/subscription`,
      tags_url: `${repoApi}/tags`,
      teams_url: `${repoApi}/teams`,
      trees_url: `${repoApi}/git/trees{/sha}`,
      clone_url: `${repoHtml}.git`,
      mirror_url: null,
      hooks_url: `${repoApi}/hooks`,
      svn_url: repoHtml,
      homepage: null,
      language: null,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      size: 0,
      default_branch: ctx.defaultBranch,
      open_issues: 0,
      open_issues_count: 0,
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: 'private',
      license: null,
      pushed_at: CREATED_AT,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
      permissions: { ...ctx.permissions },
    };
  };

  const fullRepository = (): Schemas['full-repository'] => ({
    ...repository(),
    has_discussions: false,
    pushed_at: CREATED_AT,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    subscribers_count: 0,
    network_count: 0,
    allow_merge_commit: true,
    allow_squash_merge: true,
    allow_rebase_merge: true,
    delete_branch_on_merge: false,
  });

  const label = (record: LabelRecord): Schemas['label'] & { description: string } => ({
    id: record.id,
    node_id: nodeId('Label', record.id),
    url: `${repoApi}/labels/${encodeURIComponent(record.name)}`,
    name: record.name,
    description: record.description,
    color: record.color,
    default: false,
  });

  const team = (slug: string): Schemas['team'] => {
    const id = ctx.idOf('team', slug);
    const api = `${ctx.apiUrl}/organizations/${ctx.idOf('user', ctx.owner)}/team/${id}`;
    return {
      id,
      node_id: nodeId('Team', id),
      name: slug,
      slug,
      description: null,
      privacy: 'closed',
      notification_setting: 'notifications_enabled',
      permission: 'pull',
      url: api,
      html_url: `${ctx.htmlUrl}/orgs/${ctx.owner}/teams/${slug}`,
      members_url: `${api}/members{/member}`,
      repositories_url: `${api}/repos`,
      type: 'organization',
      parent: null,
    };
  };

  // Left to inference so both `pull-request-simple` and `pull-request` can be built from it.
  const pullRequestFields = (pr: PullRequestRecord, labels: LabelRecord[]) => {
    const api = `${repoApi}/pulls/${pr.number}`;
    const html = `${repoHtml}/pull/${pr.number}`;
    const issueApi = `${repoApi}/issues/${pr.number}`;
    const side = (ref: string, sha: string) => ({
      label: `${ctx.owner}:${ref}`,
      ref,
      sha,
      user: user(ctx.owner),
      repo: repository(),
    });
    const link = (href: string): Schemas['link'] => ({ href });
    return {
      url: api,
      id: pr.id,
      node_id: nodeId('PullRequest', pr.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueApi,
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: `${repoApi}/pulls/comments{/number}`,
      comments_url: `${issueApi}/comments`,
      statuses_url: `${repoApi}/statuses/${pr.headSha}`,
      number: pr.number,
      state: pr.state,
      locked: false,
      title: pr.title,
      user: user(pr.author),
      body: pr.body,
      labels: labels.map(label),
      milestone: null,
      active_lock_reason: null,
      created_at: pr.createdAt,
      updated_at: pr.updatedAt,
      closed_at: pr.closedAt,
      merged_at: pr.mergedAt,
      merge_commit_sha: pr.mergeCommitSha,
      assignee: null,
      assignees: [],
      requested_reviewers: pr.requestedReviewers.map(user),
      requested_teams: pr.requestedTeams.map(team),
      head: side(pr.head, pr.headSha),
      base: side(pr.base, pr.baseSha),
      _links: {
        self: link(api),
        html: link(html),
        issue: link(issueApi),
        comments: link(`${issueApi}/comments`),
        review_comments: link(`${api}/comments`),
        review_comment: link(`${repoApi}/pulls/comments{/number}`),
        commits: link(`${api}/commits`),
        statuses: link(`${repoApi}/statuses/${pr.headSha}`),
      },
      author_association: 'NONE' as const,
      auto_merge: pr.autoMerge ? { enabled_by: user(pr.autoMerge.enabledBy), merge_method: pr.autoMerge.mergeMethod, commit_title: pr.title, commit_message: '' } : null,
      draft: pr.draft,
    };
  };

  const pullRequestSimple = (pr: PullRequestRecord, labels: LabelRecord[]): Schemas['pull-request-simple'] =>
    pullRequestFields(pr, labels);

  const pullRequest = (
    pr: PullRequestRecord,
    labels: LabelRecord[],
    mergeable: boolean | null,
    counts: { comments: number },
  ): Schemas['pull-request'] => ({
    ...pullRequestFields(pr, labels),
    merged: pr.merged,
    mergeable,
    rebaseable: mergeable,
    mergeable_state: mergeable === null ? 'unknown' : mergeable ? 'clean' : 'dirty',
    merged_by: pr.merged ? user(pr.author) : null,
    comments: counts.comments,
    review_comments: 0,
    maintainer_can_modify: pr.maintainerCanModify,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  });

  /** An issue as `GET /issues` lists it; a PR appears there too, marked by `pull_request`. */
  const issue = (record: IssueRecord | PullRequestRecord, labels: LabelRecord[], comments: number): Schemas['issue'] => {
    const isPull = 'head' in record;
    const api = `${repoApi}/issues/${record.number}`;
    const html = `${repoHtml}/${isPull ? 'pull' : 'issues'}/${record.number}`;
    return {
      id: record.id,
      node_id: nodeId(isPull ? 'PullRequest' : 'Issue', record.id),
      url: api,
      repository_url: repoApi,
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: html,
      number: record.number,
      state: record.state,
      title: record.title,
      body: record.body,
      user: user(record.author),
      labels: labels.map(label),
      assignee: null,
      assignees: [],
      milestone: null,
      locked: false,
      comments,
      closed_at: record.closedAt,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      author_association: 'NONE',
      ...(isPull && {
        pull_request: { url: `${repoApi}/pulls/${record.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: record.mergedAt },
      }),
    };
  };

  const issueComment = (comment: CommentRecord): Schemas['issue-comment'] => ({
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url: `${repoApi}/issues/comments/${comment.id}`,
    html_url: `${repoHtml}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repoApi}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: user(comment.author),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: 'NONE',
  });

  const status = (record: StatusRecord): Schemas['status'] => ({
    url: `${repoApi}/statuses/${record.sha}`,
    avatar_url: null,
    id: record.id,
    node_id: nodeId('StatusContext', record.id),
    state: record.state,
    description: record.description,
    target_url: record.targetUrl,
    context: record.context,
    created_at: record.createdAt,
    updated_at: record.createdAt,
    creator: user(record.author),
  });

  /** GitHub's combined state: failure if any context failed or errored, else pending if any pending (or none), else success. */
  const combinedStatus = (sha: string, latest: StatusRecord[]): Schemas['combined-commit-status'] => {
    const states = latest.map((s) => s.state);
    const state = states.some((s) => s === 'failure' || s === 'error')
      ? 'failure'
      : states.length === 0 || states.includes('pending')
        ? 'pending'
        : 'success';
    return {
      state,
      sha,
      total_count: latest.length,
      statuses: latest.map((record) => ({ ...status(record), required: false })),
      // minimal-repository types `license` more narrowly; this repository has none.
      repository: { ...repository(), license: null },
      commit_url: `${repoApi}/commits/${sha}`,
      url: `${repoApi}/commits/${sha}/status`,
    };
  };

  const gitRef = (ref: string, sha: string): Schemas['git-ref'] => ({
    ref,
    node_id: nodeId('Ref', ctx.idOf('ref', ref)),
    url: `${repoApi}/git/${ref}`,
    object: { type: 'commit', sha, url: `${repoApi}/git/commits/${sha}` },
  });

  return { user, repository, fullRepository, label, pullRequestSimple, pullRequest, issue, issueComment, status, combinedStatus, gitRef };
}

export type GitHubObjects = ReturnType<typeof githubObjects>;
