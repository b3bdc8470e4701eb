import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateConfig, validatePolicy, validateRecommendation } from '../../src/model/validate.js';

const source = { file: 'policies/shop.yaml', line: 3 };

describe('validatePolicy', () => {
  it('fills the defaults of DESIGN.md (from the CRD schema)', () => {
    const { policy, errors } = validatePolicy(parse('metadata: {name: p, namespace: shop}\nspec: {mode: auto-patch}'), source);
    expect(errors).toEqual([]);
    expect(policy).toMatchObject({
      name: 'p',
      namespace: 'shop',
      mode: 'auto-patch',
      selector: {},
      apply: { strategy: 'in-place', fallbackAfter: '10m', maintenanceWindows: [], freezeWindows: [], onDelete: { maxPodDeletesPerRun: 1, settle: '30s' } },
    });
  });

  it.each([
    ['spec: {mode: sometimes}', 'spec.mode', /must be one of auto-patch, recommend, got "sometimes"/],
    ['spec: {mode: auto-patch, apply: {strategy: fast}}', 'spec.apply.strategy', /must be one of in-place, rollout, deferred/],
    ['spec: {mode: auto-patch, apply: {windows: []}}', 'spec.apply.windows', /unknown field "windows"/],
    ['spec: {mode: auto-patch, apply: {onDelete: {maxPodDeletesPerRun: 0}}}', 'spec.apply.onDelete.maxPodDeletesPerRun', /must be >= 1/],
    ['spec: {mode: auto-patch, apply: {maintenanceWindows: {schedule: x}}}', 'spec.apply.maintenanceWindows', /must be array/],
    ['spec: {mode: auto-patch, selector: {matchLabels: {a: {b: c}}}}', 'spec.selector.matchLabels.a', /must be string/],
  ])('%s → an error naming file, object and %s', (yamlText, field, message) => {
    const { errors } = validatePolicy(parse(`metadata: {name: p, namespace: shop}\n${yamlText}`), source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'policies/shop.yaml', line: 3, object: 'RightsizingPolicy shop/p', field });
    expect(errors[0]?.message).toMatch(message);
    expect(errors[0]?.message).toContain(`policies/shop.yaml: RightsizingPolicy shop/p: ${field}`);
  });

  it('W1: windows are kept as written for the window rules to judge', () => {
    const { policy } = validatePolicy(parse('metadata: {name: p}\nspec: {mode: auto-patch, apply: {freezeWindows: [{schedule: "bad"}]}}'), source);
    expect(policy?.apply.freezeWindows).toEqual([{ schedule: 'bad' }]);
    expect(policy?.namespace).toBe('default');
  });
});

describe('validateRecommendation', () => {
  it('reads containers, null limits (N4) and the status', () => {
    const { recommendation, errors } = validateRecommendation(
      parse(`metadata: {name: cart, namespace: shop}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: cart}
  containers:
    - name: app
      requests: {cpu: 250m, memory: 1}
      limits: {memory: null}
status: {phase: Pending, strategy: rollout, configuredStrategy: in-place, reason: Fallback}`),
      source,
    );
    expect(errors).toEqual([]);
    expect(recommendation).toMatchObject({
      targetRef: { kind: 'Deployment', name: 'cart' },
      containers: [{ name: 'app', requests: { cpu: '250m', memory: '1' }, limits: { memory: null } }],
      status: { phase: 'Pending', strategy: 'rollout', configuredStrategy: 'in-place', reason: 'Fallback' },
    });
  });

  it('reads spec.source as the provenance', () => {
    const { recommendation, errors } = validateRecommendation(
      parse(`metadata: {name: cart, namespace: shop}
spec:
  targetRef: {kind: Deployment, name: cart}
  source: {recommender: vpa, bound: target, percentile: 90, sampleWindow: 192h, generatedAt: 2026-12-01T08:00:00Z}
  containers: [{name: app, requests: {cpu: 250m}}]`),
      source,
    );
    expect(errors).toEqual([]);
    expect(recommendation?.provenance).toEqual({ recommender: 'vpa', bound: 'target', percentile: 90, sampleWindow: '192h', generatedAt: '2026-12-01T08:00:00Z' });
  });

  it('refuses a recommendation whose spec.source is invalid, naming the fields', () => {
    const { recommendation, errors } = validateRecommendation(
      parse(`metadata: {name: cart, namespace: shop}
spec:
  targetRef: {kind: Deployment, name: cart}
  source: {bound: target, percentile: 150}
  containers: [{name: app, requests: {cpu: 250m}}]`),
      source,
    );
    expect(errors.map((e) => e.field).sort()).toEqual(['spec.source.percentile', 'spec.source.recommender']);
    expect(recommendation).toBeUndefined();
  });

  it.each([
    ['spec: {targetRef: {kind: Deployment, name: x}, source: {recommender: krr, sampleWindow: 2w}, containers: [{name: a}]}', 'spec.source.sampleWindow'],
    ['spec: {targetRef: {kind: Deployment, name: x}, source: {recommender: krr, generatedAt: yesterday}, containers: [{name: a}]}', 'spec.source.generatedAt'],
    ['spec: {targetRef: {kind: Deployment, name: x}, source: {recommender: krr, by: me}, containers: [{name: a}]}', 'spec.source.by'],
    ['spec: {containers: [{name: a}]}', 'spec.targetRef'],
    ['spec: {targetRef: {kind: Deployment, name: x}, containers: []}', 'spec.containers'],
    ['spec: {targetRef: {kind: Deployment, name: x}, containers: [{name: a, requests: {gpu: 1}}]}', 'spec.containers[0].requests.gpu'],
    ['spec: {targetRef: {kind: Deployment, name: x}, containers: [{name: a}]}\nstatus: {reason: Because}', 'status.reason'],
  ])('%s → an error on %s', (yamlText, field) => {
    const { errors } = validateRecommendation(parse(`metadata: {name: r, namespace: shop}\n${yamlText}`), source);
    expect(errors.map((e) => e.field)).toContain(field);
  });
});

