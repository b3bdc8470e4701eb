// What the Action reports as held back (the `held-back` output, the summary's table, warnings):
// from a dry-run reconcile of examples/shop, with one policy or config tweak per row.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { heldBackAnnotations } from '../../src/action/annotations.js';
import { heldBackChanges } from '../../src/action/held-back.js';
import { actionOutputs } from '../../src/action/outputs.js';
import { workloadKey } from '../../src/util/workload-key.js';
import { reconcile } from '../../src/reconcile/reconcile.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/shop');
const NOW = new Date('2026-12-02T10:00:00Z');
let repo: string | undefined;

afterEach(async () => {
  if (repo) await rm(repo, { recursive: true, force: true });
  repo = undefined;
});

/** examples/shop with `edit(path, text) → text` applied to its files, reconciled as a dry run at NOW. */
async function dryRun(edits: Record<string, (text: string) => string> = {}) {
  repo = await mkdtemp(join(tmpdir(), 'kerf-held-'));
  await cp(EXAMPLE, repo, { recursive: true });
  for (const [path, edit] of Object.entries(edits)) await writeFile(join(repo, path), edit(await readFile(join(repo, path), 'utf8')));
  const { result } = await reconcile({ repo, recommendations: [], now: NOW, fleetPaused: false, cwd: process.cwd(), dryRun: true }, {});
  const heldBack = heldBackChanges(result);
  return { result, heldBack, byTarget: new Map(heldBack.map((held) => [workloadKey(held.decision.target), held])) };
}

/** The batch policy (the last in the file) loses its maintenance window. */
// The batch policy keeps only its Thursday window, which its release-train freeze always covers: no window is promised.
const NO_BATCH_WINDOW = {
  'policies/shop.yaml': (text: string) => text.replace(/(tier: batch[^]*maintenanceWindows:\n)\s+- schedule: "0 1 \* \* 6"\n\s+duration: 4h\n\s+timeZone: Europe\/Berlin\n/, '$1'),
};
const ONE_OPEN_PR = { '.kerf/config.yaml': (text: string) => text.replace('prConcurrentLimit: 20', 'prConcurrentLimit: 1') };

describe('held-back changes', () => {
  it('D1 Z1 SR5: the deferred PR waiting for its window, the frozen and the unsafe single replica; not proposals that may merge, nor in-place changes', async () => {
    const { heldBack, byTarget, result } = await dryRun();
    expect(heldBack.map((held) => [workloadKey(held.decision.target), held.reason, held.nextWindow])).toEqual([
      ['payments/Deployment/ledger', 'FreezeWindow: a freeze window is open', null],
      ['shop/Deployment/reports', 'OutsideMaintenanceWindow: the merge waits for the window (kerf/window pending)', '2026-12-05T00:00:00.000Z'],
      ['shop/StatefulSet/redis', 'SingleReplicaUnsafe: the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down', null],
    ]);
    // A dry run has no PR to link.
    expect(byTarget.get('shop/Deployment/reports')?.pullRequest).toBeNull();
    expect(actionOutputs(result, heldBack).outputs).toMatchObject({ opened: '4', updated: '0', closed: '0', 'held-back': '3' });
  });

  it('D3: with no valid maintenance window the deferred change waits, without a PR', async () => {
    const { byTarget } = await dryRun(NO_BATCH_WINDOW);
    expect(byTarget.get('shop/Deployment/reports')).toMatchObject({
      decision: { action: 'wait' },
      reason: 'OutsideMaintenanceWindow: no maintenance window is free: none is valid, or a freeze covers every one, so no pull request is opened',
      nextWindow: null,
    });
  });

  it('prConcurrentLimit: proposals beyond the limit are held with the limit as the reason', async () => {
    const { heldBack, result } = await dryRun(ONE_OPEN_PR);
    expect(result.pullRequests.filter((pr) => pr.action === 'opened').map((pr) => pr.branch)).toEqual(['kerf/shop/deployment/checkout']);
    const limited = heldBack.filter((held) => held.reason.startsWith('prConcurrentLimit'));
    expect(limited.map((held) => workloadKey(held.decision.target))).toEqual(['shop/Deployment/frontend', 'shop/Deployment/orders', 'shop/Deployment/reports']);
    expect(limited[0]?.reason).toBe('prConcurrentLimit: 1 kerf pull requests are open');
  });

  it('warns on the workload\'s file only for holds that need someone to act (SR5, D3), not for windows, freezes or limits', async () => {
    const { heldBack } = await dryRun({ ...NO_BATCH_WINDOW, ...ONE_OPEN_PR });
    expect(heldBack.map((held) => held.reason.split(':')[0])).toEqual(['FreezeWindow', 'prConcurrentLimit', 'prConcurrentLimit', 'OutsideMaintenanceWindow', 'SingleReplicaUnsafe']);
    expect(heldBackAnnotations(heldBack)).toEqual([
      { level: 'warning', title: 'kerf: change held back', message: 'shop/Deployment/reports: held back: OutsideMaintenanceWindow: no maintenance window is free: none is valid, or a freeze covers every one, so no pull request is opened', file: 'apps/shop/reports.yaml' },
      { level: 'warning', title: 'kerf: change held back', message: 'shop/StatefulSet/redis: held back: SingleReplicaUnsafe: the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down', file: 'apps/shop/redis.yaml' },
    ]);
  });
});
