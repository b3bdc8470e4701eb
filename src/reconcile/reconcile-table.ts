// The reconcile summary for people: one row per PR group, then (dry run) what would be written.
import { skipLines } from '../import/resources.js';
import type { ReconcileResult } from './change-set.js';

export function renderReconcileTable(result: ReconcileResult): string {
  const header = ['ACTION', 'BRANCH', 'PR', 'STATUS', 'REASON'];
  const rows = result.pullRequests.map((pr) => [
    result.dryRun && pr.action === 'opened' ? 'would open' : pr.action,
    pr.branch,
    pr.number === null ? '-' : `#${pr.number}`,
    pr.status?.state ?? '-',
    pr.reason ?? pr.status?.description ?? '-',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  const out = [
    `Reconcile at ${result.plan.now}${result.dryRun ? ' (dry run: nothing pushed, nothing sent to GitHub)' : ''}`,
    '',
    line(header),
    ...rows.map(line),
  ];
  if (rows.length === 0) out.push('(no pull request to open, update or close)');
  for (const pr of result.pullRequests) {
    if (pr.body === undefined) continue;
    out.push('', `── ${pr.branch} ${'─'.repeat(Math.max(0, 60 - pr.branch.length))}`, `Title: ${pr.title ?? ''}`, `Files: ${(pr.files ?? []).join(', ')}`, '', 'Commit message:', ...(pr.commitMessage ?? '').trimEnd().split('\n').map((l) => (l ? `  ${l}` : '')), '', 'Body:', pr.body.trimEnd());
  }
  if (result.dryRun && result.dashboard !== undefined) out.push('', `── dashboard issue ${'─'.repeat(43)}`, result.dashboard.trimEnd());
  const problems = [...result.plan.errors.map((e) => e.message), ...result.errors.map((e) => `${e.branch ? `${e.branch}: ` : ''}${e.message}`)];
  if (problems.length > 0) out.push('', `Errors (${problems.length}):`, ...problems.map((message) => `  - ${message}`));
  out.push(...skipLines('Skipped VPA recommendations', result.plan.skipped ?? []));
  return `${out.join('\n')}\n`;
}
