// The revert PR of a rollout that breached its health watch: only the CPU/memory fields, back to
// the values before kerf's merge, labelled kerf/rollback, and mergeable at once: its kerf/window
// status is success even during a freeze or outside a window (Z2: rollbacks still run).
import type { Decision, ObjectRef } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import { computeChanges } from '../rules/changes.js';
import { planEdits } from '../plan/edits.js';
import { DEFAULT_AUTHOR, type GitPort } from '../git/git.js';
import type { GitHubPort } from '../github/github.js';
import { describeChanges } from '../plan/plan-table.js';
import { ReconcileFailure, type PullRequestOutcome, type RunContext } from './reconcile.js';
import type { PreviousValues } from './status-writeback.js';
import type { WindowStatus } from '../github/github.js';

export const ROLLBACK_LABEL = 'kerf/rollback';
export const ROLLBACK_STATUS: WindowStatus = { state: 'success', description: 'Rollback after a health breach: merge now, even in a freeze' };

/** `kerf/_rollback/<namespace>/<kind>/<name>`: `_rollback` cannot be a namespace, so no kerf branch is its prefix. */
export function rollbackBranch(prefix: string, target: ObjectRef): string {
  return `${prefix}_rollback/${target.namespace}/${target.kind.toLowerCase()}/${target.name}`;
}

function rollbackBody(target: string, breach: string, decision: Decision): string {
  const rows = decision.changes.map((c) => `| ${c.container} | ${c.field} | ${c.from ?? '(unset)'} | ${c.to ?? '(unset)'} |`);
  return [
    `kerf rolls back the rightsizing of **${target}**: its health watch saw a breach after the change was applied.`,
    '',
    `> ${breach}`,
    '',
    '| container | field | now | back to |',
    '|---|---|---|---|',
    ...rows,
    '',
    "Only CPU and memory fields change, back to their values before kerf's merge. The `kerf/window` status is success even during a freeze or outside a maintenance window: merge it now.",
    'kerf does not propose this recommendation again until its spec changes.',
  ].join('\n');
}

/**
 * Opens the revert PR of `target`, or finds the one already open. Resolves null when Git already
 * holds the previous values (someone reverted by hand): there is nothing to roll back.
 */
export async function openRollback(input: {
  context: RunContext;
  git: GitPort;
  github: GitHubPort;
  target: ObjectRef;
  previous: PreviousValues;
  breach: string;
}): Promise<PullRequestOutcome | null> {
  const { context, git, github, target } = input;
  const key = workloadKey(target);
  const branch = rollbackBranch(context.config.branchPrefix, target);
  const open = context.openPulls.find((pr) => pr.branch === branch);
  if (open) return { branch, number: open.number, url: open.url, action: 'unchanged', title: open.title, targets: [key], status: ROLLBACK_STATUS };

  const workload = context.run.index.workloads.get(key);
  if (!workload) throw new ReconcileFailure('EditRefused', `cannot roll back ${key}: it is not in the repo any more`);
  const changes = computeChanges(workload, input.previous);
  if (changes.length === 0) return null;
  const decision: Decision = { target, configuredStrategy: null, strategy: 'rollout', action: 'pull-request', phase: 'Proposed', reason: null, nextWindow: null, changes };
  const { edits, errors } = planEdits(context.run.index, [decision]);
  if (errors.length > 0 || edits.length === 0) {
    throw new ReconcileFailure('EditRefused', `cannot roll back ${key}: ${errors.map((e) => e.message).join('; ') || 'no file changed'}`);
  }
  await context.worktree.reset(context.sha);
  const head = await context.worktree.commit(
    edits.map((edit) => ({ path: edit.path, content: edit.after })),
    `kerf: roll back ${key} after a health breach (${describeChanges(changes)})\n`,
    context.config.author ?? DEFAULT_AUTHOR,
  );
  const expected = (await git.branches(branch)).get(branch) ?? null;
  const pushed = await git.push(head, branch, expected);
  if (pushed.kind !== 'pushed') throw new ReconcileFailure('PushRejected', `git refused the push of ${branch}: ${pushed.kind === 'rejected' ? pushed.message : 'someone else moved the branch'}`);
  // The status goes on the head before the PR exists, as for every kerf PR.
  await github.setWindowStatus(head, ROLLBACK_STATUS);
  const title = `kerf: roll back ${key}`;
  const pr = await github.createPull({ branch, base: context.defaultBranch, title, body: rollbackBody(key, input.breach, decision) });
  await github.addLabels(pr.number, [ROLLBACK_LABEL, ...context.config.labels]);
  const { reviewers, teamReviewers } = context.config;
  if (reviewers.length > 0 || teamReviewers.length > 0) await github.requestReviewers(pr.number, { reviewers, teamReviewers });
  return { branch, number: pr.number, url: pr.url, action: 'opened', title, targets: [key], status: ROLLBACK_STATUS };
}
