// The dashboard issue end to end against the GitHub stand-in: found by its marker, written only
// when its content changes, and its checkboxes drive the next run — hold a workload (kerf leaves
// its branch and PR alone), propose one again now (past the PR limits; the box comes back cleared).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE, exampleFiles, harnessPerTest, OWNER, SOMEONE, type Harness } from '../reconcile/reconcile-harness.js';
import { DASHBOARD_MARKER, DASHBOARD_TITLE } from '../../src/reconcile/dashboard.js';

const standIns = harnessPerTest();
let h: Harness | undefined;

const CHECKOUT = 'shop/Deployment/checkout';
const REPORTS = 'shop/Deployment/reports';

function dashboard(harness: Harness) {
  const issues = harness.gh.state.issues.filter((issue) => issue.body?.includes(DASHBOARD_MARKER));
  expect(issues).toHaveLength(1);
  return issues[0] as (typeof issues)[number];
}

/** A person ticks a box in the issue, as the GitHub UI does: the body's `[ ]` becomes `[x]`. */
function tick(harness: Harness, kind: 'hold' | 'repropose', target: string): void {
  const issue = dashboard(harness);
  const box = `[ ] <!-- kerf:${kind}:${target} -->`;
  expect(issue.body).toContain(box);
  issue.body = (issue.body ?? '').replace(box, `[x] <!-- kerf:${kind}:${target} -->`);
}

describe('the dashboard issue', () => {
  it('lists every change, writes only when it changes, and a held workload gets no update', async () => {
    h = await standIns.start();
    await h.run();
    const issue = dashboard(h);
    expect(issue.title).toBe(DASHBOARD_TITLE);
    expect(issue.body).toContain('### Deferred to a maintenance window');
    expect(issue.body).toMatch(/`shop\/Deployment\/reports`: .*merges in the window Sat 5 Dec 01:00–05:00 Europe\/Berlin \(00:00 UTC\) — \[#\d+\]/);
    expect(issue.body).toMatch(/### Blocked\n\n- `payments\/Deployment\/ledger`: .*\*\*FreezeWindow\*\*: a freeze window is open/);
    expect(issue.body).toContain(`[ ] <!-- kerf:hold:${CHECKOUT} -->`);

    // Nothing new: nothing written, the dashboard included.
    const writes = h.gh.writeRequests().length;
    await h.run();
    expect(h.gh.writeRequests().length).toBe(writes);

    // Hold checkout, then change its recommendation on main: kerf leaves its branch and PR alone.
    tick(h, 'hold', CHECKOUT);
    const head = await h.head('kerf/shop/deployment/checkout');
    const recommendations = (await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8')).replace('requests: {cpu: 600m, memory: 640Mi}', 'requests: {cpu: 550m, memory: 640Mi}');
    await standIns.git().pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': recommendations });
    const held = await h.run();
    expect(held.pullRequests.find((pr) => pr.branch === 'kerf/shop/deployment/checkout')).toMatchObject({ action: 'held', reason: expect.stringContaining('held on the dashboard') });
    expect(await h.head('kerf/shop/deployment/checkout')).toBe(head);
    expect(dashboard(h).body).toMatch(/### Held by you\n\n- \[x\] <!-- kerf:hold:shop\/Deployment\/checkout --> `shop\/Deployment\/checkout`: cpu 1→550m/);

    // Cleared again: kerf proposes the new values.
    const cleared = dashboard(h);
    cleared.body = (cleared.body ?? '').replace(`[x] <!-- kerf:hold:${CHECKOUT} -->`, `[ ] <!-- kerf:hold:${CHECKOUT} -->`);
    const resumed = await h.run();
    expect(resumed.pullRequests.find((pr) => pr.branch === 'kerf/shop/deployment/checkout')?.action).toBe('updated');
    expect(await h.head('kerf/shop/deployment/checkout')).not.toBe(head);
  });

  it('propose again now opens a PR the limit held back, and the box comes back cleared; dashboard: false writes none', async () => {
    const config = (await exampleFiles())['.kerf/config.yaml'] as string;
    h = await standIns.start({ files: { '.kerf/config.yaml': config.replace('prConcurrentLimit: 20', 'prConcurrentLimit: 1') } });
    await h.run();
    expect(h.gh.state.prs.map((pr) => pr.head)).toEqual(['kerf/shop/deployment/checkout']);
    expect(dashboard(h).body).toMatch(/### Not proposed yet\n[^#]*`shop\/Deployment\/reports`: .*prConcurrentLimit/);

    tick(h, 'repropose', REPORTS);
    await h.run();
    expect(h.gh.state.prs.map((pr) => pr.head).sort()).toEqual(['kerf/shop/deployment/checkout', 'kerf/shop/deployment/reports']);
    expect(dashboard(h).body).toContain(`[ ] <!-- kerf:repropose:${REPORTS} -->`);

    h = await standIns.start({ files: { '.kerf/config.yaml': `${config}dashboard: false\n` } });
    await h.run();
    expect(h.gh.state.issues).toEqual([]);
    expect(h.gh.requests.filter((r) => r.path.includes('/issues?'))).toEqual([]);
  });
});
