// One change set's pull request written to Git and GitHub: the branch built and pushed (only when
// what it carries changed), the `kerf/window` status, the PR opened (labels, reviewers, auto-merge)
// or brought up to date. The rightsizing groups and the loop's revert PRs both go through here, so
// every kerf PR carries the change-set trailer and the metadata marker.
import type { KerfConfig } from '../model/types.js';
import { DEFAULT_AUTHOR, type GitIdentity, type GitPort, type Worktree } from '../git/git.js';
import { GitHubError, type GitHubPort, type OpenPullRequest } from '../github/github.js';
import { changeSetOfMessage } from '../plan/groups.js';
import { redact } from '../util/redact.js';
import type { ChangeSet, PullRequestOutcome, ReconcileError, RenderedBody } from './change-set.js';
import { readMeta } from './pr-body.js';
import type { WindowStatus } from '../github/github.js';

/** The default branch a PR goes into, at the commit the run planned on. */
export interface PublishBase {
  branch: string;
  sha: string;
  config: KerfConfig;
}

export type BuildResult = { kind: 'pushed'; sha: string } | { kind: 'lease-rejected'; remoteSha: string | null } | { kind: 'rejected'; message: string };

export function authorOf(config: KerfConfig): GitIdentity {
  return config.author ?? DEFAULT_AUTHOR;
}

export function sameStatus(a: WindowStatus | null | undefined, b: WindowStatus): boolean {
  return a?.state === b.state && a.description === b.description;
}

export class PullRequestWriter {
  constructor(
    private readonly git: GitPort,
    private readonly github: GitHubPort,
    /** A work tree kerf may reset and commit in. */
    private readonly worktree: () => Promise<Worktree>,
    /** Where problems that do not stop the PR go (auto-merge not allowed). */
    private readonly errors: ReconcileError[],
    private readonly secrets: readonly string[],
  ) {}

  /** A branch is rebuilt only when its change set differs or it no longer merges cleanly. */
  async needsRebuild(base: PublishBase, head: string | null, changeSet: ChangeSet): Promise<boolean> {
    if (head === null) return true;
    const commit = await this.git.commitInfo(head);
    if (changeSetOfMessage(commit.message) !== changeSet.hash) return true;
    const [parent] = commit.parents;
    return parent === undefined || !(await this.git.mergesCleanly(parent, head, base.sha));
  }

  /** The change set committed on the base and pushed, the branch expected at `expected` (a lease). */
  async build(base: PublishBase, changeSet: ChangeSet, expected: string | null): Promise<BuildResult> {
    const worktree = await this.worktree();
    await worktree.reset(base.sha);
    const sha = await worktree.commit(
      changeSet.edits.map((edit) => ({ path: edit.path, content: edit.after })),
      changeSet.commitMessage,
      authorOf(base.config),
    );
    const result = await this.git.push(sha, changeSet.branch, expected);
    return result.kind === 'pushed' ? { kind: 'pushed', sha } : result;
  }

  /**
   * Writes the status only when its state or description would change. What is on the head is
   * known without a request when the PR's metadata recorded it for this head; a head kerf has
   * just pushed (`fresh`) has none yet.
   */
  async syncStatus(pr: OpenPullRequest | null, head: string, status: WindowStatus, fresh: boolean): Promise<void> {
    if (!fresh) {
      const meta = readMeta(pr?.body);
      const current = meta?.head === head && meta.window ? meta.window : await this.github.getWindowStatus(head);
      if (sameStatus(current, status)) return;
    }
    await this.github.setWindowStatus(head, status);
  }

