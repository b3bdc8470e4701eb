// The reconcile run: plan → change sets → branches → pull requests → statuses → a summary. Every
// effect goes through the ports; a run that finds nothing new pushes nothing and writes nothing.
// A dry run takes the same path with the writes switched off (Renovate's dry-run guards): it reads
// nothing from GitHub, assumes no open PRs and touches no ref, so it cannot disagree with a real run.
// Closing the loop with the cluster is the caller's next step (`closeLoop`), then the dashboard.
import type { Decision, GroupBy, KerfConfig, ObjectRef } from '../model/types.js';
import type { Logger } from '../util/logger.js';
import { workloadKey } from '../util/workload-key.js';
import { selectPolicy } from '../rules/policy-match.js';
import { pauseOrFreeze } from '../rules/decide.js';
import { planEdits } from '../plan/edits.js';
import { runPlan, type PlanOptions, type PlanRun } from '../plan/run-plan.js';
import type { CommitInfo, GitIdentity, GitPort, PushResult, Worktree } from '../git/git.js';
import type { GitHubPort, OpenPullRequest } from '../github/github.js';
import { DASHBOARD_MARKER, DASHBOARD_TITLE, readChoices, renderDashboard, type DashboardChoices } from './dashboard.js';
import { changeSetOfMessage, groupDecisions, splitToFit, targetName, type PrGroup } from '../plan/groups.js';
import { code, GITHUB_BODY_LIMIT } from './markdown.js';
import { loadBodyTemplate, readMeta, withMeta, type PullRequestMeta, type RenderBody } from './pr-body.js';
import type { ReviewContext } from './pr-review.js';
import { impactOf, sumTotals } from '../plan/impact.js';
import { heldReason, reasonWords } from '../plan/reason-text.js';
import { redact } from '../util/redact.js';
import type { WindowStatus } from '../github/github.js';
import {
  ReconcileFailure,
  renderBody,
  rightsizeChangeSet,
  templateText,
  type ChangeSet,
  type FleetTotals,
  type LoopOutcome,
  type PullRequestAction,
  type PullRequestOutcome,
  type ReconcileError,
  type ReconcileResult,
  type RunBasis,
} from './change-set.js';
import { authorOf, PullRequestWriter, sameStatus } from './publish.js';
import { isRollbackBranch } from './rollback.js';

export interface ReconcileOptions extends PlanOptions {
  dryRun: boolean;
  /** Flags beat the config file. */
  groupBy?: GroupBy;
  labels?: string[];
  reviewers?: string[];
  teamReviewers?: string[];
  autoMerge?: boolean;
}

export interface ReconcilePorts {
  /** Not needed for a dry run. */
  git?: GitPort;
  github?: GitHubPort;
  /** The wall clock, for the hourly PR limit (GitHub's creation times are wall-clock times); not needed for a dry run. */
  clock?: () => Date;
  log?: Logger;
  renderBody?: RenderBody;
  /** Secrets to keep out of every message (the token). */
  secrets?: readonly string[];
}

/** A run's result, and (not in a dry run) what it worked from, for closing the loop and the dashboard. */
export interface Reconciled {
  result: ReconcileResult;
  basis?: RunBasis;
}

/** The fleet's totals over the run's `pull-request` decisions. */
function fleetTotals(run: PlanRun, config: KerfConfig): FleetTotals {
  const proposed = run.plan.decisions.filter((decision) => decision.action === 'pull-request');
  const impacts = proposed.map((decision) => impactOf(decision, run.index.workloads.get(targetName(decision.target)), run.index.hpas, config.pricing));
  return { ...sumTotals(impacts, config.pricing), ...(config.pricing?.currency !== undefined && { currency: config.pricing.currency }), workloads: proposed.length };
}

const NO_CHOICES: DashboardChoices = { hold: new Set(), repropose: new Set() };

/** Labels a human puts on a kerf PR to take it over. */
export const STOP_LABEL = 'kerf/stop-updating';

function withFlags(config: KerfConfig, options: ReconcileOptions): KerfConfig {
  return {
    ...config,
    ...(options.groupBy !== undefined && { groupBy: options.groupBy }),
    ...(options.labels !== undefined && { labels: options.labels }),
    ...(options.reviewers !== undefined && { reviewers: options.reviewers }),
    ...(options.teamReviewers !== undefined && { teamReviewers: options.teamReviewers }),
    ...(options.autoMerge !== undefined && { autoMerge: options.autoMerge }),
  };
}

