// One change set per branch (Flux image-automation's Result → Change{old, new, setter} is the
// model): made once from a group's decisions and the edits that landed, it drives the commit
// message and its trailer, the PR title and body, the `kerf/window` status and the run's outcome,
// in a dry run as in a real one, for a rightsizing PR as for the loop's revert PR. The run's
// result types live here too, so what reads a result (dashboard, loop, Action) needs no reconcile.
import type { Decision, KerfConfig } from '../model/types.js';
import type { FileEdit } from '../plan/edits.js';
import { CHANGE_SET_TRAILER, changeSetHash, commitMessage, pullRequestTitle, targetName, type PrGroup } from '../plan/groups.js';
import type { Totals } from '../plan/impact.js';
import type { Plan } from '../plan/plan.js';
import type { PlanRun } from '../plan/run-plan.js';
import type { IssueRef, OpenPullRequest } from '../github/github.js';
import { boundBody, GITHUB_BODY_LIMIT } from './markdown.js';
import { bodyView, metaMarker, type PullRequestMeta, type RenderBody } from './pr-body.js';
import type { ReviewContext } from './pr-review.js';
import { groupWindowStatus } from './window-status.js';
import type { WindowStatus } from '../github/github.js';

export interface ChangeSet extends PrGroup {
  kind: 'rightsize' | 'rollback';
  title: string;
  /** Every workload the PR names, proposed and held back. */
  targets: string[];
  /** The files as the branch's commit writes them. */
  edits: FileEdit[];
  /** What the branch carries, as a short hash: the commit's trailer and the body's metadata. */
  hash: string;
  status: WindowStatus;
  /** The commit message, ending with the change-set trailer. */
  commitMessage: string;
  /** Labels the PR gets besides the configured ones. */
  labels: string[];
}

function targetsOf(group: PrGroup): string[] {
  return [...group.proposed, ...group.heldBack].map((d) => targetName(d.target));
}

/** A group's change set; `edits` are those of the decisions in `group.proposed` (none for a measure). */
export function rightsizeChangeSet(group: PrGroup, edits: FileEdit[]): ChangeSet {
  const hash = changeSetHash(group.proposed);
  return {
    ...group,
    kind: 'rightsize',
    title: pullRequestTitle(group),
    targets: targetsOf(group),
    edits,
    hash,
    status: groupWindowStatus(group.proposed.length > 0 ? group.proposed : group.heldBack),
    commitMessage: commitMessage(group, hash),
    labels: [],
  };
}

/** The revert PR's change set: the decision that takes a workload back to its values before kerf's merge. */
export function rollbackChangeSet(input: { branch: string; decision: Decision; edits: FileEdit[]; subject: string; status: WindowStatus; label: string }): ChangeSet {
  const hash = changeSetHash([input.decision]);
  const target = targetName(input.decision.target);
  return {
    branch: input.branch,
    proposed: [input.decision],
    heldBack: [],
    kind: 'rollback',
    title: `kerf: roll back ${target}`,
    targets: [target],
    edits: input.edits,
    hash,
    status: input.status,
    commitMessage: `${input.subject}\n\n${commitTrailer(hash)}\n`,
    labels: [input.label],
  };
}

function commitTrailer(hash: string): string {
  return `${CHANGE_SET_TRAILER}: ${hash}`;
}

export interface RenderedBody {
  body: string;
  /** What did not fit GitHub's limit, for follow-up comments. */
  rest: string[];
}

/** A PR body's text around its metadata marker. */
export type BodyText = (meta: PullRequestMeta, marker: string) => string;

/**
 * The PR body; `head` (unknown in a dry run) goes into the metadata with the status. The body is
 * bounded to GitHub's limit as the last step; what did not fit is in `rest`.
 */
export function renderBody(changeSet: ChangeSet, head: string | null, text: BodyText): RenderedBody {
  const meta: PullRequestMeta = { changeSet: changeSet.hash, targets: changeSet.targets, ...(head !== null && { head, window: changeSet.status }) };
  const marker = metaMarker(meta);
  return boundBody(text(meta, marker), marker);
}

/** The rightsizing body from the template (templates/pr/body.md), with a note on a group split over several PRs. */
export function templateText(changeSet: ChangeSet, render: RenderBody, context: ReviewContext): BodyText {
  return (meta, marker) => {
    const rendered = render(bodyView(changeSet, changeSet.status, meta, context));
    if (!changeSet.part) return rendered;
    const note = `> GitHub limits a description to ${GITHUB_BODY_LIMIT.toLocaleString('en-US')} characters, so this change is split over ${changeSet.part.count} pull requests; this is part ${changeSet.part.index}.\n\n`;
    const at = rendered.lastIndexOf(marker);
    return at < 0 ? `${note}${rendered}` : rendered.slice(0, at) + note + rendered.slice(at);
  };
}

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

/** What closing the loop adds to a run: its revert PRs and its errors. */
export interface LoopOutcome {
  pullRequests: PullRequestOutcome[];
  errors: ReconcileError[];
}

export interface FleetTotals extends Totals {
  currency?: string;
  /** Workloads whose changes the totals add up. */
  workloads: number;
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

/** What a real run worked from and left, as plain values: what closing the loop and the dashboard need. */
export interface RunBasis {
  defaultBranch: string;
  /** The default branch's head the run planned on. */
  sha: string;
  run: PlanRun;
  config: KerfConfig;
  /** Open PRs whose branch is under the prefix, as the run found them. */
  openPulls: readonly OpenPullRequest[];
  /** The dashboard issue as the run found it (null: none yet) and the workloads held on it; absent when it is off or unreadable. */
  dashboard?: { issue: IssueRef | null; hold: ReadonlySet<string> };
}
