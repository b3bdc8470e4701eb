// G5 for Helm workloads: when the release that renders a workload has taken a merged change of
// its values (Flux's HelmRelease status, Argo CD's Application sync), so that a live template
// without the values is a verdict on the mapping; and the fingerprint that holds a wrong mapping.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/objects.js';
import { helmReleaseSynced, type HelmSyncInput } from '../../src/lifecycle/helm-synced.js';
import { mappingFingerprint } from '../../src/manifests/helm/workloads.js';
import type { HelmMapping, HelmValuesSource } from '../../src/model/types.js';
import { aRecommendation } from '../support/builders.js';

const MERGE = 'a'.repeat(40);
const LATER = 'b'.repeat(40);
const MERGED_AT = '2026-12-02T10:00:00Z';
const resources = { requests: { cpu: '50m', memory: '96Mi' } };
const recommendation = aRecommendation([{ name: 'app', requests: { cpu: '50m', memory: '96Mi' }, limits: {} }]);
const inline: HelmValuesSource = { owner: 'HelmRelease cart', file: 'apps/cart/release.yaml', document: 0, valuesPath: ['spec', 'values'], embedded: false, containers: { app: ['resources'] }, entry: 0, fingerprint: 'sha256:1', release: { kind: 'HelmRelease', namespace: 'shop', name: 'cart' } };
const fromConfigMap: HelmValuesSource = { ...inline, owner: 'ConfigMap cart-values', file: 'apps/cart/values.yaml', valuesPath: ['data', 'values.yaml'], embedded: true, valuesFrom: { kind: 'ConfigMap', name: 'cart-values' } };

function helmRelease(over: { generation?: number; attempted?: number; values?: unknown; history?: Record<string, unknown>[]; lastAttemptedConfigDigest?: string } = {}): KubeObject {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: 'cart', namespace: 'shop', generation: over.generation ?? 2 },
    spec: { values: over.values ?? { resources } },
    status: {
      observedGeneration: over.attempted ?? 2,
      lastAttemptedGeneration: over.attempted ?? 2,
      lastAttemptedRevision: '1.2.0',
      lastAttemptedConfigDigest: over.lastAttemptedConfigDigest ?? 'sha256:new',
      history: over.history ?? [{ name: 'cart', namespace: 'shop', version: 2, status: 'deployed', chartVersion: '1.2.0', configDigest: 'sha256:new', lastDeployed: '2026-12-02T10:05:00Z' }],
    },
  };
}

const kustomization = (revision: string): KubeObject => ({
  metadata: { name: 'apps', namespace: 'flux-system' },
  status: { lastAppliedRevision: `main@sha1:${revision}`, inventory: { entries: [{ id: 'shop_cart-values__ConfigMap', v: 'v1' }] } },
});

const input = (source: HelmValuesSource, state: { [kind in keyof HelmSyncInput['state']]?: readonly KubeObject[] }): HelmSyncInput => ({
  source,
  workload: { namespace: 'shop', kind: 'Deployment', name: 'cart' },
  recommendation,
  state: { applications: [...(state.applications ?? [])], kustomizations: [...(state.kustomizations ?? [])], helmReleases: [...(state.helmReleases ?? [])] },
  mergeCommit: MERGE,
  mergedAt: MERGED_AT,
  // LATER holds the merge; nothing else does.
  revisions: { contains: async (revision, commit) => revision === LATER && commit === MERGE },
});

