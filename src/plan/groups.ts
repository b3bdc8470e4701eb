// PR groups: which decisions share a branch, what the branch is called, and the texts a branch's
// ChangeSet (src/reconcile/change-set.ts) is made of: commit message, PR title, and the hash kerf
// reads back to know what a branch carries.
import { createHash } from 'node:crypto';
import type { Decision, GroupBy, ObjectRef } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import { describeChanges } from './plan-table.js';

export interface PrGroup {
  branch: string;
  /** The decisions written to Git (`pull-request`), sorted by target. */
  proposed: Decision[];
  /** Changes of the group held back (`blocked`, `wait`), listed in the PR body with their reasons. */
  heldBack: Decision[];
  /** A group too big for one PR body is split; this is part `index` (1-based) of `count`. */
  part?: { index: number; count: number };
}

/** Decision actions whose changes belong to a PR group (proposed or held back). */
const GROUPED_ACTIONS: ReadonlySet<Decision['action']> = new Set(['pull-request', 'blocked', 'wait']);

/**
 * `kerf/<namespace>/<kind>/<name>`, `kerf/<namespace>/_all` or `kerf/_all`. The kind is lower-cased
 * so the whole name is lower case like the namespace and name (DNS labels): refs that differ only
 * in case collide on case-insensitive file systems. `_all` cannot be a namespace, so no branch
 * name is a prefix directory of another.
 */
export function branchName(prefix: string, groupBy: GroupBy, target: ObjectRef): string {
  const namespace = refSegment(target.namespace);
  switch (groupBy) {
    case 'per-workload':
      return `${prefix}${namespace}/${refSegment(target.kind.toLowerCase())}/${refSegment(target.name)}`;
    case 'per-namespace':
      return `${prefix}${namespace}/_all`;
    case 'single':
      return `${prefix}_all`;
  }
}

/**
 * One component of a ref name from a value kerf read from Git: what Kubernetes names may hold
 * ([a-z0-9.-]) is kept; anything else (a backtick, a space, `..`, what git refuses in a ref) becomes
 * `-`, and a short hash of the original keeps two such names apart.
 */
export function refSegment(value: string): string {
  if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(value) && !value.includes('..')) return value;
  const safe = value
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 60);
  return `${safe || 'x'}-${createHash('sha256').update(value).digest('hex').slice(0, 8)}`;
}

/** Groups the decisions that carry changes for Git; groups are sorted by branch. */
export function groupDecisions(decisions: readonly Decision[], options: { groupBy: GroupBy; branchPrefix: string }): PrGroup[] {
  const groups = new Map<string, PrGroup>();
  for (const decision of decisions) {
    if (!GROUPED_ACTIONS.has(decision.action) || decision.changes.length === 0) continue;
    const branch = branchName(options.branchPrefix, options.groupBy, decision.target);
    const group = groups.get(branch) ?? { branch, proposed: [], heldBack: [] };
    (decision.action === 'pull-request' ? group.proposed : group.heldBack).push(decision);
    groups.set(branch, group);
  }
  return [...groups.values()].sort((a, b) => a.branch.localeCompare(b.branch));
}

export function targetName(target: ObjectRef): string {
  return workloadKey(target);
}

/** `shop/Deployment/cart`, `3 workloads in shop` or `5 workloads`, for titles and commit subjects. */
function subject(proposed: readonly Decision[]): string {
  const [only] = proposed;
  if (only && proposed.length === 1) return targetName(only.target);
  const namespaces = new Set(proposed.map((decision) => decision.target.namespace));
  const [namespace] = namespaces;
  return namespaces.size === 1 ? `${proposed.length} workloads in ${namespace}` : `${proposed.length} workloads`;
}

export function pullRequestTitle(group: PrGroup): string {
  return `kerf: rightsize ${subject(group.proposed)}${group.part ? ` (part ${group.part.index} of ${group.part.count})` : ''}`;
}

/**
 * The group cut into the fewest parts for which `fits` holds (GitHub's body limit), proposed and
 * held-back changes spread evenly in target order; each part on its own branch `<branch>-part-<i>`.
 * A group that fits, or holds one workload, stays whole.
 */
export function splitToFit(group: PrGroup, fits: (group: PrGroup) => boolean): PrGroup[] {
  const size = Math.max(group.proposed.length, group.heldBack.length);
  if (size <= 1 || fits(group)) return [group];
  const slice = <T>(items: readonly T[], index: number, count: number): T[] =>
    items.slice(Math.floor((items.length * index) / count), Math.floor((items.length * (index + 1)) / count));
  for (let count = 2; ; count++) {
    const parts = Array.from({ length: count }, (_, index) => ({
      branch: `${group.branch}-part-${index + 1}`,
      proposed: slice(group.proposed, index, count),
      heldBack: slice(group.heldBack, index, count),
      part: { index: index + 1, count },
    }));
    // With count ≤ size every part holds at least one change of the longer list.
    if (count >= size || parts.every(fits)) return parts;
  }
}

/** The trailer that records which change set a kerf commit carries. */
export const CHANGE_SET_TRAILER = 'Kerf-Change-Set';

/**
 * One workload: `kerf: rightsize shop/Deployment/cart (cpu 500m→250m, memory 512Mi→384Mi)`.
 * Several: a summary line and one line per workload. Both end with the trailer of `changeSet`
 * (the group's {@link changeSetHash}).
 */
export function commitMessage(group: PrGroup, changeSet: string): string {
  const trailer = `${CHANGE_SET_TRAILER}: ${changeSet}`;
  const [only] = group.proposed;
  if (only && group.proposed.length === 1) {
    return `kerf: rightsize ${targetName(only.target)} (${describeChanges(only.changes)})\n\n${trailer}\n`;
  }
  const lines = group.proposed.map((decision) => `- ${targetName(decision.target)}: ${describeChanges(decision.changes)}`);
  return `${pullRequestTitle(group)}\n\n${lines.join('\n')}\n\n${trailer}\n`;
}

/** Reads the change-set trailer back from a commit message; null when it carries none. */
export function changeSetOfMessage(message: string): string | null {
  const match = new RegExp(`^${CHANGE_SET_TRAILER}: ([0-9a-f]+)$`, 'm').exec(message);
  return match?.[1] ?? null;
}

/**
 * What a branch carries, as a short hash: targets and their changes (from and to, so a default
 * branch that moved under a changed field gives a new change set). Order-independent.
 */
export function changeSetHash(proposed: readonly Decision[]): string {
  const canonical = proposed
    .map((decision) => ({
      target: targetName(decision.target),
      changes: decision.changes
        .map(({ container, field, from, to, file }) => [container, field, from, to, file])
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    }))
    .sort((a, b) => a.target.localeCompare(b.target));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
