// The plan as a table for people: one row per decision, then the errors.
import { skipLines } from '../import/resources.js';
import type { Change, Decision } from '../model/types.js';
import type { Plan } from './plan.js';
import { workloadKey } from '../util/workload-key.js';
import { describeNextWindow } from './window-text.js';

function shortField(change: Change): string {
  const [group, resource] = change.field.split('.') as [string, string];
  return group === 'requests' ? resource : `limit ${resource}`;
}

/** `cpu 500m→250m, limit memory 1Gi→none`; the container is named when there are several. */
export function describeChanges(changes: readonly Change[]): string {
  const containers = new Set(changes.map((change) => change.container));
  return changes
    .map((change) => {
      const prefix = containers.size > 1 ? `${change.container}: ` : '';
      return `${prefix}${shortField(change)} ${change.from ?? 'none'}→${change.to ?? 'none'}`;
    })
    .join(', ');
}

function strategyCell(decision: Decision): string {
  if (!decision.strategy) return '-';
  return decision.strategy === decision.configuredStrategy ? decision.strategy : `${decision.strategy} (was ${decision.configuredStrategy})`;
}

export function renderPlanTable(plan: Plan): string {
  return [...planTableChunks(plan)].join('');
}

/** Rows per chunk of planTableChunks: a fleet's table is tens of MB, written in pieces rather than built whole. */
const ROWS_PER_CHUNK = 1000;

/** The table of renderPlanTable in pieces, each a run of whole lines, to be written as they come. */
export function* planTableChunks(plan: Plan): Generator<string> {
  const header = ['TARGET', 'STRATEGY', 'ACTION', 'PHASE', 'REASON', 'NEXT WINDOW', 'CHANGE'];
  // Thousands of workloads share a policy's few windows: each is put into words once.
  const windows = new Map<string, string>();
  const nextWindow = (d: Decision): string => {
    const key = `${d.nextWindow}|${d.nextWindowSpan?.end}|${d.nextWindowSpan?.timeZone}`;
    if (!windows.has(key)) windows.set(key, describeNextWindow(d, plan.now) ?? '-');
    return windows.get(key) ?? '-';
  };
  const rows = plan.decisions.map((d) => [
    workloadKey(d.target),
    strategyCell(d),
    d.action,
    d.phase,
    d.reason ?? '-',
    nextWindow(d),
    describeChanges(d.changes) || '-',
  ]);
  const widths = header.map((title, i) => rows.reduce((widest, row) => Math.max(widest, (row[i] ?? '').length), title.length));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  yield `Plan at ${plan.now}\n\n${line(header)}\n`;
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) yield `${rows.slice(start, start + ROWS_PER_CHUNK).map(line).join('\n')}\n`;
  const out: string[] = [];
  if (rows.length === 0) out.push('(no recommendations)');
  const errors = plan.errors.filter((error) => error.severity !== 'warning');
  const warnings = plan.errors.filter((error) => error.severity === 'warning');
  const listed = (error: Plan['errors'][number]) => `  - ${error.code ? `[${error.code}] ` : ''}${error.message}`;
  if (errors.length > 0) out.push('', `Errors (${errors.length}):`, ...errors.map(listed));
  if (warnings.length > 0 || plan.warnings.length > 0) out.push('', `Warnings (${warnings.length + plan.warnings.length}):`, ...[...warnings, ...plan.warnings].map(listed));
  out.push(...skipLines('Skipped VPA recommendations', plan.skipped ?? []));
  if (out.length > 0) yield `${out.join('\n')}\n`;
}
