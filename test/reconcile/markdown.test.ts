import { describe, expect, it } from 'vitest';
import { boundBody, code, codeCell, GITHUB_BODY_LIMIT, literal } from '../../src/reconcile/markdown.js';
import { bodyView, loadBodyTemplate, metaMarker, readMeta } from '../../src/reconcile/pr-body.js';
import { groupWindowStatus } from '../../src/reconcile/window-status.js';
import { aChange, aDecision } from '../support/decisions.js';

/** The cells of a GFM table row: split at every pipe no backslash escapes (GFM splits before it reads code spans). */
function cells(row: string): string[] {
  return row.replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** Text outside code spans, with the fences matched as CommonMark does (a run closes only a run of the same length). */
function outsideCode(markdown: string): string {
  let out = '';
  let rest = markdown;
  for (;;) {
    const open = /`+/.exec(rest);
    if (!open) return out + rest;
    out += rest.slice(0, open.index);
    const after = rest.slice(open.index + open[0].length);
    const close = new RegExp(`(?<!\`)${open[0]}(?!\`)`).exec(after);
    if (!close) return out + rest.slice(open.index);
    rest = after.slice(close.index + open[0].length);
  }
}

const HOSTILE = 'x`<img src=x onerror=alert(1)> @acme/admins Fixes #1 |**bold**|`y';

describe('markdown escaping', () => {
  it.each([
    ['app', '`app`'],
    ['a`b', '``a`b``'],
    ['`edge`', '`` `edge` ``'],
    ['a``b`', '``` a``b` ```'],
    ['two\nlines', '`two lines`'],
  ])('code(%j) → %s', (value, expected) => {
    expect(code(value)).toBe(expected);
  });

  it('a table cell escapes the pipes, even inside the code span', () => {
    expect(codeCell('a|b')).toBe('`a\\|b`');
  });

  it.each([
    ['700m', '700m'],
    ['(none)', '(none)'],
    ['cpu 1→600m, memory 768Mi→640Mi', 'cpu 1→600m, memory 768Mi→640Mi'],
    ['<b>1</b>', '`<b>1</b>`'],
    ['@team', '`@team`'],
    ['_1_', '`_1_`'],
    ['fixes https://github.com/o/r/issues/1', '`fixes https://github.com/o/r/issues/1`'],
  ])('literal(%j) → %s', (value, expected) => {
    expect(literal(value)).toBe(expected);
  });

  it('G4: a hostile container name keeps the table at 6 cells, and no HTML, mention or closing keyword outside code', async () => {
    const render = await loadBodyTemplate();
    const decision = aDecision({ changes: [aChange({ container: HOSTILE }), aChange({ container: HOSTILE, field: 'limits.cpu', from: '2', to: '1' })] });
    const held = aDecision({ name: 'y', action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow', changes: [aChange({ container: HOSTILE })] });
    const group = { branch: 'kerf/shop/_all', proposed: [decision], heldBack: [held] };
    const body = render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'h', targets: ['shop/Deployment/cart'] }));
    const rows = body.split('\n').filter((line) => line.startsWith('| '));
    const changeRows = rows.filter((row) => row.includes('requests.cpu') || row.includes('limits.cpu'));
    expect(changeRows).toHaveLength(2);
    for (const row of changeRows) expect(cells(row)).toHaveLength(6);
    expect(cells(rows.find((row) => row.includes('`shop/Deployment/y`')) as string)).toHaveLength(3);
    const prose = outsideCode(body.replace(/<!-- kerf:meta .* -->/, ''));
    expect(prose).not.toMatch(/<img|@acme|Fixes #1|\*\*bold/);
    expect(body).toContain('<!-- kerf:meta');
  });
});

describe('boundBody', () => {
  const marker = metaMarker({ changeSet: 'h', targets: ['a/b/c'] });

  it('leaves a body within the limit alone', () => {
    expect(boundBody(`short\n\n${marker}`, marker)).toEqual({ body: `short\n\n${marker}`, rest: [] });
  });

  it('cuts at a line break within the limit, keeps the metadata, says so, and puts the rest in comment-sized pieces', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `| row ${i} | ${'x'.repeat(40)} |`);
    const body = `${lines.join('\n')}\n\n${marker}`;
    const bounded = boundBody(body, marker);
    expect(bounded.body.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    expect(readMeta(bounded.body)).toEqual({ changeSet: 'h', targets: ['a/b/c'] });
    expect(bounded.body).toContain("cut at GitHub's limit of 65,536 characters");
    expect(bounded.rest.length).toBeGreaterThan(1);
    for (const piece of bounded.rest) expect(piece.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT - 200);
    // Nothing lost: every row is in the body or in a piece, whole.
    const all = [bounded.body, ...bounded.rest].join('\n');
    for (const line of lines) expect(all).toContain(`${line}\n`);
  });
});
