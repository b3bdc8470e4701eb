import { describe, expect, it } from 'vitest';
import type { HorizontalPodAutoscaler } from '../../src/model/types.js';
import { describeTotals, impactOf, sumTotals } from '../../src/plan/impact.js';
import { aChange, aDecision } from '../support/decisions.js';
import { aWorkload } from '../support/builders.js';

const PRICING = { cpuCoreHour: 0.04, memoryGiBHour: 0.005, currency: 'USD' };
const hpa = (cpuTargetUtilization?: number): HorizontalPodAutoscaler => ({
  ref: { namespace: 'shop', kind: 'HorizontalPodAutoscaler', name: 'cart' },
  target: { kind: 'Deployment', name: 'cart' },
  minReplicas: 4,
  ...(cpuTargetUtilization !== undefined && { cpuTargetUtilization }),
});

describe('impact of a change', () => {
  it('totals requests freed across replicas, and their monthly price', () => {
    // cpu 500m→250m and memory 512Mi→384Mi on 3 replicas.
    const impact = impactOf(aDecision(), aWorkload(), [], PRICING);
    expect(impact).toMatchObject({ replicas: 3, cpuCores: -0.75, memoryGiB: -0.375 });
    expect(impact.monthlyCost).toBeCloseTo((-0.75 * 0.04 - 0.375 * 0.005) * 730, 6);
    expect(describeTotals(sumTotals([impact, impact], PRICING), 'USD')).toBe('frees 1.5 CPU cores and frees 0.75 GiB of memory in requests, −46.54 USD a month');
  });

  it('with an HPA the replicas are the HPA\'s, and a CPU request cut says it will scale out, naming the target', () => {
    const impact = impactOf(aDecision(), aWorkload(), [hpa(70)], undefined);
    expect(impact.replicas).toBe(4);
    expect(impact.risks).toEqual([expect.stringMatching(/HorizontalPodAutoscaler `cart`.*reads 2\.00× higher against its target of 70% CPU utilisation, so it will run more replicas/)]);
  });

  it.each<[string, Parameters<typeof aChange>[0], RegExp | null]>([
    ['a memory limit cut can OOM-kill', { field: 'limits.memory', from: '1Gi', to: '768Mi' }, /memory limit cut .*OOM-killed/],
    ['a cut over 50% is flagged', { field: 'requests.memory', from: '1Gi', to: '256Mi' }, /cut by more than half .*75% less/],
    ['a request more than doubled is flagged', { field: 'requests.cpu', from: '100m', to: '300m' }, /request more than doubled .*×3\.0/],
    ['a small cut is not', { field: 'requests.cpu', from: '500m', to: '400m' }, null],
    ['a limit removal is not a cut', { field: 'limits.memory', from: '1Gi', to: null }, null],
  ])('%s', (_name, change, risk) => {
    const { risks } = impactOf(aDecision({ changes: [aChange(change)] }), aWorkload(), [], undefined);
    if (risk) expect(risks).toEqual([expect.stringMatching(risk)]);
    else expect(risks).toEqual([]);
  });

  it.each<[string, Parameters<typeof aWorkload>[0], RegExp]>([
    ['a Deployment rolls with its surge and unavailability', { updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }, /^3 pods restart in a rolling update: up to 1 extra pod\(s\) at a time \(maxSurge\) and 0 unavailable/],
    ['Recreate takes the workload down', { updateStrategy: { type: 'Recreate' } }, /all 3 pods stop before the new ones start/],
    ['a StatefulSet restarts highest ordinal first', { kind: 'StatefulSet' }, /one at a time, highest ordinal first \(cart-2 … cart-0\)/],
    ['an OnDelete StatefulSet is replaced by kerf\'s helper', { kind: 'StatefulSet', updateStrategy: { type: 'OnDelete' } }, /kerf's in-cluster helper .*highest ordinal first/],
    ['a DaemonSet restarts node by node', { kind: 'DaemonSet' }, /the pod on every node restarts, 1 node\(s\) at a time/],
  ])('what merging restarts: %s', (_name, workload, text) => {
    expect(impactOf(aDecision(), aWorkload(workload), [], undefined).restart).toMatch(text);
  });
});
