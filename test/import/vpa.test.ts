import { describe, expect, it } from 'vitest';
import { Quantity } from '../../src/rules/quantity.js';
import { DEFAULT_IMPORT_OPTIONS, type CurrentContainer } from '../../src/import/resources.js';
import { fromVpa, vpasIn, type VpaImportOptions } from '../../src/import/vpa.js';

const OPTIONS: VpaImportOptions = { ...DEFAULT_IMPORT_OPTIONS, bound: 'target' };

/** A VPA as the API serves it: spec as written, status as the recommender writes it. */
function vpa(options: { updateMode?: string | null; policies?: unknown[]; recommendations?: unknown[]; kind?: string } = {}) {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: 'cart-vpa', namespace: 'shop', uid: 'u1', resourceVersion: '7', generation: 1, creationTimestamp: '2026-11-20T08:00:00Z' },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: options.kind ?? 'Deployment', name: 'cart' },
      ...(options.updateMode !== null && { updatePolicy: { updateMode: options.updateMode ?? 'Off' } }),
      ...(options.policies && { resourcePolicy: { containerPolicies: options.policies } }),
    },
    status: {
      conditions: [{ type: 'RecommendationProvided', status: 'True', lastTransitionTime: '2026-11-20T08:05:00Z' }],
      ...(options.recommendations && { recommendation: { containerRecommendations: options.recommendations } }),
    },
  };
}

const app = (target: Record<string, string>, rest: Record<string, Record<string, string>> = {}) => ({
  containerName: 'app',
  target,
  lowerBound: rest.lowerBound ?? target,
  upperBound: rest.upperBound ?? target,
  uncappedTarget: rest.uncappedTarget ?? target,
});

function current(requests: Record<string, string>, limits: Record<string, string> = {}): () => CurrentContainer[] {
  return () => [{ name: 'app', requests, limits }];
}

