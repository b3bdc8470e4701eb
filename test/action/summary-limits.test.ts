// GitHub's limits at fleet scale: a job summary over 1 MiB is dropped, and a job's outputs are
// capped at 1 MB. 10,000 workloads must fit: the plan table folds and truncates with counts and a
// pointer, and the long JSON lists go to files whose paths are the outputs.
import { describe, expect, it } from 'vitest';
import { actionOutputs, MAX_INLINE_OUTPUT_BYTES } from '../../src/action/outputs.js';
import { MAX_SUMMARY_BYTES, renderSummary } from '../../src/action/summary.js';
import { heldBackChanges } from '../../src/action/held-back.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { aChange, aDecision } from '../support/decisions.js';

const WORKLOADS = 10_000;

function fleet(): ReconcileResult {
  const decisions = Array.from({ length: WORKLOADS }, (_, i) =>
    aDecision({
      name: `service-with-a-long-name-${String(i).padStart(5, '0')}`,
      namespace: `team-${i % 40}`,
      strategy: 'deferred',
      configuredStrategy: 'deferred',
      phase: 'Deferred',
      reason: 'OutsideMaintenanceWindow',
      nextWindow: '2026-12-05T00:00:00.000Z',
      nextWindowSpan: { end: '2026-12-05T04:00:00.000Z', timeZone: 'Europe/Berlin' },
      changes: [aChange(), aChange({ field: 'requests.memory', from: '512Mi', to: '384Mi' }), aChange({ field: 'limits.memory', from: '1Gi', to: '768Mi' })],
    }),
  );
  return {
    dryRun: false,
    plan: { now: '2026-12-02T10:00:00.000Z', decisions, errors: [], warnings: [] },
    pullRequests: decisions.map((d) => ({ branch: `kerf/${d.target.namespace}/deployment/${d.target.name}`, number: null, url: null, action: 'held' as const, reason: 'prConcurrentLimit: 20 kerf pull requests are open', targets: [`${d.target.namespace}/Deployment/${d.target.name}`] })),
    errors: [],
  };
}

describe('GitHub limits at 10,000 workloads', () => {
  const result = fleet();
  const heldBack = heldBackChanges(result);

  it('the job summary stays under 1 MiB, the plan folded, with counts of what it leaves out and where the rest is', () => {
    const summary = renderSummary({ result, heldBack, decisionsFile: '/runner/temp/kerf-decisions.json' });
    expect(Buffer.byteLength(summary, 'utf8')).toBeLessThan(MAX_SUMMARY_BYTES);
    expect(summary).toContain(`<details><summary>All ${WORKLOADS} decisions</summary>`);
    const dropped = [...summary.matchAll(/… and (\d+) more not shown, to keep this summary under GitHub's 1 MiB limit; every decision is in the file of the `decisions-file` output \(`\/runner\/temp\/kerf-decisions.json`\)/g)];
    expect(dropped.length).toBeGreaterThan(0);
    // Every row is either shown or counted.
    const shownRows = summary.split('\n').filter((line) => /^\| (held|team-)/.test(line)).length;
    const counted = dropped.reduce((sum, match) => sum + Number(match[1]), 0);
    expect(shownRows + counted).toBe(WORKLOADS * 2); // the held-back and plan tables (held groups without a PR have no PR row)
  });

  it('the decisions go to a file under RUNNER_TEMP whose path is the output; inline only when small', () => {
    const { outputs, files } = actionOutputs(result, heldBack, '/runner/temp');
    expect(outputs['decisions-file']).toBe('/runner/temp/kerf-decisions.json');
    expect(outputs.decisions).toBeUndefined();
    expect(JSON.parse(files.find((file) => file.path === outputs['decisions-file'])?.content ?? '[]')).toHaveLength(WORKLOADS);
    const total = Object.values(outputs).reduce((sum, value) => sum + Buffer.byteLength(value, 'utf8'), 0);
    expect(total).toBeLessThan(2 * MAX_INLINE_OUTPUT_BYTES);

    const small = actionOutputs({ ...result, plan: { ...result.plan, decisions: result.plan.decisions.slice(0, 3) }, pullRequests: [] }, [], '/runner/temp');
    expect(JSON.parse(small.outputs.decisions ?? '')).toHaveLength(3);
  });
});
