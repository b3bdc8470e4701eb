// The reconcile run: plan → edits → branches → pull requests → statuses → a summary. Every effect
// goes through the ports; a run that finds nothing new pushes nothing and writes nothing.
import type { Decision, GroupBy, KerfConfig, ObjectRef } from '../model/types.js';
import type { Logger } from '../util/logger.js';
import { workloadKey } from '../util/workload-key.js';
import { selectPolicy } from '../rules/policy-match.js';
import { pauseOrFreeze } from '../rules/decide.js';
import { planEdits } from '../plan/edits.js';
import type { Plan } from '../plan/plan.js';
import { runPlan, type PlanOptions, type PlanRun } from '../plan/run-plan.js';
import { DEFAULT_AUTHOR, type CommitInfo, type GitIdentity, type GitPort, type PushResult, type Worktree } from '../git/git.js';
import { GitHubError, type GitHubPort, type IssueRef, type OpenPullRequest } from '../github/github.js';
import { DASHBOARD_MARKER, DASHBOARD_TITLE, readChoices, renderDashboard, type DashboardChoices } from './dashboard.js';
import { changeSetHash, changeSetOfMessage, commitMessage, groupDecisions, pullRequestTitle, splitToFit, targetName, type PrGroup } from '../plan/groups.js';
import { boundBody, code, GITHUB_BODY_LIMIT } from './markdown.js';
import { bodyView, loadBodyTemplate, metaMarker, readMeta, withMeta, type PullRequestMeta, type RenderBody } from './pr-body.js';
import type { ReviewContext } from './pr-review.js';
import { impactOf, sumTotals, type Totals } from '../plan/impact.js';
import { NO_FREE_WINDOW, reasonWords } from '../plan/reason-text.js';
import { redact } from '../util/redact.js';
import { groupWindowStatus } from './window-status.js';
import type { WindowStatus } from '../github/github.js';

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
  /** The wall clock, for the hourly PR limit (GitHub's creation times are wall-clock times). */
  clock?: () => Date;
  log?: Logger;
  renderBody?: RenderBody;
  /** Secrets to keep out of every message (the token). */
  secrets?: readonly string[];
  /** Runs after the PR groups, on the same base (closing the loop with the cluster); not in a dry run. */
  afterRun?: (context: RunContext) => Promise<{ pullRequests: PullRequestOutcome[]; errors: ReconcileError[] }>;
}

/** What a run worked from, for `afterRun`. */
export interface RunContext {
  defaultBranch: string;
  /** The default branch's head the run planned on. */
  sha: string;
  run: PlanRun;
  config: KerfConfig;
  /** A work tree kerf may reset and commit in (closed after `afterRun`). */
  worktree: Worktree;
  /** Open PRs whose branch is under the prefix, as the run found them. */
  openPulls: readonly OpenPullRequest[];
  /** What the run did with each group's PR. */
  pullRequests: readonly PullRequestOutcome[];
}

export type PullRequestAction = 'opened' | 'updated' | 'unchanged' | 'closed' | 'held';

export interface PullRequestOutcome {
  branch: string;
  number: number | null;
  url: string | null;
  action: PullRequestAction;
  reason?: string;
  title?: string;
  targets: string[];
  status?: WindowStatus;
  /** Dry run only: what would be committed and written. */
  commitMessage?: string;
  body?: string;
  files?: string[];
}

export interface ReconcileError {
  branch?: string;
  code: string;
  message: string;
}

export interface ReconcileResult {
  dryRun: boolean;
  plan: Plan;
  pullRequests: PullRequestOutcome[];
  errors: ReconcileError[];
  /** Requests freed or added across replicas by every change proposed in Git (and their monthly price, with pricing). */
  totals?: FleetTotals;
  /** Dry run, with the dashboard on: the body the dashboard issue would get. */
  dashboard?: string;
}