describe('fromVpa', () => {
  it('turns a VPA in Off mode into a recommendation with its provenance', () => {
    const { recommendation, skips } = fromVpa(vpa({ recommendations: [app({ cpu: '25m', memory: '262144k' })] }), current({ cpu: '500m', memory: '1Gi' }), OPTIONS);
    expect(skips).toEqual([]);
    expect(recommendation).toEqual({
      name: 'cart',
      namespace: 'shop',
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' },
      // 262144k = 262,144,000 bytes, rounded up to whole Mi: 250Mi.
      containers: [{ name: 'app', requests: { cpu: '25m', memory: '250Mi' }, limits: {} }],
      provenance: { recommender: 'vpa', bound: 'target', generatedAt: '2026-11-20T08:05:00Z' },
      status: {},
    });
  });

  it.each([
    ['target', '300m'],
    ['lowerBound', '100m'],
    ['upperBound', '900m'],
    ['uncappedTarget', '250m'],
  ] as const)('bound %s → requests.cpu %s', (bound, cpu) => {
    const recommendations = [app({ cpu: '300m' }, { lowerBound: { cpu: '100m' }, upperBound: { cpu: '900m' }, uncappedTarget: { cpu: '250m' } })];
    const { recommendation } = fromVpa(vpa({ recommendations }), current({ cpu: '2' }), { ...OPTIONS, bound });
    expect(recommendation?.containers[0]?.requests).toEqual({ cpu });
    expect(recommendation?.provenance?.bound).toBe(bound);
  });

  // GetProportionalLimit: the limit keeps its ratio to the request (milli-units for CPU, bytes for memory, integer division).
  it.each([
    ['ratio 2 kept', { cpu: '500m' }, { cpu: '1' }, '250m', '500m'],
    ['ratio 3 on CPU, millicores rounded down then to 1m', { cpu: '300m' }, { cpu: '900m' }, '111m', '333m'],
    ['limit equal to request follows it', { cpu: '1' }, { cpu: '1' }, '400m', '400m'],
    ['limit without a request becomes the request', {}, { cpu: '2' }, '400m', '400m'],
    ['no limit: none set', { cpu: '1' }, {}, '400m', undefined],
  ] as const)('RequestsAndLimits, %s', (_, requests, limits, recommended, limit) => {
    const { recommendation } = fromVpa(vpa({ recommendations: [app({ cpu: recommended })] }), current(requests, limits), OPTIONS);
    expect(recommendation?.containers[0]?.requests.cpu).toBe(recommended);
    expect(recommendation?.containers[0]?.limits.cpu).toBe(limit);
  });

  it('scales a memory limit in bytes and rounds it up to Mi', () => {
    const { recommendation } = fromVpa(vpa({ recommendations: [app({ memory: '300Mi' })] }), current({ memory: '512Mi' }, { memory: '768Mi' }), OPTIONS);
    expect(recommendation?.containers[0]).toEqual({ name: 'app', requests: { memory: '300Mi' }, limits: { memory: '450Mi' } });
  });

  it('RequestsOnly leaves limits alone, and caps the request at the limit as VPA does', () => {
    const policies = [{ containerName: 'app', controlledValues: 'RequestsOnly' }];
    const lower = fromVpa(vpa({ policies, recommendations: [app({ cpu: '250m' })] }), current({ cpu: '500m' }, { cpu: '1' }), OPTIONS);
    expect(lower.recommendation?.containers[0]).toEqual({ name: 'app', requests: { cpu: '250m' }, limits: {} });
    const above = fromVpa(vpa({ policies, recommendations: [app({ cpu: '3' })] }), current({ cpu: '500m' }, { cpu: '1' }), OPTIONS);
    expect(above.recommendation?.containers[0]?.requests).toEqual({ cpu: '1' });
  });

  it('keeps to minAllowed/maxAllowed, the container policy before the * default', () => {
    const policies = [
      { containerName: '*', minAllowed: { cpu: '50m' } },
      { containerName: 'app', minAllowed: { cpu: '200m', memory: '128Mi' }, maxAllowed: { memory: '1Gi' } },
      { containerName: 'sidecar', maxAllowed: { cpu: '100m' } },
    ];
    const recommendations = [app({ cpu: '20m', memory: '4Gi' }), { containerName: 'log', target: { cpu: '10m' } }];
    const containers = (): CurrentContainer[] => [
      { name: 'app', requests: { cpu: '1', memory: '2Gi' }, limits: {} },
      { name: 'log', requests: { cpu: '500m' }, limits: {} },
    ];
    const { recommendation } = fromVpa(vpa({ policies, recommendations }), containers, OPTIONS);
    expect(recommendation?.containers).toEqual([
      { name: 'app', requests: { cpu: '200m', memory: '1Gi' }, limits: {} },
      { name: 'log', requests: { cpu: '50m' }, limits: {} },
    ]);
  });

  it('recommends only controlledResources, and skips containers in mode Off', () => {
    const policies = [{ containerName: 'app', controlledResources: ['memory'] }, { containerName: 'istio-proxy', mode: 'Off' }];
    const recommendations = [app({ cpu: '20m', memory: '300Mi' }), { containerName: 'istio-proxy', target: { cpu: '10m' } }];
    const containers = (): CurrentContainer[] => [
      { name: 'app', requests: { cpu: '1', memory: '1Gi' }, limits: {} },
      { name: 'istio-proxy', requests: { cpu: '100m' }, limits: {} },
    ];
    const { recommendation, skips } = fromVpa(vpa({ policies, recommendations }), containers, OPTIONS);
    expect(recommendation?.containers).toEqual([{ name: 'app', requests: { memory: '300Mi' }, limits: {} }]);
    expect(skips).toEqual([expect.objectContaining({ container: 'istio-proxy', reason: 'ContainerOff' })]);
  });

  it.each([
    ['1m CPU, 1Mi memory', {}, { cpu: '12m', memory: '101Mi' }],
    ['10m CPU, 64Mi memory', { cpu: '10m', memory: '64Mi' }, { cpu: '20m', memory: '128Mi' }],
    ['whole cores, decimal megabytes', { cpu: '1', memory: '1M' }, { cpu: '1', memory: '106M' }],
  ])('rounds up to %s', (_, round, requests) => {
    const steps = Object.fromEntries(Object.entries(round).map(([resource, step]) => [resource, Quantity.parse(step)]));
    const options = { ...OPTIONS, round: { ...OPTIONS.round, ...steps } };
    // 11.2m of CPU; 100.5Mi of memory (105,381,888 bytes).
    const { recommendation } = fromVpa(vpa({ recommendations: [app({ cpu: '11200u', memory: '105381888' })] }), current({ cpu: '2', memory: '2Gi' }), options);
    expect(recommendation?.containers[0]?.requests).toEqual(requests);
  });

  it.each([
    ['4.9% lower: noise', '951m', 'WithinTolerance'],
    ['5% higher: noise', '1050m', 'WithinTolerance'],
    ['5.1% higher: a change', '1051m', null],
  ])('tolerance 5%%, %s', (_, cpu, reason) => {
    const { recommendation, skips } = fromVpa(vpa({ recommendations: [app({ cpu })] }), current({ cpu: '1' }), OPTIONS);
    expect(skips.map((skip) => skip.reason)).toEqual(reason ? [reason] : []);
    expect(recommendation?.containers[0]?.requests.cpu).toBe(reason ? undefined : cpu);
  });

  it('drops a field within tolerance but keeps the other', () => {
    const { recommendation } = fromVpa(vpa({ recommendations: [app({ cpu: '1010m', memory: '512Mi' })] }), current({ cpu: '1', memory: '1Gi' }), OPTIONS);
    expect(recommendation?.containers).toEqual([{ name: 'app', requests: { memory: '512Mi' }, limits: {} }]);
  });

  it.each([
    ['Auto', 'Auto'],
    ['Recreate', 'Recreate'],
    ['Initial', 'Initial'],
    ['InPlaceOrRecreate', 'InPlaceOrRecreate'],
    ['no updatePolicy (VPA defaults to updating)', null],
  ])('skips a VPA in an updating mode: %s', (_, updateMode) => {
    const { recommendation, skips } = fromVpa(vpa({ updateMode, recommendations: [app({ cpu: '25m' })] }), current({ cpu: '1' }), OPTIONS);
    expect(recommendation).toBeUndefined();
    expect(skips).toEqual([{ target: 'shop/Deployment/cart', ref: { namespace: 'shop', kind: 'Deployment', name: 'cart' }, reason: 'UpdatingMode', message: expect.stringContaining('VPA applies its recommendations itself') }]);
  });

  it('skips a VPA without a recommendation yet, a workload not in the repo, and a kind kerf does not edit', () => {
    expect(fromVpa(vpa(), current({ cpu: '1' }), OPTIONS).skips.map((s) => s.reason)).toEqual(['NoRecommendation']);
    expect(fromVpa(vpa({ recommendations: [app({ cpu: '25m' })] }), () => undefined, OPTIONS).skips.map((s) => s.reason)).toEqual(['NotInRepo']);
    expect(fromVpa(vpa({ kind: 'CronJob', recommendations: [app({ cpu: '25m' })] }), current({}), OPTIONS).skips.map((s) => s.reason)).toEqual(['UnsupportedKind']);
  });

  it('names Goldilocks as the recommender of the VPAs it creates', () => {
    const goldilocks = vpa({ recommendations: [app({ cpu: '25m' })] });
    Object.assign(goldilocks.metadata, { name: 'goldilocks-cart', labels: { creator: 'Fairwinds', source: 'goldilocks' } });
    expect(fromVpa(goldilocks, current({ cpu: '1' }), OPTIONS).recommendation?.provenance?.recommender).toBe('goldilocks');
  });

  it('orders containers by name whatever order VPA lists them in', () => {
    const containers = () => ['b', 'a'].map((name) => ({ name, requests: { cpu: '1' }, limits: {} }));
    const recommendations = ['b', 'a'].map((containerName) => ({ containerName, target: { cpu: '100m' } }));
    expect(fromVpa(vpa({ recommendations }), containers, OPTIONS).recommendation?.containers.map((c) => c.name)).toEqual(['a', 'b']);
  });
});

describe('vpasIn', () => {
  it('finds VPAs alone and in the List kubectl prints', () => {
    const one = vpa();
    const list = { apiVersion: 'v1', kind: 'List', items: [vpa(), { apiVersion: 'v1', kind: 'ConfigMap' }] };
    expect(vpasIn([one, list, null])).toHaveLength(2);
  });
});
