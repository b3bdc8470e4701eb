import { describe, expect, it } from 'vitest';
import { bodyView, formatPercent, loadBodyTemplate, metaMarker, readMeta } from '../../src/gitops/pr-body.js';
import { groupWindowStatus } from '../../src/gitops/window-status.js';
import { aChange, aDecision } from './decisions.js';

describe('PR body', () => {
  it('G4: explains every change, the strategy and why, held-back changes with reasons, and the next window', async () => {
    const render = await loadBodyTemplate();
    const frontend = aDecision({ name: 'frontend', configuredStrategy: 'in-place', reason: 'HPACoordination' });
    const reports = aDecision({
      name: 'reports',
      configuredStrategy: 'deferred',
      strategy: 'deferred',
      phase: 'Deferred',
      reason: 'OutsideMaintenanceWindow',
      nextWindow: '2026-12-05T00:00:00.000Z',
      changes: [aChange({ container: 'worker', field: 'limits.cpu', from: '2', to: null }), aChange({ container: 'worker', field: 'limits.memory', from: null, to: '3Gi' })],
    });
    const held = [
      aDecision({ name: 'redis', kind: 'StatefulSet', action: 'blocked', phase: 'Blocked', reason: 'SingleReplicaUnsafe' }),
      aDecision({ name: 'batch', strategy: 'deferred', action: 'wait', phase: 'Deferred', reason: 'OutsideMaintenanceWindow' }),
    ];
    const group = { branch: 'kerf/shop/_all', proposed: [frontend, reports], heldBack: held };
    const body = render(bodyView(group, groupWindowStatus(group.proposed), { changeSet: 'abc123', targets: ['shop/Deployment/frontend', 'shop/Deployment/reports'] }));
    expect(body).toMatchSnapshot();
    expect(readMeta(body)).toEqual({ changeSet: 'abc123', targets: ['shop/Deployment/frontend', 'shop/Deployment/reports'] });
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
