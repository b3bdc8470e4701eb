// The job summary (Markdown): what the run did to pull requests, what it held back and until
// when, the whole plan, doctor's findings and the errors. Pure: the Action writes it.
import type { Decision } from '../model/types.js';
import type { Finding } from '../plan/doctor.js';
import { describeChanges } from '../plan/plan-table.js';
import { workloadKey } from '../util/workload-key.js';
import type { PullRequestOutcome, ReconcileResult } from '../reconcile/change-set.js';
import type { StatusRow } from '../reconcile/status-command.js';
import { formatWindowTime } from '../reconcile/window-status.js';
import type { HeldBackChange } from './held-back.js';
import { describeNextWindow } from '../plan/window-text.js';
import { describeTotals } from '../plan/impact.js';

export interface SummaryInput {
  result: ReconcileResult;
  heldBack: readonly HeldBackChange[];
  /** Absent when doctor did not run. */
  findings?: readonly Finding[];
  /** The cluster's recommendations after the run (their status written back); absent without a connected cluster. */
  status?: readonly StatusRow[];
  /** Where the full decisions are when the summary cannot hold them all (the `decisions-file` output). */
  decisionsFile?: string;
}

/** GitHub drops a job summary over 1 MiB; kerf keeps a margin below it. */
export const MAX_SUMMARY_BYTES = 1_000_000;
/** What the text around the tables may take (headings, counts, notes). */
const FIXED_RESERVE = 16_384;

/** Bytes the tables may still take; shared, so earlier (more urgent) tables go first. */
class Budget {
  constructor(
    private left: number,
    private readonly pointer: string,
  ) {}

  /** The rows that fit, then a line saying how many did not and where they are. */
  rows(lines: readonly string[]): string[] {
    const kept: string[] = [];
    for (const line of lines) {
      const size = Buffer.byteLength(line, 'utf8') + 1;
      if (size > this.left) break;
      this.left -= size;
      kept.push(line);
    }
    const dropped = lines.length - kept.length;
    return dropped === 0 ? kept : [...kept, '', `… and ${dropped} more not shown, to keep this summary under GitHub's 1 MiB limit; ${this.pointer}.`];
  }
}

/** A table cell: pipes would end the cell, line breaks the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function table(header: readonly string[], rows: readonly (readonly string[])[], budget: Budget): string[] {
  const body = budget.rows(rows.map((row) => `| ${row.map(cell).join(' | ')} |`));
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body];
}

function link(text: string, url: string | null): string {
  return url === null ? text : `[${text.replace(/[[\]]/g, '\\$&')}](${url})`;
}

function pullRequestCell(pr: PullRequestOutcome, dryRun: boolean): string {
  const title = pr.title ?? '';
  if (pr.number === null) return dryRun && pr.action === 'opened' ? `(would open) ${title}` : title;
  return link(`#${pr.number}${title ? ` ${title}` : ''}`, pr.url);
}

function strategy(decision: Decision): string {
  if (!decision.strategy) return '-';
  return decision.strategy === decision.configuredStrategy ? decision.strategy : `${decision.strategy} (was ${decision.configuredStrategy})`;
}

function when(decision: Pick<Decision, 'nextWindow' | 'nextWindowSpan'>, now: string): string {
  return describeNextWindow(decision, now) ?? '-';
}

function where(file: string | undefined, line: number | undefined): string {
  return file ? `\`${file}${line ? `:${line}` : ''}\` ` : '';
}

function health(row: StatusRow): string {
  if (!row.health) return '-';
  if (row.health.state === 'Watching') return `watching until ${row.health.until ? formatWindowTime(row.health.until) : '?'}`;
  if (row.health.state === 'Breached') return `Breached: ${row.health.breach ?? '?'}`;
  return row.health.state;
}

function statusPullRequests(row: StatusRow): string {
  const pulls = [
    row.pullRequest && link(`#${row.pullRequest.number}`, row.pullRequest.url),
    row.rollbackPullRequest && `rollback ${link(`#${row.rollbackPullRequest.number}`, row.rollbackPullRequest.url)}`,
  ];
  return pulls.filter(Boolean).join(', ') || '-';
}

/** The life of every recommendation, as `kerf-gitops status` shows it. */
function statusSection(rows: readonly StatusRow[], now: string, budget: Budget): string[] {
  if (rows.length === 0) return ['No recommendations in the cluster for the workloads of this repo.'];
  return table(
    ['Recommendation', 'Target', 'Phase', 'Strategy', 'Reason', 'Next window', 'Pull request', 'Applied at', 'Health'],
    rows.map((row) => [
      `${row.namespace}/${row.name}`,
      row.target,
      row.phase ?? '-',
      row.strategy ?? '-',
      row.reason ?? '-',
      when(row, now),
      statusPullRequests(row),
      row.appliedAt ? formatWindowTime(row.appliedAt) : '-',
      health(row),
    ]),
    budget,
  );
}

