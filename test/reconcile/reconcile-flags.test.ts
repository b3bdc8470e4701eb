import { describe, expect, it } from 'vitest';
import { reconcileFlags } from '../../src/reconcile/reconcile-command.js';

describe('reconcile flags', () => {
  it.each([
    [{}, { dryRun: false }],
    [{ 'dry-run': true, 'group-by': 'single' }, { dryRun: true, groupBy: 'single' }],
    [{ labels: ['a,b', ' c '], reviewers: ['alice'], 'team-reviewers': ['sre,platform'] }, { dryRun: false, labels: ['a', 'b', 'c'], reviewers: ['alice'], teamReviewers: ['sre', 'platform'] }],
  ])('%o → %o (absent flags leave the config in charge)', (extra, expected) => {
    expect(reconcileFlags(extra)).toEqual(expected);
  });

  it('refuses an unknown grouping', () => {
    expect(() => reconcileFlags({ 'group-by': 'team' })).toThrow('--group-by must be one of per-workload, per-namespace, single, got "team"');
  });
});
