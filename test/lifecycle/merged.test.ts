// G5 pieces: who syncs a workload (Argo CD, Flux), whether its live template runs the values, and
// whether the synced revision holds the merge; and the status write-back's pure parts.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/objects.js';
import { liveTemplateLag, mergeReached, syncManagerOf } from '../../src/lifecycle/merged.js';
import { decisionEvent, decisionStatus, previousValues, pullRequestFor, readPreviousValues } from '../../src/reconcile/status-writeback.js';
import { aRecommendation } from '../support/builders.js';
import { aChange, aDecision } from '../support/decisions.js';

const MERGE = 'a'.repeat(40);
const cart = { namespace: 'shop', kind: 'Deployment', name: 'cart' };

function liveCart(requests: Record<string, string>, generation = 2, observedGeneration = 2): KubeObject {
  return {
    kind: 'Deployment',
    metadata: { name: 'cart', namespace: 'shop', generation },
    spec: { template: { spec: { containers: [{ name: 'app', resources: { requests } }] } } },
    status: { observedGeneration },
  };
}

const argo = (revision: string, resources = [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'cart' }]): KubeObject => ({
  metadata: { name: 'shop', namespace: 'argocd' },
  status: { sync: { status: 'Synced', revision }, resources },
});
const flux = (lastAppliedRevision: string, ids = ['shop_cart_apps_Deployment']): KubeObject => ({
  metadata: { name: 'apps', namespace: 'flux-system' },
  status: { lastAppliedRevision, inventory: { entries: ids.map((id) => ({ id, v: 'v1' })) } },
});

describe('syncManagerOf (G5)', () => {
  it.each([
    ['an Argo CD Application listing the workload', { applications: [argo(MERGE)], kustomizations: [] }, { name: 'Argo CD Application argocd/shop', revision: MERGE }],
    ['a Flux Kustomization whose inventory holds it (main@sha1:)', { applications: [], kustomizations: [flux(`main@sha1:${MERGE}`)] }, { name: 'Flux Kustomization flux-system/apps', revision: MERGE }],
    ['an older Flux revision form (main/<sha>)', { applications: [], kustomizations: [flux(`main/${MERGE}`)] }, { name: 'Flux Kustomization flux-system/apps', revision: MERGE }],
    ['an Application managing other workloads', { applications: [argo(MERGE, [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'orders' }])], kustomizations: [flux(MERGE, ['shop_orders_apps_Deployment'])] }, undefined],
  ])('%s', (_, state, expected) => {
    expect(syncManagerOf(state, cart)).toEqual(expected);
  });
});

describe('liveTemplateLag and mergeReached (G5)', () => {
  const recommendation = aRecommendation([{ name: 'app', requests: { cpu: '250m' }, limits: {} }]);
  const never = { contains: async () => false };

  it.each([
    ['the live template carries the values and its generation is observed', liveCart({ cpu: '0.25' }), null],
    ['the live template still has the old value', liveCart({ cpu: '500m' }), 'the live template still has app requests.cpu 500m'],
    ["the controller has not observed the template's generation", liveCart({ cpu: '250m' }, 3, 2), 'its controller has observed generation 2 of 3'],
  ])('%s', (_, workload, lag) => {
    expect(liveTemplateLag(workload, recommendation)).toBe(lag);
  });

  it('a managed workload waits for a synced revision that contains the merge commit', async () => {
    const workload = liveCart({ cpu: '250m' });
    const older = { name: 'Argo CD Application argocd/shop', revision: 'b'.repeat(40) };
    expect(await mergeReached({ workload, recommendation, manager: older, mergeCommit: MERGE, revisions: never })).toEqual({
      reached: false,
      waitingFor: `Argo CD Application argocd/shop synced ${'b'.repeat(40)}, which does not contain the merge commit ${MERGE}`,
    });
    const seen: string[] = [];
    const history = { contains: async (revision: string, commit: string) => (seen.push(`${revision}>${commit}`), true) };
    expect(await mergeReached({ workload, recommendation, manager: older, mergeCommit: MERGE, revisions: history })).toEqual({ reached: true });
    expect(seen).toEqual([`${'b'.repeat(40)}>${MERGE}`]);
    expect(await mergeReached({ workload, recommendation, manager: { ...older, revision: MERGE }, mergeCommit: MERGE, revisions: never })).toEqual({ reached: true });
    expect(await mergeReached({ workload, recommendation, manager: undefined, mergeCommit: MERGE, revisions: never })).toEqual({ reached: true });
  });
});

