import { describe, expect, it } from 'vitest';
import {
  branchName,
  changeSetHash,
  changeSetOfMessage,
  commitMessage,
  groupDecisions,
  pullRequestTitle,
  refSegment,
  splitToFit,
} from '../../src/plan/groups.js';
import type { GroupBy } from '../../src/model/types.js';
import { rightsizeChangeSet } from '../../src/reconcile/change-set.js';
import { aChange, aDecision } from '../support/decisions.js';

const cart = { namespace: 'shop', kind: 'Deployment', name: 'cart' };

describe('branch names', () => {
  it.each<[GroupBy, string, string]>([
    ['per-workload', 'kerf/', 'kerf/shop/deployment/cart'],
    ['per-namespace', 'kerf/', 'kerf/shop/_all'],
    ['single', 'kerf/', 'kerf/_all'],
    ['per-workload', 'bots/kerf-', 'bots/kerf-shop/deployment/cart'],
  ])('%s with prefix %s → %s', (groupBy, prefix, expected) => {
    expect(branchName(prefix, groupBy, cart)).toBe(expected);
  });
});

describe('branch names from hostile values', () => {
  it.each([
    ['cart', 'cart'],
    ['web.v2', 'web.v2'],
    ['x`y', /^x-y-[0-9a-f]{8}$/],
    ['a..b', /^a\.b-[0-9a-f]{8}$/],
    ['.hidden.lock', /^hidden\.lock-[0-9a-f]{8}$/],
    ['Fixes #1 @team', /^fixes-1-team-[0-9a-f]{8}$/],
    ['`', /^x-[0-9a-f]{8}$/],
  ])('%s → %s', (value, expected) => {
    const segment = refSegment(value);
    if (typeof expected === 'string') expect(segment).toBe(expected);
    else expect(segment).toMatch(expected);
    expect(segment).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
    expect(segment.includes('..') || segment.endsWith('.lock')).toBe(false);
  });

  it('two names that sanitise alike still get two branches', () => {
    expect(refSegment('a`b')).not.toBe(refSegment('a b'));
    expect(branchName('kerf/', 'per-workload', { namespace: 'shop', kind: 'Deployment', name: 'x`y' })).toMatch(/^kerf\/shop\/deployment\/x-y-[0-9a-f]{8}$/);
  });
});