/** The limits on new PRs, counted down as PRs open. */
class PullRequestBudget {
  constructor(
    private hourly: number,
    private concurrent: number,
    private readonly config: KerfConfig,
  ) {}
  /** Why no new PR may open now, or null. */
  heldBy(): string | null {
    if (this.concurrent <= 0) return `prConcurrentLimit: ${this.config.prConcurrentLimit} kerf pull requests are open`;
    if (this.hourly <= 0) return `prHourlyLimit: ${this.config.prHourlyLimit} pull requests opened in the last hour`;
    return null;
  }
  opened(): void {
    this.hourly -= 1;
    this.concurrent -= 1;
  }
}

function heldReasons(decisions: readonly Decision[]): string {
  return [...new Set(decisions.map((d) => `${targetName(d.target)}: ${heldReason(d) ?? d.action}`))].join('; ');
}

function isKerfCommit(commit: CommitInfo, author: GitIdentity): boolean {
  const email = author.email.toLowerCase();
  return commit.parents.length === 1 && commit.authorEmail.toLowerCase() === email && commit.committerEmail.toLowerCase() === email && changeSetOfMessage(commit.message) !== null;
}

/** What the run works from: the default branch, the plan on it, and its groups. */
interface Base {
  branch: string;
  sha: string;
  run: PlanRun;
  config: KerfConfig;
  groups: Map<string, PrGroup>;
}

export async function reconcile(options: ReconcileOptions, ports: ReconcilePorts): Promise<Reconciled> {
  const renderBody = ports.renderBody ?? (await loadBodyTemplate());
  return new Reconciler(options, ports, renderBody).run();
}

/**
 * What the body's review sections need from the run: workloads, HPAs, recommendations, prices, new
 * files, links. Links name the default branch, not a commit, so a moving branch does not rewrite bodies.
 */