describe('status write-back (pure parts)', () => {
  it('previous values record the from side per container, null where a field was not set, and read back', () => {
    const changes = [aChange(), aChange({ field: 'limits.memory', from: null, to: '1Gi' }), aChange({ container: 'sidecar', field: 'requests.memory', from: '64Mi', to: '32Mi' })];
    const previous = previousValues(changes);
    expect(previous).toEqual([
      { name: 'app', requests: { cpu: '500m' }, limits: { memory: null } },
      { name: 'sidecar', requests: { memory: '64Mi' }, limits: {} },
    ]);
    expect(readPreviousValues(JSON.parse(JSON.stringify(previous)))).toEqual(previous);
    expect(readPreviousValues([{ requests: { cpu: '1' } }, 'x', { name: 'app', requests: { cpu: 1, gpu: '1' } }])).toEqual([{ name: 'app', requests: { cpu: '1' }, limits: {} }]);
  });

  it('D1: a Deferred PR records nextWindow and a Blocked event with OutsideMaintenanceWindow; Proposed records the PR and previous', () => {
    const deferred = aDecision({ phase: 'Deferred', strategy: 'deferred', configuredStrategy: 'deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z' });
    const pr = { number: 4, url: 'https://github.example/pull/4' };
    expect(decisionStatus(deferred, pr)).toMatchObject({ phase: 'Deferred', reason: 'OutsideMaintenanceWindow', nextWindow: '2026-12-05T00:00:00.000Z', pullRequest: pr });
    expect(decisionEvent(deferred, pr)).toEqual({ action: 'Blocked', reason: 'OutsideMaintenanceWindow', note: 'held until the maintenance window Sat 5 Dec 00:00 UTC; pull request #4 waits for it' });
    expect(decisionStatus(aDecision(), pr)).toMatchObject({ phase: 'Proposed', pullRequest: pr, previous: [{ name: 'app', requests: { cpu: '500m', memory: '512Mi' }, limits: {} }] });
    expect(decisionEvent(aDecision({ reason: 'Fallback' }), pr)).toMatchObject({ action: 'Proposed', reason: 'Fallback' });
  });

  it('InvalidPolicy: the policy error goes into status.message and the Event, so kubectl shows why it is held', () => {
    const held = aDecision({ action: 'blocked', phase: 'Blocked', reason: 'InvalidPolicy', message: 'policies/shop.yaml: RightsizingPolicy shop/shop: spec.mode: must be one of auto-patch, recommend' });
    expect(decisionStatus(held, null)).toMatchObject({ phase: 'Blocked', reason: 'InvalidPolicy', message: held.message });
    expect(decisionEvent(held, null)).toEqual({ action: 'Blocked', reason: 'InvalidPolicy', note: `change held: InvalidPolicy (${held.message})` });
  });

  it('Z1: a frozen change is Blocked with FreezeWindow, keeps no previous, and names its PR as not to merge', () => {
    const frozen = aDecision({ action: 'blocked', phase: 'Blocked', reason: 'FreezeWindow' });
    expect(decisionStatus(frozen, null)).not.toHaveProperty('previous');
    expect(decisionEvent(frozen, { number: 9 })).toEqual({ action: 'Blocked', reason: 'FreezeWindow', note: 'change held: FreezeWindow; pull request #9 must not be merged' });
    expect(decisionEvent(aDecision({ action: 'none', phase: 'UpToDate' }), null)).toBeUndefined();
  });

  it("pullRequestFor finds the target's open PR, not a closed one", () => {
    const outcome = { branch: 'kerf/shop/deployment/cart', number: 3, url: 'u3', targets: ['shop/Deployment/cart'] };
    expect(pullRequestFor([{ ...outcome, action: 'unchanged' }], 'shop/Deployment/cart')).toEqual({ number: 3, url: 'u3' });
    expect(pullRequestFor([{ ...outcome, action: 'closed' }], 'shop/Deployment/cart')).toBeNull();
    expect(pullRequestFor([{ ...outcome, action: 'held', number: null, url: null }], 'shop/Deployment/cart')).toBeNull();
  });
});