describe('splitting a group too big for one PR body', () => {
  const many = Array.from({ length: 10 }, (_, i) => aDecision({ name: `w${String(i).padStart(2, '0')}` }));
  const group = { branch: 'kerf/_all', proposed: many, heldBack: [aDecision({ name: 'held', action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' })] };

  it('a group that fits stays whole', () => {
    expect(splitToFit(group, () => true)).toEqual([group]);
  });

  it('is cut into the fewest even parts that fit, each on its own branch, titles saying which part', () => {
    const parts = splitToFit(group, (part) => part.proposed.length <= 4);
    expect(parts.map((p) => [p.branch, p.proposed.map((d) => d.target.name).join(','), p.heldBack.length])).toEqual([
      ['kerf/_all-part-1', 'w00,w01,w02', 0],
      ['kerf/_all-part-2', 'w03,w04,w05', 0],
      ['kerf/_all-part-3', 'w06,w07,w08,w09', 1],
    ]);
    expect(parts.map(pullRequestTitle)).toEqual(['kerf: rightsize 3 workloads in shop (part 1 of 3)', 'kerf: rightsize 3 workloads in shop (part 2 of 3)', 'kerf: rightsize 4 workloads in shop (part 3 of 3)']);
  });

  it('one workload is never split', () => {
    const one = { branch: 'kerf/shop/deployment/cart', proposed: [aDecision()], heldBack: [] };
    expect(splitToFit(one, () => false)).toEqual([one]);
  });
});

describe('groups', () => {
  const decisions = [
    aDecision({ name: 'cart' }),
    aDecision({ name: 'orders' }),
    aDecision({ name: 'ledger', namespace: 'payments', action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' }),
    aDecision({ name: 'batch', strategy: 'deferred', action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }),
    aDecision({ name: 'web', strategy: 'in-place', action: 'in-place', phase: 'InPlace' }),
    aDecision({ name: 'done', action: 'none', phase: 'UpToDate', changes: [] }),
  ];

  it('G1 G2: pull-request decisions are proposed, blocked and wait ones held back, in-place and none left out', () => {
    const groups = groupDecisions(decisions, { groupBy: 'per-namespace', branchPrefix: 'kerf/' });
    expect(groups.map((g) => [g.branch, g.proposed.map((d) => d.target.name), g.heldBack.map((d) => d.target.name)])).toEqual([
      ['kerf/payments/_all', [], ['ledger']],
      ['kerf/shop/_all', ['cart', 'orders'], ['batch']],
    ]);
  });

  it('per-workload gives each workload its branch; single gives one', () => {
    expect(groupDecisions(decisions, { groupBy: 'per-workload', branchPrefix: 'kerf/' }).map((g) => g.branch)).toEqual([
      'kerf/payments/deployment/ledger',
      'kerf/shop/deployment/batch',
      'kerf/shop/deployment/cart',
      'kerf/shop/deployment/orders',
    ]);
    expect(groupDecisions(decisions, { groupBy: 'single', branchPrefix: 'kerf/' }).map((g) => g.branch)).toEqual(['kerf/_all']);
  });
});

describe('commit messages and titles', () => {
  it('one workload: what changed on the subject line, then the change-set trailer', () => {
    const group = { branch: 'kerf/shop/deployment/cart', proposed: [aDecision()], heldBack: [] };
    expect(commitMessage(group, changeSetHash(group.proposed))).toBe(
      `kerf: rightsize shop/Deployment/cart (cpu 500m→250m, memory 512Mi→384Mi)\n\nKerf-Change-Set: ${changeSetHash(group.proposed)}\n`,
    );
    expect(pullRequestTitle(group)).toBe('kerf: rightsize shop/Deployment/cart');
  });

  it('several workloads: a summary line and one line per workload; N4 removals read "none"', () => {
    const orders = aDecision({ name: 'orders', changes: [aChange({ field: 'limits.cpu', from: '2', to: null })] });
    const group = { branch: 'kerf/shop/_all', proposed: [aDecision(), orders], heldBack: [] };
    expect(commitMessage(group, changeSetHash(group.proposed))).toBe(
      [
        'kerf: rightsize 2 workloads in shop',
        '',
        '- shop/Deployment/cart: cpu 500m→250m, memory 512Mi→384Mi',
        '- shop/Deployment/orders: limit cpu 2→none',
        '',
        `Kerf-Change-Set: ${changeSetHash(group.proposed)}`,
        '',
      ].join('\n'),
    );
    expect(pullRequestTitle({ ...group, proposed: [aDecision(), aDecision({ namespace: 'payments', name: 'ledger' })] })).toBe('kerf: rightsize 2 workloads');
  });

  it('the change set is read back from the trailer, ignores order, and changes with any from or to', () => {
    const a = aDecision();
    const b = aDecision({ name: 'orders' });
    const hash = changeSetHash([a, b]);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(changeSetHash([b, a])).toBe(hash);
    expect(changeSetHash([{ ...a, changes: [...a.changes].reverse() }, b])).toBe(hash);
    expect(changeSetHash([aDecision({ changes: [aChange({ to: '300m' })] }), b])).not.toBe(hash);
    expect(changeSetHash([aDecision({ changes: [aChange({ from: '400m' })] }), b])).not.toBe(hash);
    expect(changeSetOfMessage(rightsizeChangeSet({ branch: 'x', proposed: [a, b], heldBack: [] }, []).commitMessage)).toBe(hash);
    expect(changeSetOfMessage('fix: by hand\n')).toBeNull();
  });
});