function reviewContext(run: PlanRun, config: KerfConfig, edits: readonly { path: string }[], links?: { webUrl: string; ref: string }): ReviewContext {
  return {
    workloads: run.index.workloads,
    hpas: run.index.hpas,
    recommendations: run.recommendations,
    ...(config.pricing && { pricing: config.pricing }),
    autoMerge: config.autoMerge === true,
    newFiles: edits.map((edit) => edit.path).filter((path) => !run.index.files.has(path)),
    ...(links && { fileUrl: (file: string, line?: number) => `${links.webUrl}/blob/${encodeURIComponent(links.ref)}/${file.split('/').map(encodeURIComponent).join('/')}${line ? `#L${line}` : ''}` }),
  };
}

/** The body from the template, for the change set at `head`. */
function templateBody(changeSet: ChangeSet, head: string | null, render: RenderBody, context: ReviewContext) {
  return renderBody(changeSet, head, templateText(changeSet, render, context));
}

/** A head for measuring bodies before the real one is known (the metadata holds one). */
const SOME_HEAD = '0'.repeat(40);

/** Room left for what only the real render knows (the new files the edits add), so a fitted body is never cut. */
const FIT_MARGIN = 4096;

/** The run's PR groups, a group whose body would not fit GitHub's limit split into parts that do. */
function fittedGroups(decisions: readonly Decision[], config: KerfConfig, render: RenderBody, context: ReviewContext): PrGroup[] {
  const fits = (group: PrGroup) => templateBody(rightsizeChangeSet(group, []), SOME_HEAD, render, context).body.length <= GITHUB_BODY_LIMIT - FIT_MARGIN;
  return groupDecisions(decisions, config).flatMap((group) => splitToFit(group, fits));
}

/** The group's change set: its edits applied to the scanned files, the decisions that landed its content. */
function groupChangeSet(run: PlanRun, group: PrGroup): { changeSet: ChangeSet; errors: ReconcileError[] } {
  const edits = planEdits(run.index, group.proposed);
  const errors: ReconcileError[] = edits.errors.map((error) => ({ branch: group.branch, code: 'EditRefused', message: error.message }));
  return { changeSet: rightsizeChangeSet({ ...group, proposed: edits.applied }, edits.edits), errors };
}

/** The dry run plans the checkout as it is; it has no remote branch or commit to name. */
const CHECKOUT = 'HEAD';

/** What only a real run has: the remote's ports, the clock and the PR writer. */
interface Remote {
  git: GitPort;
  github: GitHubPort;
  clock: () => Date;
  writer: PullRequestWriter;
}

class Reconciler {
  /** Undefined in a dry run: its writes are switched off. */
  private readonly remote: Remote | undefined;
  private readonly secrets: readonly string[];
  private readonly errors: ReconcileError[] = [];
  private readonly outcomes: PullRequestOutcome[] = [];
  private worktree: Worktree | undefined;
  /** The dashboard issue as this run found it; undefined when it is off or could not be read. */
  private dashboard: RunBasis['dashboard'];
  private choices: DashboardChoices = NO_CHOICES;

  constructor(
    private readonly options: ReconcileOptions,
    private readonly ports: ReconcilePorts,
    private readonly renderBody: RenderBody,
  ) {
    this.secrets = ports.secrets ?? [];
    if (options.dryRun) return;
    const { git, github, clock } = ports;
    if (!git || !github || !clock) throw new ReconcileFailure('MissingPorts', 'reconcile needs a Git and a GitHub port and a clock unless it is a dry run');
    this.remote = { git, github, clock, writer: new PullRequestWriter(git, github, async () => this.worktree as Worktree, this.errors, this.secrets) };
  }

  /** The remote, for what only a real run does; a dry run that got here would write, so it fails instead. */
  private get live(): Remote {
    if (!this.remote) throw new ReconcileFailure('MissingPorts', 'a dry run reads nothing from GitHub and touches no ref');
    return this.remote;
  }

  async run(): Promise<Reconciled> {
    if (this.options.dryRun) {
      const base = await this.plan(CHECKOUT, CHECKOUT);
      await this.groups(base, new Map(), new Map(), this.budget(base, []));
      const result = this.result(base, true);
      return { result: base.config.dashboard === false ? result : { ...result, dashboard: renderDashboard(result, NO_CHOICES) } };
    }
    const { git, github } = this.live;
    const defaultBranch = await git.defaultBranch();
    const sha = (await git.fetch([defaultBranch], 1)).get(defaultBranch) as string;
    this.worktree = await git.openWorktree(sha);
    try {
      let base = await this.plan(defaultBranch, sha);
      const prefix = base.config.branchPrefix;
      const remote = await git.branches(prefix);
      const heads = await git.fetch([...remote.keys()], 2);
      const pulls = (await github.listOpenPulls()).filter((pr) => pr.base === defaultBranch && pr.branch.startsWith(prefix));
      // A pause writes nothing, the dashboard included.
      if (base.config.dashboard !== false && !base.config.pause && !this.options.fleetPaused) await this.readDashboard();
      base = await this.groups(base, new Map(pulls.map((pr) => [pr.branch, pr])), heads, this.budget(base, pulls));
      for (const pr of pulls) {
        // Revert PRs are the loop's: they are not any group's, and kerf never closes them.
        if (base.groups.has(pr.branch) || isRollbackBranch(prefix, pr.branch)) continue;
        try {
          await this.orphan(base, pr, heads.get(pr.branch) ?? null);
        } catch (error) {
          this.fail(pr.branch, error);
        }
      }
      const basis: RunBasis = { defaultBranch, sha: base.sha, run: base.run, config: base.config, openPulls: pulls, ...(this.dashboard && { dashboard: this.dashboard }) };
      return { result: this.result(base, false), basis };
    } finally {
      await this.worktree.close();
    }
  }

  private result(base: Base, dryRun: boolean): ReconcileResult {
    return { dryRun, plan: base.run.plan, pullRequests: this.outcomes, errors: this.errors, totals: fleetTotals(base.run, base.config) };
  }

  private budget(base: Base, pulls: readonly OpenPullRequest[]): PullRequestBudget {
    // A dry run has no open PR, so nothing to count against the hour.
    const hourAgo = (this.remote?.clock().getTime() ?? 0) - 3600_000;
    return new PullRequestBudget(
      base.config.prHourlyLimit - pulls.filter((pr) => Date.parse(pr.createdAt) > hourAgo).length,
      base.config.prConcurrentLimit - pulls.length,
      base.config,
    );
  }

  /** Every group of the base in turn; a group that fails is reported and the others go on. */
  private async groups(first: Base, pullsByBranch: ReadonlyMap<string, OpenPullRequest>, heads: ReadonlyMap<string, string>, budget: PullRequestBudget): Promise<Base> {
    let base = first;
    for (const branch of [...base.groups.keys()]) {
      try {
        base = await this.group(base, branch, pullsByBranch.get(branch) ?? null, heads.get(branch) ?? null, budget);
      } catch (error) {
        this.fail(branch, error);
      }
    }
    return base;
  }

  private async readDashboard(): Promise<void> {
    try {
      const issue = await this.live.github.findIssue(DASHBOARD_MARKER);
      this.choices = readChoices(issue?.body);
      this.dashboard = { issue, hold: this.choices.hold };
    } catch (error) {
      this.fail('dashboard', error);
    }
  }

  private fail(branch: string, error: unknown): void {
    this.errors.push(failure(branch, error, this.secrets));
  }

  /** The plan on the work tree at the base (a dry run: on the checkout as it is). */
  private async plan(branch: string, sha: string): Promise<Base> {
    const run = await runPlan({ ...this.options, repo: this.worktree?.root ?? this.options.repo });
    const config = withFlags(run.config, this.options);
    const webUrl = this.remote?.github.webUrl;
    const context = reviewContext(run, config, [], webUrl ? { webUrl, ref: branch } : undefined);
    const groups = new Map(fittedGroups(run.plan.decisions, config, this.renderBody, context).map((group) => [group.branch, group]));
    return { branch, sha, run, config, groups };
  }

  /** Why kerf must keep its hands off a branch (a human took it over), or null. */
  private async stopReason(base: Base, pr: OpenPullRequest | null, head: string | null): Promise<string | null> {
    if (pr?.labels.includes(STOP_LABEL)) return `the pull request carries the label ${STOP_LABEL}`;
    if (head === null) return null;
    const commit = await this.live.git.commitInfo(head);
    if (!isKerfCommit(commit, authorOf(base.config))) {
      return `someone else pushed to the branch (commit ${code(commit.sha.slice(0, 12))} by ${code(commit.authorEmail)} is not kerf's)`;
    }
    return null;
  }

  /**
   * Says once on the PR that kerf stopped updating it, and records that in the metadata (with the
   * status, when kerf still sets one: without, the change is no longer kerf's at all): a body kerf
   * renders again (it took the branch back) drops the record, so a later take-over is said again.
   */
  private async noticeStopped(pr: OpenPullRequest, why: string, status?: WindowStatus): Promise<void> {
    const meta = readMeta(pr.body);
    if (meta?.stopped !== true) {
      await this.live.github.comment(
        pr.number,
        status
          ? `kerf no longer updates this branch: ${why}. It keeps setting the \`kerf/window\` status. To hand the change back to kerf, remove the label ${STOP_LABEL} and reset the branch to kerf's last commit, or delete the branch.`
          : `kerf no longer updates this branch: ${why}. kerf no longer proposes this change either, so it left the branch and this pull request as they are, for you to merge or close.`,
      );
    }
    if (status) await this.holdStatus(pr, status, { stopped: true });
    else if (meta && !meta.stopped) await this.live.github.updatePull(pr.number, { body: withMeta(pr.body, { ...meta, stopped: true }) });
  }

  /**
   * Who moved a branch away from the head kerf expected: another kerf run (its own commit, with the
   * change-set trailer), nobody left (deleted), or a person, with what they pushed.
   */
  private async movedBy(base: Base, branch: string, remoteSha: string | null): Promise<{ by: 'kerf' | 'deleted' } | { by: 'person'; why: string }> {
    if (remoteSha === null) return { by: 'deleted' };
    await this.live.git.fetch([branch], 2);
    const commit = await this.live.git.commitInfo(remoteSha);
    if (isKerfCommit(commit, authorOf(base.config))) return { by: 'kerf' };
    return { by: 'person', why: `someone else pushed to the branch while kerf was working on it (commit ${code(commit.sha.slice(0, 12))} by ${code(commit.authorEmail)} is not kerf's)` };
  }

  /** The status of a PR kerf does not rewrite (held, frozen, taken over), recorded in its metadata too. */
  private async holdStatus(pr: OpenPullRequest, status: WindowStatus, record: Pick<PullRequestMeta, 'stopped'> = {}): Promise<void> {
    await this.live.writer.syncStatus(pr, pr.headSha, status, false);
    const meta = readMeta(pr.body);
    if (meta && (meta.head !== pr.headSha || !sameStatus(meta.window, status) || (record.stopped && !meta.stopped))) {
      await this.live.github.updatePull(pr.number, { body: withMeta(pr.body, { ...meta, ...record, head: pr.headSha, window: status }) });
    }
  }

  /**
   * One group's PR. The checks (held back, held on the dashboard, taken over, PR limits, declined)
   * come first; a dry run has no open PR, no branch and no dashboard, and stops where a real run
   * would first write, with what it would write.
   */
  private async group(
    base: Base,
    branch: string,
    existing: OpenPullRequest | null,
    remoteHead: string | null,
    budget: PullRequestBudget,
    retried = false,
  ): Promise<Base> {
    const group = base.groups.get(branch);
    if (!group) return base; // gone after the default branch moved; an open PR of it is handled as an orphan
    // The group as planned, before its edits are tried: its targets and status for a group held as it is.
    const planned = rightsizeChangeSet(group, []);
    const outcome = (action: PullRequestAction, extra: Partial<PullRequestOutcome> = {}, pr: OpenPullRequest | null = existing): void => {
      this.outcomes.push({ branch, number: pr?.number ?? null, url: pr?.url ?? null, action, targets: planned.targets, ...extra });
    };

    if (group.proposed.length === 0) {
      // Everything is held back: the branch keeps what it carries, and the status says why not to merge it.
      if (existing) await this.holdStatus(existing, planned.status);
      outcome('held', { reason: heldReasons(group.heldBack), status: planned.status });
      return base;
    }

    const keys = group.proposed.map((decision) => targetName(decision.target));
    if (keys.every((key) => this.choices.hold.has(key))) {
      // Held on the dashboard: as with the stop label, the branch and PR stay as they are.
      if (existing) await this.holdStatus(existing, planned.status);
      outcome('held', { reason: 'held on the dashboard issue: kerf proposes nothing for it until the box is cleared' });
      return base;
    }
    const reproposed = keys.some((key) => this.choices.repropose.has(key));

    const stopped = await this.stopReason(base, existing, remoteHead);
    if (stopped) {
      if (existing) await this.noticeStopped(existing, stopped, planned.status);
      outcome('held', { reason: `kerf stopped updating ${branch}: ${stopped}` });
      return base;
    }

    if (!existing && !reproposed) {
      const limit = budget.heldBy();
      if (limit) {
        outcome('held', { reason: limit });
        return base;
      }
    }

    const { changeSet, errors } = groupChangeSet(base.run, group);
    this.errors.push(...errors);
    if (changeSet.proposed.length === 0) throw new ReconcileFailure('EditRefused', `no change of ${branch} could be written`);
    const webUrl = this.remote?.github.webUrl;
    const context = reviewContext(base.run, base.config, changeSet.edits, webUrl ? { webUrl, ref: base.branch } : undefined);
    if (!this.remote) {
      // Dry run: what the first write would be.
      budget.opened();
      const { body } = templateBody(changeSet, null, this.renderBody, context);
      const files = changeSet.edits.map((edit) => edit.path);
      outcome('opened', { title: changeSet.title, status: changeSet.status, commitMessage: changeSet.commitMessage, body, files });
      return base;
    }
    if (!existing) {
      const declined = await this.declinedBy(branch, base.branch, changeSet.hash);
      if (declined) {
        outcome('held', { reason: `a person closed #${declined.number} with this same change without merging it; kerf proposes it again only when the change differs` });
        return base;
      }
    }
    let head = remoteHead;
    let pushed = false;
    const { writer } = this.remote;
    if (reproposed || (await writer.needsRebuild(base, remoteHead, changeSet))) {
      const result = await writer.build(base, changeSet, remoteHead);
      if (result.kind === 'lease-rejected') {
        const moved = await this.movedBy(base, branch, result.remoteSha);
        if (moved.by === 'person') {
          if (existing) await this.noticeStopped(existing, moved.why, changeSet.status);
          outcome('held', { reason: `kerf stopped updating ${branch}: ${moved.why} (the push lease failed)` });
        } else {
          // Another kerf run got there first (or deleted the branch): its result stands, nothing to tell anyone.
          outcome('held', { reason: `${moved.by === 'kerf' ? 'another kerf run updated' : 'someone deleted'} ${branch} while this run was working on it; this run left it alone` });
        }
        return base;
      }
      if (result.kind === 'rejected') {
        const moved = retried ? null : await this.rebase(base);
        if (!moved) throw new ReconcileFailure('PushRejected', `git refused the push of ${branch}: ${result.message}`);
        // The default branch moved under the push: rebuild on the new one and try once more.
        return this.group(moved, branch, existing, remoteHead, budget, true);
      }
      head = result.sha;
      pushed = true;
    }
    if (head === null) throw new ReconcileFailure('NoBranch', `${branch} has no head`);
    const published = await writer.publish(base, changeSet, existing, head, pushed, templateBody(changeSet, head, this.renderBody, context));
    if (published.created) budget.opened();
    this.outcomes.push(published.outcome);
    return base;
  }

  /** The PR a person closed without merging that carried `changeSet`, or null (kerf's own closes and closed take-overs do not count). */
  private async declinedBy(branch: string, baseBranch: string, changeSet: string) {
    const closed = await this.live.github.listClosedPulls(branch, baseBranch);
    return (
      closed.find((pr) => {
        const meta = readMeta(pr.body);
        // A PR a person had taken over and then closed is handed back (as kerf's notice tells them), no decision.
        return !pr.merged && meta !== null && meta.closedBy !== 'kerf' && meta.stopped !== true && meta.changeSet === changeSet;
      }) ?? null
    );
  }

  /** The run's base after the default branch moved, or null when it did not. */
  private async rebase(base: Base): Promise<Base | null> {
    const sha = (await this.live.git.fetch([base.branch], 1)).get(base.branch) as string;
    if (sha === base.sha) return null;
    this.ports.log?.info('default branch moved; planning again', { branch: base.branch, from: base.sha, to: sha });
    await (this.worktree as Worktree).reset(sha);
    return this.plan(base.branch, sha);
  }

  /** An open kerf PR whose branch no group wants any more: closed with the reason, unless frozen (Z1). */
  private async orphan(base: Base, pr: OpenPullRequest, head: string | null): Promise<void> {
    const meta = readMeta(pr.body);
    if (!meta) return; // a branch under the prefix, but not a PR kerf opened
    const record = (action: PullRequestAction, reason: string, status?: WindowStatus) =>
      this.outcomes.push({ branch: pr.branch, number: pr.number, url: pr.url, action, reason, targets: meta.targets, ...(status && { status }) });

    const hold = this.frozen(base, meta.targets);
    if (hold) {
      const status: WindowStatus = { state: 'failure', description: `Do not merge: ${reasonWords(hold)}` };
      await this.holdStatus(pr, status);
      record('held', `${hold}: ${reasonWords(hold)}; nothing is closed or released while it holds`, status);
      return;
    }
    const stopped = await this.stopReason(base, pr, head);
    if (stopped) {
      record('held', `no longer wanted, but kerf stopped updating ${pr.branch}: ${stopped}; left to its new owner`);
      return;
    }
    const reason = this.closeReason(base, meta.targets);
    const told = this.closeReason(base, meta.targets, code);
    if (head !== null) {
      // Deleted only while it is still the commit kerf saw: a commit pushed since is never dropped.
      const deleted: PushResult = await this.live.git.deleteBranch(pr.branch, head);
      if (deleted.kind === 'rejected') throw new ReconcileFailure('PushRejected', `git refused to delete ${pr.branch}: ${deleted.message}`);
      if (deleted.kind === 'lease-rejected') {
        const moved = await this.movedBy(base, pr.branch, deleted.remoteSha);
        if (moved.by === 'person') {
          await this.noticeStopped(pr, moved.why);
          record('held', `no longer wanted, but ${moved.why}; left to its new owner`);
        } else {
          record('held', `no longer wanted, but ${moved.by === 'kerf' ? 'another kerf run updated' : 'someone deleted'} ${pr.branch} meanwhile; left alone`);
        }
        return;
      }
    }
    // Marked as kerf's close, so it is not taken for a person's decision on a later run.
    await this.live.github.updatePull(pr.number, { state: 'closed', body: withMeta(pr.body, { ...meta, closedBy: 'kerf' }) });
    await this.live.github.comment(pr.number, `kerf closes this pull request: ${told}.`);
    record('closed', reason);
  }

  /** Paused or frozen above the policy (Z1, Z4), or by the freeze windows of a target's policy. */
  private frozen(base: Base, targets: readonly string[]): 'Paused' | 'FreezeWindow' | null {
    const { index } = base.run;
    const policies = targets.map((target) => {
      const workload = index.workloads.get(target);
      const match = workload && selectPolicy(workload, index.policies.filter((policy) => policy.namespace === workload.ref.namespace));
      return match?.kind === 'covered' ? match.policy : undefined;
    });
    const holds = [undefined, ...policies].map((policy) => pauseOrFreeze(base.config, policy, this.options.fleetPaused, this.options.now));
    return holds.find((hold) => hold === 'Paused') ?? holds.find((hold) => hold !== null) ?? null;
  }

  /** Why the change is no longer wanted, per target (R2); `name` shows a target or branch (as code, in a comment). */
  private closeReason(base: Base, targets: readonly string[], name: (value: string) => string = (value) => value): string {
    const decisions = new Map(base.run.plan.decisions.map((d) => [workloadKey(d.target), d]));
    const branchOf = (target: ObjectRef) => [...base.groups.values()].find((g) => g.proposed.some((d) => workloadKey(d.target) === workloadKey(target)))?.branch;
    return targets
      .map((target) => {
        const decision = decisions.get(target);
        if (!decision) return `${name(target)}: its recommendation is gone`;
        if (decision.action === 'pull-request') return `${name(target)}: now proposed on ${name(branchOf(decision.target) ?? 'another branch')}`;
        if (decision.action === 'in-place') return `${name(target)}: its change now goes in place, through the in-cluster helper`;
        switch (decision.phase) {
          case 'UpToDate':
            return `${name(target)}: already at the recommended values`;
          case 'Recommended':
            return `${name(target)}: its policy is now mode: recommend, so kerf releases its fields`;
          case 'Unmanaged':
            return `${name(target)}: no policy covers it any more, so kerf releases its fields`;
          default:
            return `${name(target)}: ${decision.phase}${decision.reason ? ` (${decision.reason})` : ''}`;
        }
      })
      .join('; ');
  }
}

function failure(branch: string, error: unknown, secrets: readonly string[]): ReconcileError {
  const code = (error as { code?: unknown }).code;
  return { branch, code: typeof code === 'string' ? code : 'Failed', message: redact((error as Error)?.message ?? String(error), secrets) };
}

/**
 * The run's result with what closing the loop added, and the dashboard issue created or rewritten
 * from it when its content changed (an unreadable one is left alone). A dry run's result is final.
 */
export async function finishRun(reconciled: Reconciled, loop: LoopOutcome, ports: Pick<ReconcilePorts, 'github' | 'secrets'>): Promise<ReconcileResult> {
  const { result, basis } = reconciled;
  if (!basis) return result;
  const secrets = ports.secrets ?? [];
  const finished: ReconcileResult = {
    ...result,
    pullRequests: [...result.pullRequests, ...loop.pullRequests],
    errors: [...result.errors, ...loop.errors.map((error) => ({ ...error, message: redact(error.message, secrets) }))],
  };
  const { dashboard } = basis;
  if (!dashboard || !ports.github) return finished;
  // A re-propose box is done once this run acted on it: it comes back cleared.
  const body = renderDashboard(finished, { hold: dashboard.hold, repropose: new Set() });
  try {
    if (dashboard.issue === null) await ports.github.createIssue({ title: DASHBOARD_TITLE, body });
    else if (dashboard.issue.body !== body) await ports.github.updateIssue(dashboard.issue.number, { body });
  } catch (error) {
    finished.errors.push(failure('dashboard', error, secrets));
  }
  return finished;
}