describe('validateConfig', () => {
  it('returns the defaults for an empty file', () => {
    expect(validateConfig(null, '.kerf/config.yaml')).toMatchObject({ errors: [], config: { groupBy: 'per-workload', prHourlyLimit: 4, prConcurrentLimit: 20, branchPrefix: 'kerf/', pause: false } });
  });

  it('reads every key', () => {
    const { config, errors } = validateConfig(
      parse(`cluster: eu
groupBy: per-namespace
labels: [kerf]
reviewers: [alice]
teamReviewers: [platform]
branchPrefix: rightsizing/
author: {name: kerf, email: kerf@example.com}
prHourlyLimit: 2
prConcurrentLimit: 5
paths: [clusters/eu]
freeze: {now: true, windows: [{start: "2026-12-24T00:00:00Z", end: "2026-12-27T00:00:00Z"}]}
pause: true
unsupportedNodeSelectors: [{matchLabels: {cpu-manager: static}}]`),
      '.kerf/config.yaml',
    );
    expect(errors).toEqual([]);
    expect(config).toMatchObject({ cluster: 'eu', groupBy: 'per-namespace', author: { name: 'kerf', email: 'kerf@example.com' }, freeze: { now: true }, pause: true, unsupportedNodeSelectors: [{ matchLabels: { 'cpu-manager': 'static' } }] });
  });

  it.each([
    ['groupBy: per-team', 'groupBy'],
    ['reviwers: [alice]', 'reviwers'],
    ['pause: "yes"', 'pause'],
    ['freeze: {now: true, until: tomorrow}', 'freeze.until'],
    ['prHourlyLimit: -1', 'prHourlyLimit'],
    ['author: {name: kerf}', 'author.email'],
  ])('%s → an error naming the key %s', (yamlText, field) => {
    const { errors } = validateConfig(parse(yamlText), '.kerf/config.yaml');
    expect(errors.map((e) => e.field)).toEqual([field]);
    expect(errors[0]?.message).toMatch(/^\.kerf\/config\.yaml: config: /);
  });
});

describe('review settings and provenance', () => {
  const source = { file: 'recs.yaml', line: 1 };
  const rec = (extra: string) => validateRecommendation(parse(`metadata: {name: r, namespace: shop}\nspec:\n  targetRef: {kind: Deployment, name: cart}\n  containers: [{name: app, requests: {cpu: 100m}}]\n${extra}`), source);

  it('spec.source becomes the provenance, exactly as the CRD types it', () => {
    const { recommendation, errors } = rec('  source: {recommender: vpa, bound: target, percentile: 90, sampleWindow: 168h, generatedAt: "2026-12-01T06:00:00Z"}');
    expect(errors).toEqual([]);
    expect(recommendation?.provenance).toEqual({ recommender: 'vpa', bound: 'target', percentile: 90, sampleWindow: '168h', generatedAt: '2026-12-01T06:00:00Z' });
    expect(rec('').recommendation?.provenance).toBeUndefined();
  });

  it.each([
    ['  source: {percentile: 90}', 'spec.source.recommender'],
    ['  source: {recommender: vpa, percentile: 101}', 'spec.source.percentile'],
  ])('%s is an error naming %s', (extra, field) => {
    expect(rec(extra).errors.map((error) => error.field)).toEqual([field]);
  });

  it('pricing, autoMerge and dashboard are config keys; a bad price is an error naming its field', () => {
    const ok = validateConfig(parse('pricing: {cpuCoreHour: 0.03, memoryGiBHour: 0.004, currency: EUR}\nautoMerge: true\ndashboard: false'), '.kerf/config.yaml');
    expect(ok.errors).toEqual([]);
    expect(ok.config).toMatchObject({ pricing: { cpuCoreHour: 0.03, memoryGiBHour: 0.004, currency: 'EUR' }, autoMerge: true, dashboard: false });
    const bad = validateConfig(parse('pricing: {cpuCoreHour: -1, memoryGiBHour: cheap, per: month}\nautoMerge: yes please'), '.kerf/config.yaml');
    expect(bad.errors.map((error) => error.field).sort()).toEqual(['autoMerge', 'pricing.cpuCoreHour', 'pricing.memoryGiBHour', 'pricing.per']);
    expect(bad.config.pricing).toBeUndefined();
  });
});
