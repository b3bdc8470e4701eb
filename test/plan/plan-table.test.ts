// The plan table as people read it, and in the pieces a fleet's table is written in.
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/model/types.js';
import type { Plan } from '../../src/plan/plan.js';
import { planTableChunks, renderPlanTable } from '../../src/plan/plan-table.js';
import { aChange, aDecision } from '../support/decisions.js';

const decision = (name: string, changes: Decision['changes'] = []) => aDecision({ name, changes });

const plan = (decisions: Decision[], errors: Plan['errors'] = []): Plan => ({ now: '2026-12-02T10:00:00.000Z', decisions, errors, warnings: [] });

describe('plan table', () => {
  it('aligns the columns to the widest cell and lists errors after a blank line', () => {
    const cpu = aChange();
    const table = renderPlanTable(plan([decision('cart', [cpu]), decision('checkout-service')], [{ code: 'UnknownField', message: 'shop.yaml:3: spec.mood is not a field' }]));
    expect(table).toBe(
      [
        'Plan at 2026-12-02T10:00:00.000Z',
        '',
        'TARGET                            STRATEGY  ACTION        PHASE     REASON  NEXT WINDOW  CHANGE',
        'shop/Deployment/cart              rollout   pull-request  Proposed  -       -            cpu 500m→250m',
        'shop/Deployment/checkout-service  rollout   pull-request  Proposed  -       -            -',
        '',
        'Errors (1):',
        '  - [UnknownField] shop.yaml:3: spec.mood is not a field',
        '',
      ].join('\n'),
    );
  });

  it('says so when there are no recommendations', () => {
    expect(renderPlanTable(plan([]))).toMatch(/CHANGE\n\(no recommendations\)\n$/);
  });

  it("comes in pieces of whole lines, a thousand rows at most, the columns as wide as the whole table's", () => {
    const decisions = Array.from({ length: 2500 }, (_, i) => decision(`svc-${i}`));
    decisions[2400] = decision('the-one-with-the-longest-name-of-all');
    const chunks = [...planTableChunks(plan(decisions))];
    expect(chunks).toHaveLength(4);
    for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true);
    expect(chunks.slice(1).map((chunk) => chunk.split('\n').length - 1)).toEqual([1000, 1000, 500]);
    const header = chunks[0]?.split('\n')[2] ?? '';
    const column = 'shop/Deployment/the-one-with-the-longest-name-of-all  '.length;
    expect(header.indexOf('STRATEGY')).toBe(column);
    expect(chunks[1]?.split('\n')[0]?.indexOf('rollout')).toBe(column);
  });
});