export function renderSummary({ result, heldBack, findings, status, decisionsFile }: SummaryInput): string {
  const count = (action: PullRequestOutcome['action']) => result.pullRequests.filter((pr) => pr.action === action).length;
  const pointer = decisionsFile ? `every decision is in the file of the \`decisions-file\` output (\`${decisionsFile}\`)` : 'every decision is in `kerf-gitops plan --output json`';
  const budget = new Budget(MAX_SUMMARY_BYTES - FIXED_RESERVE, pointer);
  const out = [
    '## kerf-gitops',
    '',
    `Reconcile at ${result.plan.now}: **${count('opened')} opened**, ${count('updated')} updated, ${count('closed')} closed, ${count('unchanged')} unchanged; ${heldBack.length} change(s) held back.`,
  ];
  if (result.totals && result.totals.workloads > 0) {
    out.push('', `Proposed in Git: ${result.totals.workloads} workload(s), which together **${describeTotals(result.totals, result.totals.currency)}**.`);
  }
  if (result.dryRun) out.push('', '> Dry run: nothing was pushed and nothing was sent to GitHub; "opened" means "would open".');

  // A group held back before it ever had a PR is listed change by change under "Held back".
  const pulls = result.pullRequests.filter((pr) => pr.action !== 'held' || pr.number !== null);
  out.push('', '### Pull requests', '');
  if (pulls.length === 0) out.push('No pull request to open, update or close.');
  else {
    out.push(
      ...table(
        ['Action', 'Pull request', 'Branch', 'kerf/window or reason', 'Workloads'],
        pulls.map((pr) => [
          pr.action,
          pullRequestCell(pr, result.dryRun),
          `\`${pr.branch}\``,
          pr.reason ?? (pr.status ? `${pr.status.state}: ${pr.status.description}` : '-'),
          pr.targets.join(', '),
        ]),
        budget,
      ),
    );
  }

  out.push('', '### Held back', '');
  if (heldBack.length === 0) out.push('Nothing held back.');
  else {
    out.push(
      ...table(
        ['Workload', 'Reason', 'Next window', 'Pull request', 'Change'],
        heldBack.map((held) => [
          workloadKey(held.decision.target),
          held.reason,
          when(held.decision, result.plan.now),
          held.pullRequest ? link(`#${held.pullRequest.number}`, held.pullRequest.url) : '-',
          describeChanges(held.decision.changes),
        ]),
        budget,
      ),
    );
  }

  if (status) out.push('', '### Status', '', ...statusSection(status, result.plan.now, budget));

  if (findings) {
    out.push('', '### Doctor', '');
    if (findings.length === 0) out.push('Nothing found that would stop merged changes from landing or windows from holding.');
    for (const f of findings) out.push(`- **${f.severity}** \`${f.check}\` ${where(f.file, f.line)}${f.message}. Fix: ${f.fix}.`);
  }

  const errors = [
    // Plan errors name their file and line in the message already.
    ...result.plan.errors.filter((e) => e.severity !== 'warning').map((e) => `- ${e.message}`),
    ...result.errors.map((e) => `- ${e.branch ? `\`${e.branch}\` ` : ''}${e.code}: ${e.message}`),
  ];
  if (errors.length > 0) out.push('', `### Errors (${errors.length})`, '', ...budget.rows(errors));
  const warnings = [...result.plan.errors.filter((e) => e.severity === 'warning'), ...result.plan.warnings].map((w) => `- ${w.code ?? 'Warning'}: ${w.message}`);
  if (warnings.length > 0) out.push('', `### Warnings (${warnings.length})`, '', ...budget.rows(warnings));
  const skipped = (result.plan.skipped ?? []).map((skip) => `- \`${skip.reason}\` ${skip.message}`);
  if (skipped.length > 0) out.push('', `### Skipped VPA recommendations (${skipped.length})`, '', ...budget.rows(skipped));

  // The whole plan last and folded: the longest part, and the one a reader needs least often.
  out.push('', '### Plan', '');
  if (result.plan.decisions.length === 0) out.push('No recommendations.');
  else {
    const rows = result.plan.decisions.map((d) => [workloadKey(d.target), strategy(d), d.action, d.phase, d.reason ?? '-', when(d, result.plan.now), describeChanges(d.changes) || '-']);
    out.push(
      `<details><summary>All ${rows.length} decisions</summary>`,
      '',
      ...table(['Target', 'Strategy', 'Action', 'Phase', 'Reason', 'Next window', 'Change'], rows, budget),
      '',
      '</details>',
    );
  }
  return `${out.join('\n')}\n`;
}
