// Merge in the window without a person awake: with autoMerge, kerf enables GitHub auto-merge
// (GraphQL enablePullRequestAutoMerge) on a deferred PR, and the stand-in merges it once the
// required kerf/window check turns green at kerf's first run inside the window.
import { describe, expect, it } from 'vitest';
import { exampleFiles, harnessPerTest, OWNER, type Harness } from '../reconcile/reconcile-harness.js';

const standIns = harnessPerTest();
let h: Harness | undefined;

const REPORTS = 'kerf/shop/deployment/reports';
// The example's batch window opens Saturday 5 Dec 01:00 Berlin (00:00 UTC).
const OUTSIDE = new Date('2026-12-02T10:00:00Z');
const INSIDE = new Date('2026-12-05T00:30:00Z');

async function withAutoMerge(): Promise<Harness> {
  const config = (await exampleFiles())['.kerf/config.yaml'] as string;
  const harness = await standIns.start({ files: { '.kerf/config.yaml': `${config}autoMerge: true\n` } });
  harness.gh.state.branchRules.set('main', [
    {
      type: 'required_status_checks',
      parameters: { strict_required_status_checks_policy: false, required_status_checks: [{ context: 'kerf/window' }] },
      ruleset_source_type: 'Repository',
      ruleset_source: `${OWNER}/${harness.repo}`,
      ruleset_id: 1,
    },
  ]);
  return harness;
}

const graphqlCalls = (harness: Harness) => harness.gh.requests.filter((r) => r.path === '/graphql');

describe('autoMerge', () => {
  it('G6: a deferred PR gets auto-merge while it waits, and merges when kerf/window turns green in its window', async () => {
    h = await withAutoMerge();
    const first = await h.run({ now: OUTSIDE });
    expect(first.errors).toEqual([]);
    const reports = h.gh.state.prs.find((pr) => pr.head === REPORTS);
    expect(reports?.autoMerge).toEqual({ enabledBy: 'github-actions[bot]', mergeMethod: 'merge' });
    // Rollouts may merge at once: nothing to wait for, so no auto-merge on them.
    expect(h.gh.state.prs.filter((pr) => pr.autoMerge).map((pr) => pr.head)).toEqual([REPORTS]);
    expect(graphqlCalls(h)).toHaveLength(1);
    expect(reports?.state).toBe('open');

    // A second run outside the window writes nothing: auto-merge is on already.
    const writes = h.gh.writeRequests().length;
    await h.run({ now: OUTSIDE });
    expect(h.gh.writeRequests().length).toBe(writes);

    // The window's first run turns kerf/window green, and GitHub merges.
    const inside = await h.run({ now: INSIDE });
    expect(inside.errors).toEqual([]);
    expect(reports).toMatchObject({ state: 'closed', merged: true });
    expect(await h.head('main')).toBe(reports?.mergeCommitSha);
  });

  it('without the setting kerf leaves merging to people, and a repository that forbids auto-merge is reported', async () => {
    h = await standIns.start();
    await h.run({ now: OUTSIDE });
    expect(graphqlCalls(h)).toEqual([]);

    h = await standIns.start({ settings: { allowAutoMerge: false } });
    const result = await h.run({ now: OUTSIDE, autoMerge: true });
    expect(result.errors).toEqual([expect.objectContaining({ branch: REPORTS, code: 'AutoMergeUnavailable', message: expect.stringMatching(/Auto merge is not allowed for this repository/) })]);
    expect(h.gh.state.prs.find((pr) => pr.head === REPORTS)?.state).toBe('open');
  });
});
