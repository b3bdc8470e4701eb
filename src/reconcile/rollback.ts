// The revert PR of a rollout that breached its health watch: only the CPU/memory fields, back to
// the values before kerf's merge, labelled kerf/rollback, and mergeable at once: its kerf/window
// status is success even during a freeze or outside a window (Z2: rollbacks still run). It is a
// change set like any other, and goes through the same open/update path (trailer and metadata).
import type { Decision, ObjectRef } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import { computeChanges } from '../rules/changes.js';
import { planEdits } from '../plan/edits.js';
import type { GitPort, Worktree } from '../git/git.js';
import { describeChanges } from '../plan/plan-table.js';
import { ReconcileFailure, renderBody, rollbackChangeSet, type PullRequestOutcome, type RunBasis } from './change-set.js';
import type { PullRequestWriter } from './publish.js';
import type { PreviousValues } from './status-writeback.js';
import type { WindowStatus } from '../github/github.js';

export const ROLLBACK_LABEL = 'kerf/rollback';
export const ROLLBACK_STATUS: WindowStatus = { state: 'success', description: 'Rollback after a health breach: merge now, even in a freeze' };

/** `kerf/_rollback/<namespace>/<kind>/<name>`: `_rollback` cannot be a namespace, so no kerf branch is its prefix. */
export function rollbackBranch(prefix: string, target: ObjectRef): string {
  return `${rollbackPrefix(prefix)}${target.namespace}/${target.kind.toLowerCase()}/${target.name}`;
}

function rollbackPrefix(prefix: string): string {
  return `${prefix}_rollback/`;
}

/** A revert PR's branch: the loop's, never a group's orphan. */
export function isRollbackBranch(prefix: string, branch: string): boolean {
  return branch.startsWith(rollbackPrefix(prefix));
}

function rollbackText(target: string, breach: string, decision: Decision): string {
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
 * Opens the revert PR of `target`, or brings the open one up to date. Resolves null when Git
 * already holds the previous values (someone reverted by hand): there is nothing to roll back.
 */
export async function openRollback(input: {
  basis: RunBasis;
  git: GitPort;
  /** A work tree kerf may reset and commit in; the files are read from it at the run's base. */
  checkout: () => Promise<Worktree>;
  writer: PullRequestWriter;
  target: ObjectRef;
  previous: PreviousValues;
  breach: string;
}): Promise<PullRequestOutcome | null> {
  const { basis, git, writer, target } = input;
  const key = workloadKey(target);
  const workload = basis.run.index.workloads.get(key);
  if (!workload) throw new ReconcileFailure('EditRefused', `cannot roll back ${key}: it is not in the repo any more`);
  const changes = computeChanges(workload, input.previous);
  if (changes.length === 0) return null;
  const decision: Decision = { target, configuredStrategy: null, strategy: 'rollout', action: 'pull-request', phase: 'Proposed', reason: null, nextWindow: null, changes };
  // The run's scan, read again in this work tree at the same commit (the run's own is gone).
  const worktree = await input.checkout();
  await worktree.reset(basis.sha);
  const { edits, errors } = planEdits({ ...basis.run.index, root: worktree.root }, [decision]);
  if (errors.length > 0 || edits.length === 0) {
    throw new ReconcileFailure('EditRefused', `cannot roll back ${key}: ${errors.map((e) => e.message).join('; ') || 'no file changed'}`);
  }
  const changeSet = rollbackChangeSet({
    branch: rollbackBranch(basis.config.branchPrefix, target),
    decision,
    edits,
    subject: `kerf: roll back ${key} after a health breach (${describeChanges(changes)})`,
    status: ROLLBACK_STATUS,
    label: ROLLBACK_LABEL,
  });
  const base = { branch: basis.defaultBranch, sha: basis.sha, config: basis.config };
  const { branch } = changeSet;
  const remote = (await git.branches(branch)).get(branch) ?? null;
  if (remote !== null) await git.fetch([branch], 2);
  let head = remote;
  let pushed = false;
  if (await writer.needsRebuild(base, remote, changeSet)) {
    const built = await writer.build(base, changeSet, remote);
    if (built.kind !== 'pushed') throw new ReconcileFailure('PushRejected', `git refused the push of ${branch}: ${built.kind === 'rejected' ? built.message : 'someone else moved the branch'}`);
    head = built.sha;
    pushed = true;
  }
  if (head === null) throw new ReconcileFailure('NoBranch', `${branch} has no head`);
  const text = rollbackText(key, input.breach, decision);
  const existing = basis.openPulls.find((pr) => pr.branch === branch) ?? null;
  const { outcome } = await writer.publish(base, changeSet, existing, head, pushed, renderBody(changeSet, head, (_meta, marker) => `${text}\n\n${marker}`));
  return outcome;
}
