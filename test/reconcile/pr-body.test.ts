import { describe, expect, it } from 'vitest';
import { bodyView, formatPercent, loadBodyTemplate, metaMarker, readMeta } from '../../src/reconcile/pr-body.js';
import { groupWindowStatus } from '../../src/reconcile/window-status.js';
import type { ReviewContext } from '../../src/reconcile/pr-review.js';
import { aChange, aDecision } from '../support/decisions.js';
import { aRecommendation, aWorkload } from '../support/builders.js';

const RULE_ID = /\((?:[A-Z]{1,2}\d(?:[,–-]\s*)?)+\)|\b(?:D[1-3]|R[1-3]|N[1-4]|Z[1-4]|SR[1-5]|OD[1-3]|G[1-6]|W[1-3])\b/;

/** The example's deferred batch workload, waiting for Saturday's window. */
function deferredReports(overrides: Parameters<typeof aDecision>[0] = {}) {
  return aDecision({ name: 'reports', configuredStrategy: 'deferred', strategy: 'deferred', phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z', ...overrides });
}

function reviewContext(overrides: Partial<ReviewContext> = {}): ReviewContext {
  return {
    workloads: new Map([['shop/Deployment/reports', aWorkload({ name: 'reports', replicas: 2 })]]),
    hpas: [],
    recommendations: [
      aRecommendation(undefined, {
        name: 'reports',
        targetRef: { kind: 'Deployment', name: 'reports' },
        provenance: { recommender: 'vpa', bound: 'target', percentile: 90, sampleWindow: '168h', generatedAt: '2026-12-01T06:00:00Z' },
        source: { file: 'recs/shop.yaml', line: 12 },
      }),
    ],
    pricing: { cpuCoreHour: 0.04, memoryGiBHour: 0.005, currency: '€' },
    autoMerge: false,
    newFiles: ['overlays/prod/kerf-resources.yaml'],
    fileUrl: (file, line) => `https://github.com/acme/shop/blob/main/${file}#L${line}`,
    ...overrides,
  };
}

describe('PR body', () => {
  it('G4: explains every change, the strategy and why, held-back changes with reasons, and the next window', async () => {
    const render = await loadBodyTemplate();
    const frontend = aDecision({ name: 'frontend', configuredStrategy: 'in-place', reason: 'HPACoordination' });
    const reports = deferredReports({
      changes: [aChange({ container: 'worker', field: 'limits.cpu', from: '2', to: null }), aChange({ container: 'worker', field: 'limits.memory', from: null, to: '3Gi' })],
    });
    const held = [
      aDecision({ name: 'redis', kind: 'StatefulSet', action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' }),
      aDecision({ name: 'batch', strategy: 'deferred', action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }),
    ];
    const group = { branch: 'kerf/shop/_all', proposed: [frontend, reports], heldBack: held };
    const body = render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'abc123', targets: ['shop/Deployment/frontend', 'shop/Deployment/reports'] }));
    expect(body).toMatchSnapshot();
    expect(body).not.toMatch(RULE_ID);
    expect(readMeta(body)).toEqual({ changeSet: 'abc123', targets: ['shop/Deployment/frontend', 'shop/Deployment/reports'] });
  });

  it('G4: says why (provenance, linked to its file and line), how much (across replicas, priced), what risks and restarts, and why a file is new', async () => {
    const render = await loadBodyTemplate();
    const reports = deferredReports({
      nextWindowSpan: { end: '2026-12-05T04:00:00.000Z', timeZone: 'Europe/Berlin' },
      changes: [aChange({ from: '2', to: '1500m' }), aChange({ field: 'limits.memory', from: '4Gi', to: '1Gi' })],
    });
    const group = { branch: 'kerf/shop/deployment/reports', proposed: [reports], heldBack: [] };
    const view = (context: ReviewContext) => render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'x', targets: ['shop/Deployment/reports'] }, context));
    const body = view(reviewContext());
    expect(body).toMatchSnapshot();
    expect(body).toContain('from **vpa** (its `target` estimate, the 90th percentile of usage, over 168h, made Tue 1 Dec 06:00 UTC); RightsizingRecommendation `shop/reports` in [recs/shop.yaml line 12](https://github.com/acme/shop/blob/main/recs/shop.yaml#L12)');
    expect(body).toContain('**frees 1 CPU core and changes no GiB of memory in requests, −€29.20 a month**');
    expect(body).toContain('| `shop/Deployment/reports` | 2 | −1 cores | 0 GiB | −€29.20 |');
    expect(body).toMatch(/memory limit cut .*OOM-killed/);
    expect(body).toMatch(/cut by more than half \(`app` memory limit 4Gi → 1Gi, 75% less\)/);
    expect(body).toContain('2 pods restart in a rolling update');
    expect(body).toMatch(/`overlays\/prod\/kerf-resources\.yaml`: the values come from a base that other overlays share/);
    expect(body).toMatch(/enable auto-merge.*Sat 5 Dec 01:00–05:00 Europe\/Berlin \(00:00 UTC\)/);
    expect(body).not.toMatch(RULE_ID);
    expect(view(reviewContext({ autoMerge: true }))).toContain('kerf has enabled auto-merge');
    expect(view(reviewContext({ pricing: undefined }))).toContain('add `pricing: {cpuCoreHour, memoryGiBHour, currency}`');
  });

  it('values from Git or the cluster cannot inject Markdown into the why', async () => {
    const render = await loadBodyTemplate();
    const group = { branch: 'b', proposed: [aDecision({ name: 'reports' })], heldBack: [] };
    const hostile = reviewContext({ recommendations: [aRecommendation(undefined, { name: 'reports', targetRef: { kind: 'Deployment', name: 'reports' }, provenance: { recommender: '[click](https://evil)\n# big' } })] });
    const body = render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'x', targets: [] }, hostile));
    expect(body).toContain('from **\\[click\\](https://evil) \\# big**');
  });

  it('a body without held-back changes has no such section', async () => {
    const render = await loadBodyTemplate();
    const group = { branch: 'kerf/shop/deployment/cart', proposed: [aDecision()], heldBack: [] };
    const body = render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'x', targets: ['shop/Deployment/cart'] }));
    expect(body).not.toContain('Held back');
    expect(body).toContain('| `shop/Deployment/cart` | `app` | `requests.cpu` | 500m | 250m | -50% |');
  });

  it.each([
    [{ from: '500m', to: '250m' }, '-50%'],
    [{ from: '1', to: '1200m' }, '+20%'],
    [{ from: '768Mi', to: '640Mi' }, '-16.7%'],
    [{ from: '1Gi', to: '1024Mi' }, '0%'],
    [{ from: null, to: '1Gi' }, 'new'],
    [{ from: '0', to: '100m' }, 'new'],
    [{ from: '2', to: null }, 'removed'],
  ])('change %o reads %s', (change, text) => {
    expect(formatPercent(change)).toBe(text);
  });

  it('the metadata marker survives any text and cannot close its comment early', () => {
    const meta = { changeSet: 'h', targets: ['a/b/c-->d'] };
    const marker = metaMarker(meta);
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(readMeta(`edited by a human\n\n${marker}\nmore`)).toEqual(meta);
    expect(readMeta('no marker')).toBeNull();
    expect(readMeta('<!-- kerf:meta {"changeSet":1} -->')).toBeNull();
    expect(readMeta('<!-- kerf:meta {broken -->')).toBeNull();
  });
});