  /**
   * The PR of the change set at `head`: opened (`created`) when the branch has none, else brought
   * up to date. `pushed` says the head is new, so its status and the PR count as changed.
   */
  async publish(
    base: PublishBase,
    changeSet: ChangeSet,
    existing: OpenPullRequest | null,
    head: string,
    pushed: boolean,
    rendered: RenderedBody,
  ): Promise<{ outcome: PullRequestOutcome; created: boolean }> {
    if (existing) return { outcome: await this.update(base, changeSet, existing, head, pushed, rendered), created: false };
    // The status goes on the head before the PR exists, so the body's metadata never claims a status that is not there.
    await this.syncStatus(null, head, changeSet.status, pushed);
    const { pr, created } = await this.open(base, changeSet, rendered.body);
    if (!created) return { outcome: await this.update(base, changeSet, pr, head, pushed, rendered), created: false };
    await this.postRest(pr.number, rendered.rest);
    const labels = [...changeSet.labels, ...base.config.labels];
    if (labels.length > 0) await this.github.addLabels(pr.number, labels);
    const { reviewers, teamReviewers } = base.config;
    if (reviewers.length > 0 || teamReviewers.length > 0) await this.github.requestReviewers(pr.number, { reviewers, teamReviewers });
    await this.autoMerge(base, pr, changeSet.status);
    return { outcome: { branch: changeSet.branch, number: pr.number, url: pr.url, action: 'opened', targets: changeSet.targets, title: changeSet.title, status: changeSet.status }, created: true };
  }

  private async update(base: PublishBase, changeSet: ChangeSet, pr: OpenPullRequest, head: string, pushed: boolean, rendered: RenderedBody): Promise<PullRequestOutcome> {
    let changed = pushed;
    await this.syncStatus(pr, head, changeSet.status, pushed);
    if (pr.title !== changeSet.title || pr.body !== rendered.body) {
      await this.github.updatePull(pr.number, { title: changeSet.title, body: rendered.body });
      if (pr.body !== rendered.body) await this.postRest(pr.number, rendered.rest);
      changed = true;
    }
    const missing = [...changeSet.labels, ...base.config.labels].filter((label) => !pr.labels.includes(label));
    if (missing.length > 0) {
      await this.github.addLabels(pr.number, missing);
      changed = true;
    }
    if (await this.autoMerge(base, pr, changeSet.status)) changed = true;
    return { branch: changeSet.branch, number: pr.number, url: pr.url, action: changed ? 'updated' : 'unchanged', title: changeSet.title, targets: changeSet.targets, status: changeSet.status };
  }

  /** What did not fit a body, as follow-up comments (a new body brings its own). */
  private async postRest(number: number, rest: readonly string[]): Promise<void> {
    for (const [i, piece] of rest.entries()) await this.github.comment(number, `The description, continued (${i + 1} of ${rest.length}):\n\n${piece}`);
  }

  /**
   * With `autoMerge`, enables GitHub auto-merge on a PR that waits for its window (kerf/window
   * pending), so it merges when the status turns green; once on, it is left alone. A repository
   * that does not allow it is reported, and the run goes on.
   */
  private async autoMerge(base: PublishBase, pr: OpenPullRequest, status: WindowStatus): Promise<boolean> {
    if (base.config.autoMerge !== true || pr.autoMerge || status.state !== 'pending') return false;
    try {
      return (await this.github.enableAutoMerge(pr)) === 'enabled';
    } catch (error) {
      if (!(error instanceof GitHubError) || error.code !== 'AutoMergeUnavailable') throw error;
      this.errors.push({ branch: pr.branch, code: error.code, message: redact(error.message, this.secrets) });
      return false;
    }
  }

  /** Opens the PR; one that already exists for the branch (422) is found and taken instead. */
  private async open(base: PublishBase, changeSet: ChangeSet, body: string): Promise<{ pr: OpenPullRequest; created: boolean }> {
    try {
      return { pr: await this.github.createPull({ branch: changeSet.branch, base: base.branch, title: changeSet.title, body }), created: true };
    } catch (error) {
      if (!(error instanceof GitHubError) || error.code !== 'PullRequestExists') throw error;
      const pr = await this.github.findOpenPull(changeSet.branch, base.branch);
      if (!pr) throw error;
      return { pr, created: false };
    }
  }
}
