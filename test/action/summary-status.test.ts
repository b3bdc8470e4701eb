// The job summary's Status section: the life of each recommendation as `kerf-gitops status` reads
// it (phase, strategy, reason, next window, PRs, applied at, health); absent without a cluster.
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../src/action/summary.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import type { StatusRow } from '../../src/reconcile/status-command.js';

const RESULT: ReconcileResult = { dryRun: false, plan: { now: '2026-12-02T10:00:00.000Z', decisions: [], errors: [], warnings: [] }, pullRequests: [], errors: [] };
const URL = 'https://github.com/acme/shop/pull';

function row(name: string, fields: Partial<StatusRow>): StatusRow {
  return { namespace: 'shop', name, target: `Deployment/${name}`, phase: null, strategy: null, reason: null, nextWindow: null, pullRequest: null, rollbackPullRequest: null, appliedAt: null, health: null, ...fields };
}

describe('the summary\'s Status section', () => {
  it('shows every row: deferred with its window, applied and watched, rolled back with its revert PR', () => {
    const summary = renderSummary({
      result: RESULT,
      heldBack: [],
      status: [
        row('cart', { phase: 'Deferred', strategy: 'deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-06T01:00:00.000Z', pullRequest: { number: 3, url: `${URL}/3` } }),
        row('checkout', { phase: 'Applied', strategy: 'rollout', pullRequest: { number: 4, url: `${URL}/4` }, appliedAt: '2026-12-02T09:00:00.000Z', health: { state: 'Watching', until: '2026-12-02T09:30:00.000Z' } }),
        row('orders', { phase: 'RolledBack', strategy: 'rollout', pullRequest: { number: 5, url: `${URL}/5` }, rollbackPullRequest: { number: 6, url: `${URL}/6` }, appliedAt: '2026-12-02T08:00:00.000Z', health: { state: 'Breached', breach: 'container app OOMKilled | twice' } }),
        row('search', { phase: 'InPlace', strategy: 'in-place', health: { state: 'Healthy' } }),
      ],
    });
    const section = summary.slice(summary.indexOf('### Status'));
    expect(section.split('\n').slice(0, 8)).toEqual([
      '### Status',
      '',
      '| Recommendation | Target | Phase | Strategy | Reason | Next window | Pull request | Applied at | Health |',
      '|---|---|---|---|---|---|---|---|---|',
      `| shop/cart | Deployment/cart | Deferred | deferred | OutsideMaintenanceWindow | Sun 6 Dec 01:00 UTC, in 3 d 15 h | [#3](${URL}/3) | - | - |`,
      `| shop/checkout | Deployment/checkout | Applied | rollout | - | - | [#4](${URL}/4) | 2026-12-02 09:00 UTC | watching until 2026-12-02 09:30 UTC |`,
      `| shop/orders | Deployment/orders | RolledBack | rollout | - | - | [#5](${URL}/5), rollback [#6](${URL}/6) | 2026-12-02 08:00 UTC | Breached: container app OOMKilled \\| twice |`,
      '| shop/search | Deployment/search | InPlace | in-place | - | - | - | - | Healthy |',
    ]);
  });

  it('says so when the cluster holds none of this repo\'s recommendations, and is absent without a cluster', () => {
    expect(renderSummary({ result: RESULT, heldBack: [], status: [] })).toContain('### Status\n\nNo recommendations in the cluster for the workloads of this repo.\n');
    expect(renderSummary({ result: RESULT, heldBack: [] })).not.toContain('### Status');
  });
});