export interface FleetTotals extends Totals {
  currency?: string;
  /** Workloads whose changes the totals add up. */
  workloads: number;
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

export type ReconcileFailureCode = 'MissingPorts' | 'EditRefused' | 'PushRejected' | 'NoBranch';

/** A failure of the run's own making; within a group it is reported and the other groups go on. */
export class ReconcileFailure extends Error {
  constructor(
    readonly code: ReconcileFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'ReconcileFailure';
  }
}

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
  return [...new Set(decisions.map((d) => `${targetName(d.target)}: ${d.action === 'wait' ? `OutsideMaintenanceWindow: ${NO_FREE_WINDOW.says}` : d.reason ? `${d.reason}: ${reasonWords(d.reason)}` : d.action}`))].join('; ');
}

function targetsOf(group: PrGroup): string[] {
  return [...group.proposed, ...group.heldBack].map((d) => targetName(d.target));
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

export async function reconcile(options: ReconcileOptions, ports: ReconcilePorts): Promise<ReconcileResult> {
  const renderBody = ports.renderBody ?? (await loadBodyTemplate());
  return options.dryRun ? dryRun(options, renderBody) : new Reconciler(options, ports, renderBody).run();
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

/**
 * Title, body and status of a group's PR; `head` (unknown in a dry run) goes into the metadata with
 * the status. The body is bounded to GitHub's limit as the last step; what did not fit is in `rest`.
 */
function renderGroup(group: PrGroup, renderBody: RenderBody, head: string | null, context: ReviewContext) {
  const status = groupWindowStatus(group.proposed.length > 0 ? group.proposed : group.heldBack);
  const changeSet = changeSetHash(group.proposed);
  const meta: PullRequestMeta = { changeSet, targets: targetsOf(group), ...(head !== null && { head, window: status }) };
  const marker = metaMarker(meta);
  let rendered = renderBody(bodyView(group, status, meta, context));
  if (group.part) {
    const note = `> GitHub limits a description to ${GITHUB_BODY_LIMIT.toLocaleString('en-US')} characters, so this change is split over ${group.part.count} pull requests; this is part ${group.part.index}.\n\n`;
    const at = rendered.lastIndexOf(marker);
    rendered = at < 0 ? `${note}${rendered}` : rendered.slice(0, at) + note + rendered.slice(at);
  }
  const { body, rest } = boundBody(rendered, marker);
  return { title: pullRequestTitle(group), body, rest, status, changeSet };
}

/** A head for measuring bodies before the real one is known (the metadata holds one). */
const SOME_HEAD = '0'.repeat(40);

/** Room left for what only the real render knows (the new files the edits add), so a fitted body is never cut. */
const FIT_MARGIN = 4096;

/** The run's PR groups, a group whose body would not fit GitHub's limit split into parts that do. */
function fittedGroups(decisions: readonly Decision[], config: KerfConfig, renderBody: RenderBody, context: ReviewContext): PrGroup[] {
  const fits = (group: PrGroup) => renderGroup(group, renderBody, SOME_HEAD, context).body.length <= GITHUB_BODY_LIMIT - FIT_MARGIN;
  return groupDecisions(decisions, config).flatMap((group) => splitToFit(group, fits));
}

function sameStatus(a: WindowStatus | null | undefined, b: WindowStatus): boolean {
  return a?.state === b.state && a.description === b.description;
}

/** Applies the group's edits to the scanned files; the decisions that landed form the PR content. */
function groupEdits(run: PlanRun, group: PrGroup) {
  const edits = planEdits(run.index, group.proposed);
  const errors: ReconcileError[] = edits.errors.map((error) => ({ branch: group.branch, code: 'EditRefused', message: error.message }));
  return { edits: edits.edits, content: { ...group, proposed: edits.applied }, errors };
}

/** Reads nothing from GitHub, assumes no open PRs, touches no ref: prints what a run would do. */
async function dryRun(options: ReconcileOptions, renderBody: RenderBody): Promise<ReconcileResult> {
  const run = await runPlan(options);
  const config = withFlags(run.config, options);
  const budget = new PullRequestBudget(config.prHourlyLimit, config.prConcurrentLimit, config);
  const pullRequests: PullRequestOutcome[] = [];
  const errors: ReconcileError[] = [];
  for (const group of fittedGroups(run.plan.decisions, config, renderBody, reviewContext(run, config, []))) {
    const targets = targetsOf(group);
    if (group.proposed.length === 0) {
      pullRequests.push({ branch: group.branch, number: null, url: null, action: 'held', reason: heldReasons(group.heldBack), targets });
      continue;
    }
    const limit = budget.heldBy();
    if (limit) {
      pullRequests.push({ branch: group.branch, number: null, url: null, action: 'held', reason: limit, targets });
      continue;
    }
    const { edits, content, errors: editErrors } = groupEdits(run, group);
    errors.push(...editErrors);
    if (content.proposed.length === 0) continue;
    budget.opened();
    const rendered = renderGroup(content, renderBody, null, reviewContext(run, config, edits));
    pullRequests.push({
      branch: group.branch,
      number: null,
      url: null,
      action: 'opened',
      title: rendered.title,
      targets,
      status: rendered.status,
      commitMessage: commitMessage(content),
      body: rendered.body,
      files: edits.map((edit) => edit.path),
    });
  }
  const result: ReconcileResult = { dryRun: true, plan: run.plan, pullRequests, errors, totals: fleetTotals(run, config) };
  return config.dashboard === false ? result : { ...result, dashboard: renderDashboard(result, NO_CHOICES) };
}

class Reconciler {
  private readonly git: GitPort;
  private readonly github: GitHubPort;
  private readonly secrets: readonly string[];
  private readonly errors: ReconcileError[] = [];
  private readonly outcomes: PullRequestOutcome[] = [];
  private worktree: Worktree | undefined;
  /** The dashboard issue as this run found it; undefined when it is off or could not be read. */
  private dashboard: IssueRef | null | undefined;
  private choices: DashboardChoices = NO_CHOICES;

  constructor(
    private readonly options: ReconcileOptions,
    private readonly ports: ReconcilePorts,
    private readonly renderBody: RenderBody,
  ) {
    if (!ports.git || !ports.github) throw new ReconcileFailure('MissingPorts', 'reconcile needs a Git and a GitHub port unless it is a dry run');
    this.git = ports.git;
    this.github = ports.github;
    this.secrets = ports.secrets ?? [];
  }

  async run(): Promise<ReconcileResult> {
    const defaultBranch = await this.git.defaultBranch();
    const sha = (await this.git.fetch([defaultBranch], 1)).get(defaultBranch) as string;
    this.worktree = await this.git.openWorktree(sha);
    try {
      let base = await this.plan(defaultBranch, sha);
      const prefix = base.config.branchPrefix;
      const remote = await this.git.branches(prefix);
      const heads = await this.git.fetch([...remote.keys()], 2);
      const pulls = (await this.github.listOpenPulls()).filter((pr) => pr.base === defaultBranch && pr.branch.startsWith(prefix));
      const pullsByBranch = new Map(pulls.map((pr) => [pr.branch, pr]));
      // A pause writes nothing, the dashboard included.
      if (base.config.dashboard !== false && !base.config.pause && !this.options.fleetPaused) await this.readDashboard();
      const hourAgo = (this.ports.clock ?? (() => new Date()))().getTime() - 3600_000;
      const budget = new PullRequestBudget(
        base.config.prHourlyLimit - pulls.filter((pr) => Date.parse(pr.createdAt) > hourAgo).length,
        base.config.prConcurrentLimit - pulls.length,
        base.config,
      );

      for (const branch of [...base.groups.keys()]) {
        try {
          base = await this.group(base, branch, pullsByBranch.get(branch) ?? null, heads.get(branch) ?? null, budget);
        } catch (error) {
          this.fail(branch, error);
        }
      }
      for (const pr of pulls) {
        if (base.groups.has(pr.branch)) continue;
        try {
          await this.orphan(base, pr, heads.get(pr.branch) ?? null);
        } catch (error) {
          this.fail(pr.branch, error);
        }
      }
      if (this.ports.afterRun) {
        const context = { defaultBranch, sha: base.sha, run: base.run, config: base.config, worktree: this.worktree, openPulls: pulls, pullRequests: [...this.outcomes] };
        const after = await this.ports.afterRun(context);
        this.outcomes.push(...after.pullRequests);
        this.errors.push(...after.errors.map((error) => ({ ...error, message: redact(error.message, this.secrets) })));
      }
      const result = { dryRun: false, plan: base.run.plan, pullRequests: this.outcomes, errors: this.errors, totals: fleetTotals(base.run, base.config) };
      await this.writeDashboard(result);
      return result;
    } finally {
      await this.worktree.close();
    }
  }

  private async readDashboard(): Promise<void> {
    try {
      this.dashboard = await this.github.findIssue(DASHBOARD_MARKER);
      this.choices = readChoices(this.dashboard?.body);
    } catch (error) {
      this.fail('dashboard', error);
    }
  }

  /** Creates the dashboard issue, or rewrites it when its content changed; an unreadable one is left alone. */
  private async writeDashboard(result: ReconcileResult): Promise<void> {
    if (this.dashboard === undefined) return;
    // A re-propose box is done once this run acted on it: it comes back cleared.
    const body = renderDashboard(result, { hold: this.choices.hold, repropose: new Set() });
    try {
      if (this.dashboard === null) await this.github.createIssue({ title: DASHBOARD_TITLE, body });
      else if (this.dashboard.body !== body) await this.github.updateIssue(this.dashboard.number, { body });
    } catch (error) {
      this.fail('dashboard', error);
    }
  }

  private fail(branch: string, error: unknown): void {
    const code = (error as { code?: unknown }).code;
    this.errors.push({
      branch,
      code: typeof code === 'string' ? code : 'Failed',
      message: redact((error as Error)?.message ?? String(error), this.secrets),
    });
  }

  private async plan(branch: string, sha: string): Promise<Base> {
    const worktree = this.worktree as Worktree;
    const run = await runPlan({ ...this.options, repo: worktree.root });
    const config = withFlags(run.config, this.options);
    const webUrl = this.github.webUrl;
    const context = reviewContext(run, config, [], webUrl ? { webUrl, ref: branch } : undefined);
    const groups = new Map(fittedGroups(run.plan.decisions, config, this.renderBody, context).map((group) => [group.branch, group]));
    return { branch, sha, run, config, groups };
  }

  private author(base: Base): GitIdentity {
    return base.config.author ?? DEFAULT_AUTHOR;
  }

  /** Why kerf must keep its hands off a branch (a human took it over), or null. */
  private async stopReason(base: Base, pr: OpenPullRequest | null, head: string | null): Promise<string | null> {
    if (pr?.labels.includes(STOP_LABEL)) return `the pull request carries the label ${STOP_LABEL}`;
    if (head === null) return null;
    const commit = await this.git.commitInfo(head);
    if (!isKerfCommit(commit, this.author(base))) {
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
      await this.github.comment(
        pr.number,
        status
          ? `kerf no longer updates this branch: ${why}. It keeps setting the \`kerf/window\` status. To hand the change back to kerf, remove the label ${STOP_LABEL} and reset the branch to kerf's last commit, or delete the branch.`
          : `kerf no longer updates this branch: ${why}. kerf no longer proposes this change either, so it left the branch and this pull request as they are, for you to merge or close.`,
      );
    }
    if (status) await this.holdStatus(pr, status, { stopped: true });
    else if (meta && !meta.stopped) await this.github.updatePull(pr.number, { body: withMeta(pr.body, { ...meta, stopped: true }) });
  }

  /**
   * Who moved a branch away from the head kerf expected: another kerf run (its own commit, with the
   * change-set trailer), nobody left (deleted), or a person, with what they pushed.
   */
  private async movedBy(base: Base, branch: string, remoteSha: string | null): Promise<{ by: 'kerf' | 'deleted' } | { by: 'person'; why: string }> {
    if (remoteSha === null) return { by: 'deleted' };
    await this.git.fetch([branch], 2);
    const commit = await this.git.commitInfo(remoteSha);
    if (isKerfCommit(commit, this.author(base))) return { by: 'kerf' };
    return { by: 'person', why: `someone else pushed to the branch while kerf was working on it (commit ${code(commit.sha.slice(0, 12))} by ${code(commit.authorEmail)} is not kerf's)` };
  }

  /**
   * Writes the status only when its state or description would change. What is on the head is
   * known without a request when the PR's metadata recorded it for this head; a head kerf has
   * just pushed (`fresh`) has none yet.
   */
  private async syncStatus(pr: OpenPullRequest | null, head: string, status: WindowStatus, fresh: boolean): Promise<void> {
    if (!fresh) {
      const meta = readMeta(pr?.body);
      const current = meta?.head === head && meta.window ? meta.window : await this.github.getWindowStatus(head);
      if (sameStatus(current, status)) return;
    }
    await this.github.setWindowStatus(head, status);
  }

  /** The status of a PR kerf does not rewrite (held, frozen, taken over), recorded in its metadata too. */
  private async holdStatus(pr: OpenPullRequest, status: WindowStatus, record: Pick<PullRequestMeta, 'stopped'> = {}): Promise<void> {
    await this.syncStatus(pr, pr.headSha, status, false);
    const meta = readMeta(pr.body);
    if (meta && (meta.head !== pr.headSha || !sameStatus(meta.window, status) || (record.stopped && !meta.stopped))) {
      await this.github.updatePull(pr.number, { body: withMeta(pr.body, { ...meta, ...record, head: pr.headSha, window: status }) });
    }
  }

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
    const targets = targetsOf(group);
    const outcome = (action: PullRequestAction, extra: Partial<PullRequestOutcome> = {}, pr: OpenPullRequest | null = existing): void => {
      this.outcomes.push({ branch, number: pr?.number ?? null, url: pr?.url ?? null, action, targets, ...extra });
    };

    if (group.proposed.length === 0) {
      // Everything is held back: the branch keeps what it carries, and the status says why not to merge it.
      const status = groupWindowStatus(group.heldBack);
      if (existing) await this.holdStatus(existing, status);
      outcome('held', { reason: heldReasons(group.heldBack), status });
      return base;
    }

    const keys = group.proposed.map((decision) => targetName(decision.target));
    if (keys.every((key) => this.choices.hold.has(key))) {
      // Held on the dashboard: as with the stop label, the branch and PR stay as they are.
      if (existing) await this.holdStatus(existing, groupWindowStatus(group.proposed));
      outcome('held', { reason: 'held on the dashboard issue: kerf proposes nothing for it until the box is cleared' });
      return base;
    }
    const reproposed = keys.some((key) => this.choices.repropose.has(key));

    const stopped = await this.stopReason(base, existing, remoteHead);
    if (stopped) {
      if (existing) await this.noticeStopped(existing, stopped, groupWindowStatus(group.proposed));
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

    const { edits, content, errors } = groupEdits(base.run, group);
    this.errors.push(...errors);
    if (content.proposed.length === 0) throw new ReconcileFailure('EditRefused', `no change of ${branch} could be written`);
    const changeSet = changeSetHash(content.proposed);
    if (!existing) {
      const declined = await this.declinedBy(branch, base.branch, changeSet);
      if (declined) {
        outcome('held', { reason: `a person closed #${declined.number} with this same change without merging it; kerf proposes it again only when the change differs` });
        return base;
      }
    }
    let head = remoteHead;
    let pushed = false;
    if (reproposed || (await this.needsRebuild(base, remoteHead, changeSet))) {
      const result = await this.buildAndPush(base, content, edits, remoteHead);
      if (result.kind === 'lease-rejected') {
        const moved = await this.movedBy(base, branch, result.remoteSha);
        if (moved.by === 'person') {
          if (existing) await this.noticeStopped(existing, moved.why, groupWindowStatus(content.proposed));
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
    const webUrl = this.github.webUrl;
    const rendered = renderGroup(content, this.renderBody, head, reviewContext(base.run, base.config, edits, webUrl ? { webUrl, ref: base.branch } : undefined));

    if (!existing) {
      // The status goes on the head before the PR exists, so the body's metadata never claims a status that is not there.
      await this.syncStatus(null, head, rendered.status, pushed);
      const { pr, created } = await this.open(base, branch, rendered.title, rendered.body);
      if (created) {
        budget.opened();
        await this.postRest(pr.number, rendered.rest);
        if (base.config.labels.length > 0) await this.github.addLabels(pr.number, base.config.labels);
        if (base.config.reviewers.length > 0 || base.config.teamReviewers.length > 0) {
          await this.github.requestReviewers(pr.number, { reviewers: base.config.reviewers, teamReviewers: base.config.teamReviewers });
        }
        await this.autoMerge(base, pr, rendered.status);
        outcome('opened', { title: rendered.title, status: rendered.status }, pr);
        return base;
      }
      return this.update(base, branch, pr, head, pushed, rendered, targets);
    }
    return this.update(base, branch, existing, head, pushed, rendered, targets);
  }

  private async update(
    base: Base,
    branch: string,
    pr: OpenPullRequest,
    head: string,
    pushed: boolean,
    rendered: ReturnType<typeof renderGroup>,
    targets: string[],
  ): Promise<Base> {
    let changed = pushed;
    await this.syncStatus(pr, head, rendered.status, pushed);
    if (pr.title !== rendered.title || pr.body !== rendered.body) {
      await this.github.updatePull(pr.number, { title: rendered.title, body: rendered.body });
      if (pr.body !== rendered.body) await this.postRest(pr.number, rendered.rest);
      changed = true;
    }
    const missing = base.config.labels.filter((label) => !pr.labels.includes(label));
    if (missing.length > 0) {
      await this.github.addLabels(pr.number, missing);
      changed = true;
    }
    if (await this.autoMerge(base, pr, rendered.status)) changed = true;
    this.outcomes.push({ branch, number: pr.number, url: pr.url, action: changed ? 'updated' : 'unchanged', title: rendered.title, targets, status: rendered.status });
    return base;
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
  private async autoMerge(base: Base, pr: OpenPullRequest, status: WindowStatus): Promise<boolean> {
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
  private async open(base: Base, branch: string, title: string, body: string): Promise<{ pr: OpenPullRequest; created: boolean }> {
    try {
      return { pr: await this.github.createPull({ branch, base: base.branch, title, body }), created: true };
    } catch (error) {
      if (!(error instanceof GitHubError) || error.code !== 'PullRequestExists') throw error;
      const pr = await this.github.findOpenPull(branch, base.branch);
      if (!pr) throw error;
      return { pr, created: false };
    }
  }

  /** The PR a person closed without merging that carried `changeSet`, or null (kerf's own closes and closed take-overs do not count). */
  private async declinedBy(branch: string, baseBranch: string, changeSet: string) {
    const closed = await this.github.listClosedPulls(branch, baseBranch);
    return (
      closed.find((pr) => {
        const meta = readMeta(pr.body);
        // A PR a person had taken over and then closed is handed back (as kerf's notice tells them), no decision.
        return !pr.merged && meta !== null && meta.closedBy !== 'kerf' && meta.stopped !== true && meta.changeSet === changeSet;
      }) ?? null
    );
  }

  /** A branch is rebuilt only when its change set differs or it no longer merges cleanly. */
  private async needsRebuild(base: Base, head: string | null, changeSet: string): Promise<boolean> {
    if (head === null) return true;
    const commit = await this.git.commitInfo(head);
    if (changeSetOfMessage(commit.message) !== changeSet) return true;
    const [parent] = commit.parents;
    return parent === undefined || !(await this.git.mergesCleanly(parent, head, base.sha));
  }

  private async buildAndPush(base: Base, content: PrGroup, edits: readonly { path: string; after: string }[], expected: string | null) {
    const worktree = this.worktree as Worktree;
    await worktree.reset(base.sha);
    const sha = await worktree.commit(
      edits.map((edit) => ({ path: edit.path, content: edit.after })),
      commitMessage(content),
      this.author(base),
    );
    const result = await this.git.push(sha, content.branch, expected);
    return result.kind === 'pushed' ? { kind: 'pushed' as const, sha } : result;
  }

  /** The run's base after the default branch moved, or null when it did not. */
  private async rebase(base: Base): Promise<Base | null> {
    const sha = (await this.git.fetch([base.branch], 1)).get(base.branch) as string;
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
      const deleted: PushResult = await this.git.deleteBranch(pr.branch, head);
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
    await this.github.updatePull(pr.number, { state: 'closed', body: withMeta(pr.body, { ...meta, closedBy: 'kerf' }) });
    await this.github.comment(pr.number, `kerf closes this pull request: ${told}.`);
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
