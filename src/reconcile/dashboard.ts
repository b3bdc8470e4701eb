// One dashboard issue per repository (Renovate's Dependency Dashboard is the model): every change
// kerf has open, defers, holds back or applied, the errors, and a checkbox per workload to hold it
// (kerf then proposes nothing for it, as the kerf/stop-updating label does for one PR) and one to
// propose it again now. Pure: the body is made from the run's result, with no clock in it, so a
// run with nothing new renders the same body and writes nothing.
import type { Decision } from '../model/types.js';
import { describeTotals } from '../plan/impact.js';
import { describeChanges } from '../plan/plan-table.js';
import { targetName } from '../plan/groups.js';
import { heldReasonMarkdown, readmeLink } from '../plan/reason-text.js';
import type { PullRequestOutcome, ReconcileResult } from './change-set.js';
import { codeSpan, markdownText } from './pr-review.js';
import { describeNextWindow } from '../plan/window-text.js';

/** How kerf finds its issue again: a hidden marker in the body, whatever the title became. */
export const DASHBOARD_MARKER = '<!-- kerf:dashboard -->';
export const DASHBOARD_TITLE = 'kerf: rightsizing dashboard';

export interface DashboardChoices {
  /** Workloads (namespace/Kind/name) a person holds: kerf proposes nothing for them. */
  hold: ReadonlySet<string>;
  /** Workloads to propose again now: branch rebuilt, PR limits waived, box cleared after. */
  repropose: ReadonlySet<string>;
}

const CHOICE = /^\s*[-*] \[([ xX])\] <!-- kerf:(hold|repropose):(\S+?) -->/gm;

/** The ticked boxes of a dashboard body; none without one. */
export function readChoices(body: string | null | undefined): DashboardChoices {
  const hold = new Set<string>();
  const repropose = new Set<string>();
  for (const [, mark, kind, target] of (body ?? '').matchAll(CHOICE)) {
    if (mark === ' ' || target === undefined) continue;
    (kind === 'hold' ? hold : repropose).add(target);
  }
  return { hold, repropose };
}

function box(kind: 'hold' | 'repropose', target: string, ticked: boolean, label: string): string {
  return `[${ticked ? 'x' : ' '}] <!-- kerf:${kind}:${target} --> ${label}`;
}

function pullLink(outcome: PullRequestOutcome | undefined): string {
  if (!outcome || outcome.number === null) return '';
  return outcome.url ? ` — [#${outcome.number}](${outcome.url})` : ` — #${outcome.number}`;
}

/** A workload's line with its hold box, and under it the box to propose it again now. */
function workloadLines(decision: Decision, what: string, outcome: PullRequestOutcome | undefined): string[] {
  const key = targetName(decision.target);
  return [
    `- ${box('hold', key, false, `${codeSpan(key)}: ${what}${pullLink(outcome)}`)}`,
    `  - ${box('repropose', key, false, 'propose again now (rebuild the branch, past the PR limits)')}`,
  ];
}

function section(title: string, lines: readonly string[], empty: string): string[] {
  return ['', `### ${title}`, '', ...(lines.length > 0 ? lines : [empty])];
}

export function renderDashboard(result: ReconcileResult, choices: DashboardChoices): string {
  const outcomes = new Map(result.pullRequests.filter((pr) => pr.action !== 'closed').flatMap((pr) => pr.targets.map((target) => [target, pr] as const)));
  const decisions = result.plan.decisions.filter((d) => d.changes.length > 0);
  const held = decisions.filter((d) => choices.hold.has(targetName(d.target)));
  const active = decisions.filter((d) => !choices.hold.has(targetName(d.target)));
  const changes = (d: Decision) => markdownText(describeChanges(d.changes));
  const notProposed = active.filter((d) => d.action === 'pull-request' && (outcomes.get(targetName(d.target))?.action ?? 'held') === 'held');
  const proposed = active.filter((d) => d.action === 'pull-request' && !notProposed.includes(d));

  const out = [
    DASHBOARD_MARKER,
    `kerf keeps this issue up to date with every change it proposes, defers or holds back in this repository. Tick a box and kerf acts on its next run ([how](${readmeLink('the-dashboard-issue')})).`,
  ];
  if (result.totals && result.totals.workloads > 0) {
    out.push('', `Proposed across the fleet: ${result.totals.workloads} workload(s), which together **${describeTotals(result.totals, result.totals.currency)}**.`);
  }
  out.push(
    // First, so no bound on the body can ever cut a person's hold off.
    ...section(
      'Held by you',
      held.map((d) => `- ${box('hold', targetName(d.target), true, `${codeSpan(targetName(d.target))}: ${changes(d)}; kerf proposes nothing for it until this box is cleared`)}`),
      'Nothing is held. Tick a workload\'s box below to hold it.',
    ),
    ...section('Open', proposed.filter((d) => d.phase !== 'Deferred').flatMap((d) => workloadLines(d, changes(d), outcomes.get(targetName(d.target)))), 'No open pull request.'),
    ...section(
      'Deferred to a maintenance window',
      proposed.filter((d) => d.phase === 'Deferred').flatMap((d) => workloadLines(d, `${changes(d)}; merges in the window ${describeNextWindow(d) ?? '?'}`, outcomes.get(targetName(d.target)))),
      'Nothing waits for a window.',
    ),
    ...section(
      'Not proposed yet',
      notProposed.flatMap((d) => workloadLines(d, `${changes(d)}; ${markdownText(outcomes.get(targetName(d.target))?.reason ?? 'held')}`, undefined)),
      'Nothing is waiting for a PR limit or a person.',
    ),
    ...section(
      'Blocked',
      active
        .filter((d) => d.action === 'blocked' || d.action === 'wait')
        .map((d) => `- ${codeSpan(targetName(d.target))}: ${changes(d)}; ${heldReasonMarkdown(d) ?? 'blocked'}`),
      'Nothing is blocked.',
    ),
    ...section(
      'Recently applied and rolled back',
      result.plan.decisions.filter((d) => d.phase === 'Applied' || d.phase === 'RolledBack').map((d) => `- ${codeSpan(targetName(d.target))}: ${d.phase === 'Applied' ? 'applied' : 'rolled back after a health breach'}`),
      'Nothing applied or rolled back that kerf still watches (the cluster tells kerf this with `recommendations: cluster`).',
    ),
  );
  const errors = [...result.plan.errors.map((e) => `- ${markdownText(e.message)}`), ...result.errors.map((e) => `- ${e.branch ? `${codeSpan(e.branch)} ` : ''}${e.code}: ${markdownText(e.message)}`)];
  if (errors.length > 0) out.push(...section(`Errors (${errors.length})`, errors, ''));
  const warnings = result.plan.warnings.map((w) => `- ${w.code ?? 'Warning'}: ${markdownText(w.message)}`);
  if (warnings.length > 0) out.push(...section(`Warnings (${warnings.length})`, warnings, ''));
  return bounded(out);
}

/** GitHub refuses issue bodies over 65,536 characters; a fleet's dashboard is cut, saying how much. */
export const MAX_DASHBOARD_CHARS = 65_536;

function bounded(lines: readonly string[]): string {
  const text = `${lines.join('\n')}\n`;
  if (text.length <= MAX_DASHBOARD_CHARS) return text;
  const room = MAX_DASHBOARD_CHARS - 200;
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > room) break;
    kept.push(line);
    size += line.length + 1;
  }
  return `${[...kept, '', `… and ${lines.length - kept.length} more lines not shown (GitHub limits an issue to 65,536 characters); the job summary lists every change.`].join('\n')}\n`;
}