describe('Flux HelmRelease', () => {
  it.each([
    ['no HelmRelease in the cluster', inline, {}, /HelmRelease shop\/cart is not in the cluster/],
    ['the live HelmRelease lacks the merged values', inline, { helmReleases: [helmRelease({ values: { resources: { requests: { cpu: '100m' } } } })] }, /does not carry the merged values yet \(they have app requests.cpu 100m/],
    ['helm-controller has not reconciled the new generation', inline, { helmReleases: [helmRelease({ generation: 3, attempted: 2 })] }, /has not reconciled generation 3 .*last attempted 2/],
    ['the upgrade failed', inline, { helmReleases: [helmRelease({ history: [{ version: 3, status: 'failed', configDigest: 'sha256:new' }] })] }, /is failed, not deployed/],
    ['the deployed release has other values than the last attempt', inline, { helmReleases: [helmRelease({ lastAttemptedConfigDigest: 'sha256:newer' })] }, /last attempted values sha256:newer/],
    ['valuesFrom: the Kustomization applying the ConfigMap has not synced the merge', fromConfigMap, { helmReleases: [helmRelease()], kustomizations: [kustomization('c'.repeat(40))] }, /Flux Kustomization flux-system\/apps synced c+, which does not contain the merge commit/],
    ['valuesFrom: the deployed release is older than the merge', fromConfigMap, { helmReleases: [helmRelease({ history: [{ version: 2, status: 'deployed', lastDeployed: '2026-12-02T09:00:00Z' }] })], kustomizations: [kustomization(LATER)] }, /is from 2026-12-02T09:00:00Z, before the merge/],
  ] as const)('G5 waits: %s', async (_, source, state, waitingFor) => {
    const sync = await helmReleaseSynced(input(source, state));
    expect(sync).toMatchObject({ synced: false, waitingFor: expect.stringMatching(waitingFor) });
  });

  it.each([
    ['spec.values carries the values and the release of its generation is deployed', inline, { helmReleases: [helmRelease()] }],
    ['valuesFrom: the Kustomization holds the merge and the release was deployed after it', fromConfigMap, { helmReleases: [helmRelease()], kustomizations: [kustomization(LATER)] }],
  ] as const)('G5 synced: %s', async (_, source, state) => {
    expect(await helmReleaseSynced(input(source, state))).toEqual({ synced: true, release: 'HelmRelease shop/cart (release cart v2, chart 1.2.0, deployed 2026-12-02T10:05:00Z)' });
  });
});

describe('a release whose file names no namespace (a kustomization sets it)', () => {
  const unnamespaced: HelmValuesSource = { ...inline, release: { kind: 'HelmRelease', name: 'cart' } };
  it('is the only live HelmRelease of that name', async () => {
    expect(await helmReleaseSynced(input(unnamespaced, { helmReleases: [helmRelease()] }))).toMatchObject({ synced: true, release: expect.stringMatching(/^HelmRelease shop\/cart /) });
  });
  it('is not guessed among several of that name', async () => {
    const other = { ...helmRelease(), metadata: { name: 'cart', namespace: 'staging', generation: 2 } };
    expect(await helmReleaseSynced(input(unnamespaced, { helmReleases: [helmRelease(), other] }))).toMatchObject({ synced: false, waitingFor: 'no single HelmRelease named cart is in the cluster (its file names no namespace)' });
  });
});

describe('Argo CD Application', () => {
  const valuesObject: HelmValuesSource = { owner: 'Application cart', file: 'argocd/cart.yaml', document: 0, valuesPath: ['spec', 'source', 'helm', 'valuesObject'], embedded: false, containers: { app: ['resources'] }, entry: 1, fingerprint: 'sha256:2', release: { kind: 'Application', namespace: 'argocd', name: 'cart' } };
  const valuesString: HelmValuesSource = { ...valuesObject, valuesPath: ['spec', 'source', 'helm', 'values'], embedded: true };
  const valuesFile: HelmValuesSource = { owner: 'values file charts/cart/values.yaml', file: 'charts/cart/values.yaml', document: 0, valuesPath: [], embedded: false, containers: { app: ['resources'] }, entry: 2, fingerprint: 'sha256:3' };
  const source = (helm: Record<string, unknown>) => ({ repoURL: 'https://charts.example', chart: 'cart', targetRevision: '1.2.0', helm });
  function application(over: { helm?: Record<string, unknown>; compared?: Record<string, unknown>; status?: string; phase?: string; revisions?: string[] } = {}): KubeObject {
    const spec = source(over.helm ?? { valuesObject: { resources } });
    return {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'cart', namespace: 'argocd' },
      spec: { source: spec },
      status: {
        // Read back from the API server with its keys sorted.
        sync: { status: over.status ?? 'Synced', comparedTo: { source: over.compared ?? Object.fromEntries(Object.entries(spec).reverse()) }, revision: '1.2.0', ...(over.revisions && { revisions: over.revisions }) },
        resources: [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'cart' }],
        operationState: { phase: over.phase ?? 'Succeeded' },
      },
    };
  }

  it.each([
    ['no such Application in the cluster', valuesObject, [], /Argo CD Application argocd\/cart is not in the cluster/],
    ['the live Application lacks the merged valuesObject', valuesObject, [application({ helm: { valuesObject: { resources: { requests: { cpu: '1' } } } } })], /does not carry the merged values yet/],
    ['OutOfSync after the merged spec arrived', valuesObject, [application({ status: 'OutOfSync' })], /is OutOfSync/],
    ['Synced, but compared against the spec before the merge', valuesObject, [application({ compared: source({ valuesObject: { resources: { requests: { cpu: '1' } } } }) })], /is Synced against an earlier spec/],
    ['still syncing', valuesObject, [application({ phase: 'Running' })], /is still syncing/],
    ['the values string does not hold the values', valuesString, [application({ helm: { values: 'resources: {requests: {cpu: 1}}\n' } })], /does not carry the merged values yet/],
    ['a values file whose Application synced no revision holding the merge', valuesFile, [application({ revisions: ['1.2.0', 'c'.repeat(40)] })], /synced 1.2.0, 1.2.0, c+, which does not contain/],
  ] as const)('G5 waits: %s', async (_, source, applications, waitingFor) => {
    expect(await helmReleaseSynced(input(source, { applications }))).toMatchObject({ synced: false, waitingFor: expect.stringMatching(waitingFor) });
  });

  it.each([
    ['valuesObject in the synced spec', valuesObject, application()],
    ['a values string in the synced spec', valuesString, application({ helm: { values: 'resources:\n  requests: {cpu: 50m, memory: 96Mi}\n' } })],
    ['a values file, one of whose sources synced a revision holding the merge', valuesFile, application({ revisions: ['1.2.0', LATER] })],
  ] as const)('G5 synced: %s', async (_, source, app) => {
    expect(await helmReleaseSynced(input(source, { applications: [app] }))).toEqual({ synced: true, release: 'Argo CD Application argocd/cart (Synced at 1.2.0)' });
  });

  it('a values file no Application lists: no verdict (undefined), the live template alone decides', async () => {
    expect(await helmReleaseSynced(input(valuesFile, {}))).toBeUndefined();
  });
});

describe('the fingerprint of a helm: entry', () => {
  const entry: HelmMapping = { workload: { namespace: 'shop', kind: 'Deployment', name: 'cart' }, helmRelease: { file: 'apps/cart/release.yaml', name: 'cart' }, containers: { app: 'resources' }, index: 0 };
  it('is the same for the entry written in another key order or at another place in the list', () => {
    const reordered: HelmMapping = { index: 4, containers: { app: 'resources' }, helmRelease: { name: 'cart', file: 'apps/cart/release.yaml' }, workload: { name: 'cart', kind: 'Deployment', namespace: 'shop' } };
    expect(mappingFingerprint(reordered)).toBe(mappingFingerprint(entry));
    expect(mappingFingerprint(entry)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
  it('changes with the values path of a container', () => {
    expect(mappingFingerprint({ ...entry, containers: { app: 'app.resources' } })).not.toBe(mappingFingerprint(entry));
  });
});
