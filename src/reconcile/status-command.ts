// `kerf-gitops status`: the life of every recommendation at a glance, from the cluster — phase,
// strategy, reason, PR, applied at, health — as a table or JSON.
import type { ClusterSource } from '../cluster/cluster-reader.js';
import { readHealth, watchOver, type HealthStatus } from '../cluster/health.js';
import type { KubeObject } from '../cluster/objects.js';
import { isObject } from '../util/json.js';
import { readPullRequest } from './status-writeback.js';

export interface StatusRow {
  namespace: string;
  name: string;
  /** `Kind/name` of the workload. */
  target: string;
  phase: string | null;
  strategy: string | null;
  reason: string | null;
  nextWindow: string | null;
  pullRequest: { number: number; url: string } | null;
  rollbackPullRequest: { number: number; url: string } | null;
  appliedAt: string | null;
  /** `Watching` (until), `Healthy`, `Breached` (what broke), or null before apply. */
  health: HealthStatus | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One row per recommendation, sorted by namespace and name; a watch whose time is up reads Healthy. */
export function statusRows(recommendations: readonly KubeObject[], now: Date): StatusRow[] {
  return recommendations
    .map((object) => {
      const status = object.status ?? {};
      const spec = object.spec ?? {};
      const targetRef = isObject(spec.targetRef) ? spec.targetRef : {};
      const health = readHealth(status) ?? null;
      return {
        namespace: object.metadata.namespace ?? 'default',
        name: object.metadata.name,
        target: `${String(targetRef.kind ?? '?')}/${String(targetRef.name ?? '?')}`,
        phase: text(status.phase),
        strategy: text(status.strategy),
        reason: text(status.reason),
        nextWindow: text(status.nextWindow),
        pullRequest: readPullRequest(status.pullRequest),
        rollbackPullRequest: readPullRequest(status.rollbackPullRequest),
        appliedAt: text(status.appliedAt),
        health: health?.state === 'Watching' && watchOver(health.until, now) ? { ...health, state: 'Healthy' as const } : health,
      };
    })
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

function healthCell(health: StatusRow['health']): string {
  if (!health) return '-';
  if (health.state === 'Watching') return `watching until ${health.until ?? '?'}`;
  if (health.state === 'Breached') return `Breached: ${health.breach ?? '?'}`;
  return health.state;
}

export function renderStatusTable(rows: readonly StatusRow[], now: Date): string {
  const header = ['RECOMMENDATION', 'TARGET', 'PHASE', 'STRATEGY', 'REASON', 'NEXT WINDOW', 'PR', 'APPLIED AT', 'HEALTH'];
  const cells = rows.map((row) => [
    `${row.namespace}/${row.name}`,
    row.target,
    row.phase ?? '-',
    row.strategy ?? '-',
    row.reason ?? '-',
    row.nextWindow ?? '-',
    [row.pullRequest && `#${row.pullRequest.number}`, row.rollbackPullRequest && `rollback #${row.rollbackPullRequest.number}`].filter(Boolean).join(', ') || '-',
    row.appliedAt ?? '-',
    healthCell(row.health),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return `${[`Status at ${now.toISOString()}`, '', line(header), ...cells.map(line), ...(rows.length === 0 ? ['(no recommendations)'] : [])].join('\n')}\n`;
}

/** Reads the recommendations and prints them; exit 1 with one line when the cluster cannot be read. */
export async function runStatusCommand(source: ClusterSource, output: 'table' | 'json', now: Date, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  let recommendations: KubeObject[];
  try {
    recommendations = await source.recommendations();
  } catch (error) {
    err.write(`kerf-gitops: cannot read the cluster at ${source.server}: ${(error as Error).message}\n`);
    return 1;
  }
  const rows = statusRows(recommendations, now);
  out.write(output === 'json' ? `${JSON.stringify({ now: now.toISOString(), recommendations: rows }, null, 2)}\n` : renderStatusTable(rows, now));
  return 0;
}
