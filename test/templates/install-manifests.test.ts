// The helper's install manifests (templates/crds, templates/install): every document is checked against the
// Kubernetes JSON schemas shipped with kubernetes-models, then the properties the rule book and DESIGN.md rely on.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as models from 'kubernetes-models';
import type { ICustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import type { IJSONSchemaProps } from 'kubernetes-models/apiextensions.k8s.io/v1/JSONSchemaProps';
import type { IMutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/MutatingWebhookConfiguration';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import type { IClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import type { IRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import type { IRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { MODES, PHASES, REASONS, STRATEGIES, WORKLOAD_KINDS } from '../../src/model/types.js';
import { structuralValidator, toJsonSchema } from './structural-schema.js';
import type { StructuralSchema } from './structural-schema.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEMPLATES = join(ROOT, 'templates');
// PR title/body templates may live elsewhere under templates/; these folders hold Kubernetes objects only
// (and the kustomizations that put them together, which are no objects of the cluster).
const MANIFEST_DIRS = ['crds', 'install', 'components'];

/** Kinds no built-in model covers: ours (checked against their CRD below) and cert-manager's. */
const KINDS_WITHOUT_MODEL = new Set([
  'kerf.getkerf.dev/v1alpha1/RightsizingPolicy',
  'kerf.getkerf.dev/v1alpha1/RightsizingRecommendation',
  'cert-manager.io/v1/Issuer',
  'cert-manager.io/v1/ClusterIssuer',
  'cert-manager.io/v1/Certificate',
]);

interface ManifestDoc {
  file: string;
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
  object: Record<string, unknown>;
}

function manifestFiles(): string[] {
  return MANIFEST_DIRS.flatMap((dir) =>
    readdirSync(join(TEMPLATES, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.ya?ml$/.test(name) && !/(^|\/)kustomization\.yaml$/.test(name))
      .map((name) => join(TEMPLATES, dir, name)),
  ).sort();
}

function loadDocs(): ManifestDoc[] {
  return manifestFiles().flatMap((path) => {
    const file = relative(ROOT, path);
    return parseAllDocuments(readFileSync(path, 'utf8')).map((doc, index) => {
      if (doc.errors.length > 0) throw new Error(`${file} document ${index}: ${doc.errors[0]?.message}`);
      const object = doc.toJS() as Record<string, unknown>;
      const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
      return {
        file,
        index,
        apiVersion: String(object.apiVersion),
        kind: String(object.kind),
        name: String(metadata.name),
        namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
        object,
      };
    });
  });
}

const docs = loadDocs();

function find<T>(kind: string, name: string): T {
  const found = docs.filter((doc) => doc.kind === kind && doc.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0]!.object as T;
}

type ModelClass = { new (data: object): { validate(): void }; apiVersion: string; kind: string };

function member(namespace: unknown, key: string): unknown {
  return typeof namespace === 'object' && namespace !== null ? (namespace as Record<string, unknown>)[key] : undefined;
}

/** kubernetes-models exports groups camel-cased (`rbac.authorization.k8s.io` → `rbacAuthorizationK8sIo`). */
function modelFor(apiVersion: string, kind: string): ModelClass | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const groupKey = group!.split('.').map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join('');
  const versionNs = group === '' ? member(models, version!) : member(member(models, groupKey), version!);
  const model = member(versionNs, kind) as Partial<ModelClass> | undefined;
  // Core v1 also exports nested types (Container, …); only a top-level kind carries its own apiVersion/kind.
  return model?.apiVersion === apiVersion && model.kind === kind ? (model as ModelClass) : undefined;
}

describe('every document in templates/crds, templates/install and templates/components', () => {
  it('the folders hold the expected objects', () => {
    expect(docs.map((doc) => `${doc.kind}/${doc.name}`).sort()).toEqual(
      [
        'Certificate/kerf-gitops-webhook',
        'ClusterRole/kerf-gitops-helper',
        'ClusterRoleBinding/kerf-gitops-helper',
        'ClusterRole/kerf-gitops-reconciler',
        'ClusterRoleBinding/kerf-gitops-reconciler',
        'Secret/kerf-gitops-reconciler-token',
        'ServiceAccount/kerf-gitops-reconciler',
        'ConfigMap/kerf-gitops-config',
        'CustomResourceDefinition/rightsizingpolicies.kerf.getkerf.dev',
        'CustomResourceDefinition/rightsizingrecommendations.kerf.getkerf.dev',
        'Deployment/kerf-gitops-helper',
        'Issuer/kerf-gitops-selfsigned',
        'MutatingWebhookConfiguration/kerf-gitops',
        'Namespace/kerf-system',
        'PodDisruptionBudget/kerf-gitops-helper',
        'Role/kerf-gitops-helper',
        'RoleBinding/kerf-gitops-helper',
        'Service/kerf-gitops-helper',
        'ServiceAccount/kerf-gitops-helper',
        // components/self-signed-certificate
        'Secret/kerf-gitops-webhook-tls',
        'Role/kerf-gitops-webhook-certificate',
        'RoleBinding/kerf-gitops-webhook-certificate',
        'ClusterRole/kerf-gitops-webhook-certificate',
        'ClusterRoleBinding/kerf-gitops-webhook-certificate',
      ].sort(),
    );
  });

  it.each(docs.map((doc) => [`${doc.file}#${doc.index} ${doc.kind}/${doc.name}`, doc] as const))(
    '%s validates against its schema',
    (_label, doc) => {
      const Model = modelFor(doc.apiVersion, doc.kind);
      if (Model) {
        expect(() => new Model(doc.object).validate()).not.toThrow();
      } else {
        expect(KINDS_WITHOUT_MODEL, `no model for ${doc.apiVersion} ${doc.kind}`).toContain(
          `${doc.apiVersion}/${doc.kind}`,
        );
        expect(doc.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      }
      // Everything namespaced lives in kerf-system; cluster-scoped kinds carry no namespace.
      const clusterScoped = ['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'MutatingWebhookConfiguration'];
      expect(doc.namespace).toBe(clusterScoped.includes(doc.kind) ? undefined : 'kerf-system');
    },
  );

  it('the model lookup finds built-in kinds and refuses unknown ones', () => {
    expect(modelFor('apps/v1', 'Deployment')?.kind).toBe('Deployment');
    expect(modelFor('v1', 'Namespace')?.kind).toBe('Namespace');
    expect(modelFor('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration')).toBeDefined();
    expect(modelFor('v1', 'Container')).toBeUndefined();
    expect(modelFor('cert-manager.io/v1', 'Certificate')).toBeUndefined();
    // A built-in model really rejects a broken object (so the table above can fail).
    const broken = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 'two' } };
    expect(() => new (modelFor('apps/v1', 'Deployment')!)(broken).validate()).toThrow();
  });
});

// --- CRDs -------------------------------------------------------------------------------------------------

const policyCrd = find<ICustomResourceDefinition>('CustomResourceDefinition', 'rightsizingpolicies.kerf.getkerf.dev');
const recommendationCrd = find<ICustomResourceDefinition>(
  'CustomResourceDefinition',
  'rightsizingrecommendations.kerf.getkerf.dev',
);

function servedVersion(crd: ICustomResourceDefinition) {
  const versions = crd.spec.versions;
  expect(versions.map((v) => v.name)).toEqual(['v1alpha1']);
  return versions[0]!;
}

function schemaAt(crd: ICustomResourceDefinition, path: string): IJSONSchemaProps {
  let schema: IJSONSchemaProps | undefined = servedVersion(crd).schema?.openAPIV3Schema;
  for (const step of path.split('.')) {
    schema = step === '[]' ? (schema?.items as IJSONSchemaProps | undefined) : schema?.properties?.[step];
    if (!schema) throw new Error(`${crd.metadata?.name}: no schema at ${path} (stopped at ${step})`);
  }
  return schema!;
}

/** The enum of a schema, whether at its top level or (for a nullable field) under allOf. */
function enumOf(schema: IJSONSchemaProps): unknown[] {
  return [...(schema.enum ?? []), ...(schema.allOf ?? []).flatMap((sub) => sub.enum ?? [])];
}

const sorted = (values: readonly unknown[]) => [...values].map(String).sort();

describe('CRDs', () => {
  it.each([
    [policyCrd, 'RightsizingPolicy', 'rightsizingpolicies', 'rsp'],
    [recommendationCrd, 'RightsizingRecommendation', 'rightsizingrecommendations', 'rsr'],
  ] as const)('%#: %s is namespaced kerf.getkerf.dev/v1alpha1, served and stored, with a status subresource', (crd, kind, plural, short) => {
    expect(crd.spec.group).toBe('kerf.getkerf.dev');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.metadata?.name).toBe(`${plural}.kerf.getkerf.dev`);
    expect(crd.spec.names).toMatchObject({ kind, plural, shortNames: [short] });
    const version = servedVersion(crd);
    expect(version).toMatchObject({ served: true, storage: true });
    expect(version.subresources?.status).toEqual({});
  });

  it('W2: a policy lists at most 16 maintenance windows and 16 freeze windows', () => {
    expect(schemaAt(policyCrd, 'spec.apply.maintenanceWindows').maxItems).toBe(16);
    expect(schemaAt(policyCrd, 'spec.apply.freezeWindows').maxItems).toBe(16);
    for (const list of ['maintenanceWindows', 'freezeWindows']) {
      expect(Object.keys(schemaAt(policyCrd, `spec.apply.${list}.[]`).properties ?? {}).sort()).toEqual(
        ['duration', 'end', 'schedule', 'start', 'timeZone'],
      );
      expect(schemaAt(policyCrd, `spec.apply.${list}.[].start`).format).toBe('date-time');
      expect(schemaAt(policyCrd, `spec.apply.${list}.[].end`).format).toBe('date-time');
    }
  });

  it('the policy enums are the model types', () => {
    expect(sorted(enumOf(schemaAt(policyCrd, 'spec.mode')))).toEqual(sorted(MODES));
    expect(sorted(enumOf(schemaAt(policyCrd, 'spec.apply.strategy')))).toEqual(sorted(STRATEGIES));
  });

  it('S1, F2, OD1, OD2: the policy defaults', () => {
    expect(schemaAt(policyCrd, 'spec.apply').default).toEqual({});
    expect(schemaAt(policyCrd, 'spec.apply.strategy').default).toBe('in-place');
    expect(schemaAt(policyCrd, 'spec.apply.fallbackAfter').default).toBe('10m');
    expect(schemaAt(policyCrd, 'spec.apply.onDelete').default).toEqual({});
    expect(schemaAt(policyCrd, 'spec.apply.onDelete.maxPodDeletesPerRun')).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(schemaAt(policyCrd, 'spec.apply.onDelete.settle').default).toBe('30s');
    expect(schemaAt(policyCrd, 'spec.apply.healthWatch.duration').default).toBe('30m');
  });

  it('the recommendation status enums: the nine rule-book reasons plus InvalidPolicy and HelmMappingMismatch, every phase, the strategies', () => {
    const reason = schemaAt(recommendationCrd, 'status.reason');
    expect(sorted(enumOf(reason))).toEqual(sorted(REASONS));
    expect(enumOf(reason)).toHaveLength(11);
    expect(reason.nullable).toBe(true);
    expect(sorted(enumOf(schemaAt(recommendationCrd, 'status.phase')))).toEqual(sorted(PHASES));
    expect(sorted(enumOf(schemaAt(recommendationCrd, 'status.strategy')))).toEqual(sorted(STRATEGIES));
    expect(sorted(enumOf(schemaAt(recommendationCrd, 'status.configuredStrategy')))).toEqual(sorted(STRATEGIES));
    expect(sorted(enumOf(schemaAt(recommendationCrd, 'spec.targetRef.kind')))).toEqual(sorted(WORKLOAD_KINDS));
    expect(schemaAt(recommendationCrd, 'status.nextWindow')).toMatchObject({ format: 'date-time', nullable: true });
  });

  it('N4: a recommended limit may be null (remove it); a request may not', () => {
    for (const resource of ['cpu', 'memory']) {
      expect(schemaAt(recommendationCrd, `spec.containers.[].limits.${resource}`).nullable).toBe(true);
      expect(schemaAt(recommendationCrd, `spec.containers.[].requests.${resource}`).nullable).toBeUndefined();
      expect(schemaAt(recommendationCrd, `spec.containers.[].requests.${resource}`)['x-kubernetes-int-or-string']).toBe(true);
    }
  });

  it('conditions are a standard list keyed by type', () => {
    for (const crd of [policyCrd, recommendationCrd]) {
      const conditions = schemaAt(crd, 'status.conditions');
      expect(conditions['x-kubernetes-list-type']).toBe('map');
      expect(conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
      expect(schemaAt(crd, 'status.conditions.[]').required?.slice().sort()).toEqual(
        ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
      );
    }
  });

  it('printer columns', () => {
    const columns = (crd: ICustomResourceDefinition) =>
      (servedVersion(crd).additionalPrinterColumns ?? []).map((c) => [c.name, c.jsonPath]);
    expect(columns(recommendationCrd)).toEqual([
      ['Phase', '.status.phase'],
      ['Strategy', '.status.strategy'],
      ['Reason', '.status.reason'],
      ['Next Window', '.status.nextWindow'],
      ['PR', '.status.pullRequest.url'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
    expect(columns(policyCrd)).toEqual([
      ['Mode', '.spec.mode'],
      ['Strategy', '.spec.apply.strategy'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('every default validates against its own schema (the API server refuses the CRD otherwise)', () => {
    const defaults: [string, StructuralSchema][] = [];
    const walk = (schema: unknown, path: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const s = schema as StructuralSchema;
      if ('default' in s) defaults.push([path, s]);
      for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) walk(sub, `${path}.${name}`);
      if (s.items) walk(s.items, `${path}[]`);
    };
    for (const crd of [policyCrd, recommendationCrd]) walk(servedVersion(crd).schema?.openAPIV3Schema, crd.spec.names.kind);
    expect(defaults.length).toBeGreaterThanOrEqual(7);
    for (const [path, schema] of defaults) {
      expect({ path, problems: structuralValidator(schema)(schema.default) }).toEqual({ path, problems: [] });
    }
  });
});

// --- Example objects against the CRD schemas ---------------------------------------------------------------

const validatePolicy = structuralValidator(servedVersion(policyCrd).schema!.openAPIV3Schema as StructuralSchema);
const validateRecommendation = structuralValidator(
  servedVersion(recommendationCrd).schema!.openAPIV3Schema as StructuralSchema,
);

function examplePolicy(): Record<string, any> {
  return parse(`
    apiVersion: kerf.getkerf.dev/v1alpha1
    kind: RightsizingPolicy
    metadata: {name: default, namespace: shop}
    spec:
      mode: auto-patch
      selector: {matchLabels: {tier: web}, matchExpressions: [{key: team, operator: In, values: [cart]}]}
      apply:
        strategy: deferred
        fallbackAfter: 1h30m
        maintenanceWindows:
          - {schedule: "0 1 * * 6", duration: 4h, timeZone: Europe/Berlin}
          - {start: "2026-12-24T00:00:00Z", end: "2026-12-24T06:00:00+01:00"}
        freezeWindows:
          - {start: "2026-12-20T00:00:00Z", end: "2027-01-04T00:00:00Z"}
        onDelete: {maxPodDeletesPerRun: 2, settle: 45s}
        healthWatch: {duration: 15m}
  `.replace(/^ {4}/gm, ''));
}

function exampleRecommendation(): Record<string, any> {
  return parse(`
    apiVersion: kerf.getkerf.dev/v1alpha1
    kind: RightsizingRecommendation
    metadata: {name: cart, namespace: shop}
    spec:
      targetRef: {apiVersion: apps/v1, kind: Deployment, name: cart}
      containers:
        - name: app
          requests: {cpu: 250m, memory: 512Mi}
          limits: {cpu: null, memory: 1Gi}
        - name: proxy
          requests: {cpu: 1, memory: 64e6}
    status:
      phase: Deferred
      strategy: rollout
      configuredStrategy: in-place
      nextWindow: "2026-12-06T01:00:00.000Z"
      reason: OutsideMaintenanceWindow
      pullRequest: {number: 12, url: "https://github.com/acme/shop/pull/12"}
      appliedAt: "2026-12-01T10:00:00Z"
      previous:
        - name: app
          requests: {cpu: 500m, memory: 1Gi}
          limits: {cpu: 1, memory: null}
      observedGeneration: 3
      conditions:
        - {type: Ready, status: "False", reason: OutsideMaintenanceWindow, message: held, lastTransitionTime: "2026-12-01T10:00:00Z"}
  `.replace(/^ {4}/gm, ''));
}

describe('example objects against the CRD schemas', () => {
  it('the DESIGN.md-style policy is valid', () => {
    expect(validatePolicy(examplePolicy())).toEqual([]);
  });

  it('a minimal policy (mode only) is valid', () => {
    expect(validatePolicy({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingPolicy', metadata: { name: 'p' }, spec: { mode: 'recommend' } })).toEqual([]);
  });

  it('the recommendation with a removed limit and a full status is valid', () => {
    expect(validateRecommendation(exampleRecommendation())).toEqual([]);
  });

  it('reason and nextWindow may be null (not held, no window)', () => {
    const rec = exampleRecommendation();
    rec.status.reason = null;
    rec.status.nextWindow = null;
    rec.status.phase = 'InPlace';
    expect(validateRecommendation(rec)).toEqual([]);
  });

  const window = { schedule: '0 1 * * 6', duration: '1h' };
  it.each<[string, (p: Record<string, any>) => void, string]>([
    ['W2: a 17th maintenance window', (p) => (p.spec.apply.maintenanceWindows = Array(17).fill(window)), '/spec/apply/maintenanceWindows'],
    ['W2: a 17th freeze window', (p) => (p.spec.apply.freezeWindows = Array(17).fill(window)), '/spec/apply/freezeWindows'],
    ['mode outside auto-patch|recommend', (p) => (p.spec.mode = 'auto'), '/spec/mode'],
    ['no mode', (p) => delete p.spec.mode, '/spec'],
    ['S1: an unknown strategy', (p) => (p.spec.apply.strategy = 'blue-green'), '/spec/apply/strategy'],
    ['F2: a duration in days (not Go grammar)', (p) => (p.spec.apply.fallbackAfter = '1d'), '/spec/apply/fallbackAfter'],
    ['F2: a duration without unit', (p) => (p.spec.apply.fallbackAfter = '10'), '/spec/apply/fallbackAfter'],
    ['W1: a one-off start that is not RFC 3339', (p) => (p.spec.apply.freezeWindows[0].start = '2026-12-20 00:00'), '/spec/apply/freezeWindows/0/start'],
    ['W1: a window duration that is not Go grammar', (p) => (p.spec.apply.maintenanceWindows[0].duration = '4 hours'), '/spec/apply/maintenanceWindows/0/duration'],
    ['OD1: maxPodDeletesPerRun 0', (p) => (p.spec.apply.onDelete.maxPodDeletesPerRun = 0), '/spec/apply/onDelete/maxPodDeletesPerRun'],
    ['OD2: settle that is not a duration', (p) => (p.spec.apply.onDelete.settle = 'soon'), '/spec/apply/onDelete/settle'],
    ['a misspelt field', (p) => (p.spec.apply.fallbackAftr = '5m'), '/spec/apply'],
    ['a selector operator outside the four', (p) => (p.spec.selector.matchExpressions[0].operator = 'Equals'), '/spec/selector/matchExpressions/0/operator'],
  ])('the policy is refused: %s', (_name, mutate, path) => {
    const policy = examplePolicy();
    mutate(policy);
    const problems = validatePolicy(policy);
    expect(problems.map((p) => p.path)).toContain(path);
  });

  it.each<[string, (r: Record<string, any>) => void, string]>([
    ['a reason outside the nine', (r) => (r.status.reason = 'Maintenance'), '/status/reason'],
    ['a phase outside PHASES', (r) => (r.status.phase = 'Done'), '/status/phase'],
    ['a strategy outside the three', (r) => (r.status.strategy = 'recreate'), '/status/strategy'],
    ['a target kind kerf does not edit', (r) => (r.spec.targetRef.kind = 'Job'), '/spec/targetRef/kind'],
    ['a negative quantity', (r) => (r.spec.containers[0].requests.cpu = '-250m'), '/spec/containers/0/requests/cpu'],
    ['a quantity with a space', (r) => (r.spec.containers[0].requests.memory = '512 Mi'), '/spec/containers/0/requests/memory'],
    ['a request set to null', (r) => (r.spec.containers[0].requests.memory = null), '/spec/containers/0/requests/memory'],
    ['a container without a name', (r) => delete r.spec.containers[0].name, '/spec/containers/0'],
    ['no containers', (r) => (r.spec.containers = []), '/spec/containers'],
    ['nextWindow that is not a date-time', (r) => (r.status.nextWindow = 'Saturday'), '/status/nextWindow'],
    ['a pull request without url', (r) => delete r.status.pullRequest.url, '/status/pullRequest'],
    ['a condition status outside True|False|Unknown', (r) => (r.status.conditions[0].status = 'Yes'), '/status/conditions/0/status'],
  ])('the recommendation is refused: %s', (_name, mutate, path) => {
    const rec = exampleRecommendation();
    mutate(rec);
    expect(validateRecommendation(rec).map((p) => p.path)).toContain(path);
  });

  it('the checker follows kube-openapi on null: nullable admits it, a top-level enum refuses it', () => {
    // Why status.reason keeps its enum under allOf: with a top-level enum the API server refuses reason: null.
    expect(structuralValidator({ type: 'string', nullable: true })(null)).toEqual([]);
    expect(structuralValidator({ type: 'string' })(null)).not.toEqual([]);
    expect(structuralValidator({ type: 'string', nullable: true, enum: ['A'] })(null)).not.toEqual([]);
    expect(structuralValidator({ type: 'string', nullable: true, allOf: [{ enum: ['A'] }] })(null)).toEqual([]);
    expect(structuralValidator({ type: 'string', nullable: true, allOf: [{ enum: ['A'] }] })('B')).not.toEqual([]);
    expect(toJsonSchema({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
  });
});

// --- RBAC --------------------------------------------------------------------------------------------------

type Grant = string; // "group/resource verb"

function grants(rules: { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[] }[]): Grant[] {
  return rules
    .flatMap((rule) =>
      (rule.apiGroups ?? []).flatMap((group) =>
        (rule.resources ?? []).flatMap((resource) =>
          rule.verbs.map((verb) => `${group || 'core'}/${resource} ${verb}${rule.resourceNames ? ` ${rule.resourceNames.join(',')}` : ''}`),
        ),
      ),
    )
    .sort();
}

describe('RBAC', () => {
  const clusterRole = find<IClusterRole>('ClusterRole', 'kerf-gitops-helper');
  const role = find<IRole>('Role', 'kerf-gitops-helper');

  it('no wildcard anywhere', () => {
    for (const rule of [...(clusterRole.rules ?? []), ...(role.rules ?? [])]) {
      for (const value of [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs]) expect(value).not.toContain('*');
      expect(rule.nonResourceURLs).toBeUndefined();
    }
  });

  it('S2, OD3: pods/resize patch and pods/eviction create, and no other write to workloads or pods', () => {
    const granted = grants(clusterRole.rules ?? []);
    expect(granted).toContain('core/pods/resize patch');
    expect(granted).toContain('core/pods/eviction create');
    expect(granted.filter((g) => g.startsWith('core/pods'))).toEqual(
      ['core/pods get', 'core/pods list', 'core/pods watch', 'core/pods/eviction create', 'core/pods/resize patch'],
    );
  });

  it('the ClusterRole grants exactly what the helper uses', () => {
    const read = (group: string, resources: string[]) => resources.flatMap((r) => ['get', 'list', 'watch'].map((v) => `${group}/${r} ${v}`));
    expect(grants(clusterRole.rules ?? [])).toEqual(
      [
        ...read('core', ['pods', 'nodes']),
        'core/pods/resize patch',
        'core/pods/eviction create',
        ...read('apps', ['deployments', 'statefulsets', 'daemonsets', 'replicasets', 'controllerrevisions']),
        ...read('policy', ['poddisruptionbudgets']),
        ...read('autoscaling', ['horizontalpodautoscalers']),
        ...read('kerf.getkerf.dev', ['rightsizingpolicies', 'rightsizingrecommendations']),
        ...['rightsizingpolicies/status', 'rightsizingrecommendations/status'].flatMap((r) =>
          ['get', 'update', 'patch'].map((v) => `kerf.getkerf.dev/${r} ${v}`),
        ),
        'core/events create',
        'core/events patch',
        'events.k8s.io/events create',
        'events.k8s.io/events patch',
      ].sort(),
    );
  });

  it('the namespaced Role covers leader election and the helper ConfigMap only', () => {
    expect(grants(role.rules ?? [])).toEqual(
      [
        'coordination.k8s.io/leases create',
        'coordination.k8s.io/leases get kerf-gitops-helper',
        'coordination.k8s.io/leases update kerf-gitops-helper',
        'core/configmaps get kerf-gitops-config',
        'core/configmaps list kerf-gitops-config',
        'core/configmaps watch kerf-gitops-config',
      ].sort(),
    );
  });

  it('both bindings give the roles to the helper ServiceAccount, which the Deployment runs as', () => {
    const subject = { kind: 'ServiceAccount', name: 'kerf-gitops-helper', namespace: 'kerf-system' };
    const clusterBinding = find<IClusterRoleBinding>('ClusterRoleBinding', 'kerf-gitops-helper');
    expect(clusterBinding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kerf-gitops-helper' });
    expect(clusterBinding.subjects).toEqual([subject]);
    const binding = find<IRoleBinding>('RoleBinding', 'kerf-gitops-helper');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kerf-gitops-helper' });
    expect(binding.subjects).toEqual([subject]);
    expect(find<IDeployment>('Deployment', 'kerf-gitops-helper').spec?.template.spec?.serviceAccountName).toBe(subject.name);
  });
});

// --- Deployment, Service, PDB, config ----------------------------------------------------------------------

describe('the helper Deployment', () => {
  const deployment = find<IDeployment>('Deployment', 'kerf-gitops-helper');
  const pod = deployment.spec!.template.spec!;
  const container = pod.containers[0]!;

  it('two replicas of the release image with the contract args (DESIGN.md "The helper"; the certificate\'s come from a component)', () => {
    expect(deployment.spec?.replicas).toBe(2);
    expect(pod.containers).toHaveLength(1);
    expect(container.image).toBe('ghcr.io/getkerf/kerf-gitops:0.1.0');
    expect(container.args).toEqual([
      'helper',
      '--config', '/etc/kerf/config.yaml',
      '--webhook-port', '9443',
      '--health-port', '8080',
    ]);
  });

  it('runs non-root, read-only, without privilege escalation or capabilities, under RuntimeDefault seccomp', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext?.privileged).toBeUndefined();
    expect(container.securityContext?.capabilities?.add).toBeUndefined();
    expect(pod.hostNetwork).toBeUndefined();
  });

  it('probes /healthz and /readyz on the health port 8080, and sizes itself', () => {
    const portOf = (port: number | string | undefined) =>
      typeof port === 'number' ? port : container.ports?.find((p) => p.name === port)?.containerPort;
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(portOf(container.livenessProbe?.httpGet?.port)).toBe(8080);
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(portOf(container.readinessProbe?.httpGet?.port)).toBe(8080);
    expect(container.resources).toEqual({ requests: { cpu: '50m', memory: '160Mi' }, limits: { memory: '384Mi' } });
  });

  it('POD_NAME and POD_NAMESPACE come from the downward API (leader election identity)', () => {
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      ]),
    );
  });

  it('the config file named in args is where the ConfigMap is mounted (the certificate: certificate-options.test.ts)', () => {
    const mount = container.volumeMounts?.find((m) => container.args![container.args!.indexOf('--config') + 1]!.startsWith(`${m.mountPath}/`));
    const volume = pod.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.projected?.sources?.[0]?.configMap).toEqual({ name: 'kerf-gitops-config', items: [{ key: 'config.yaml', path: 'config.yaml' }] });
    expect(container.volumeMounts?.every((m) => m.readOnly === true || m.mountPath === '/tmp')).toBe(true);
  });

  it('the Service sends 443 to the webhook port 9443 of these pods', () => {
    const service = find<IService>('Service', 'kerf-gitops-helper');
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    const port = service.spec?.ports?.find((p) => p.port === 443);
    const target = port?.targetPort;
    expect(typeof target === 'number' ? target : container.ports?.find((p) => p.name === target)?.containerPort).toBe(9443);
  });

  it('a PodDisruptionBudget keeps one helper up and selects exactly these pods', () => {
    const pdb = find<IPodDisruptionBudget>('PodDisruptionBudget', 'kerf-gitops-helper');
    expect(pdb.spec?.minAvailable).toBe(1);
    expect(pdb.spec?.selector).toEqual(deployment.spec?.selector);
    expect(matches(deployment.spec!.selector, deployment.spec!.template.metadata?.labels ?? {})).toBe(true);
  });

  it('Z4, N2: the ConfigMap holds a config.yaml in the .kerf/config.yaml format', () => {
    const configMap = find<IConfigMap>('ConfigMap', 'kerf-gitops-config');
    const config = parse(configMap.data?.['config.yaml'] ?? '') as Record<string, any>;
    const knownKeys = ['cluster', 'groupBy', 'labels', 'reviewers', 'teamReviewers', 'branchPrefix', 'author', 'prHourlyLimit', 'prConcurrentLimit', 'paths', 'freeze', 'pause', 'unsupportedNodeSelectors'];
    expect(Object.keys(config).filter((key) => !knownKeys.includes(key))).toEqual([]);
    expect(config.freeze).toEqual({ now: false, windows: [] });
    expect(config.pause).toBe(false);
    expect(config.unsupportedNodeSelectors).toContainEqual({ matchLabels: { 'kerf.getkerf.dev/cpu-manager-policy': 'static' } });
  });
});

// --- Webhook and its certificate ---------------------------------------------------------------------------

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };

/** metav1.LabelSelector semantics, as the API server applies namespaceSelector and objectSelector. */
function matches(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    byLabels &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      switch (operator) {
        case 'In': return key in labels && values.includes(labels[key]!);
        case 'NotIn': return !(key in labels) || !values.includes(labels[key]!);
        case 'Exists': return key in labels;
        case 'DoesNotExist': return !(key in labels);
        default: throw new Error(`unknown operator ${operator}`);
      }
    })
  );
}

describe('the pod webhook', () => {
  const configuration = find<IMutatingWebhookConfiguration>('MutatingWebhookConfiguration', 'kerf-gitops');
  const webhooks = configuration.webhooks ?? [];

  it.each(webhooks.map((w) => [w.name, w] as const))('%s fails open, fast, with no side effects (S2)', (_name, webhook) => {
    expect(webhook).toMatchObject({
      failurePolicy: 'Ignore',
      timeoutSeconds: 2,
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      reinvocationPolicy: 'Never',
    });
    expect(webhook.rules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
    ]);
    expect(webhook.clientConfig.caBundle).toBeUndefined(); // injected by cert-manager
    const service = find<IService>('Service', 'kerf-gitops-helper');
    expect(webhook.clientConfig.service).toEqual({
      name: service.metadata?.name,
      namespace: service.metadata?.namespace,
      path: '/mutate-pods',
      port: 443,
    });
  });

  // Which webhooks a pod creation reaches; a namespace carries its name as kubernetes.io/metadata.name.
  const called = (namespace: string, podLabels: Record<string, string>, namespaceLabels: Record<string, string> = {}) =>
    webhooks
      .filter(
        (w) =>
          matches(w.namespaceSelector as Selector, { 'kubernetes.io/metadata.name': namespace, ...namespaceLabels }) &&
          matches(w.objectSelector as Selector, podLabels),
      )
      .map((w) => w.name);

  interface Reach {
    pod: string;
    namespace: string;
    podLabels: Record<string, string>;
    namespaceLabels?: Record<string, string>;
    count: number;
  }
  it.each<Reach>([
    { pod: 'a Deployment pod', namespace: 'shop', podLabels: { app: 'cart', 'pod-template-hash': '5d8f7c' }, count: 1 },
    { pod: 'a StatefulSet pod', namespace: 'shop', podLabels: { app: 'db', 'controller-revision-hash': 'db-7c9' }, count: 1 },
    { pod: 'a DaemonSet pod', namespace: 'monitoring', podLabels: { 'controller-revision-hash': '6b4', 'pod-template-generation': '3' }, count: 1 },
    { pod: 'a bare pod', namespace: 'shop', podLabels: { app: 'debug' }, count: 0 },
    { pod: 'a Job pod', namespace: 'shop', podLabels: { 'batch.kubernetes.io/job-name': 'migrate', 'controller-uid': 'x' }, count: 0 },
    { pod: 'a kube-system pod', namespace: 'kube-system', podLabels: { 'pod-template-hash': 'abc' }, count: 0 },
    { pod: 'the helper itself', namespace: 'kerf-system', podLabels: { 'pod-template-hash': 'abc' }, count: 0 },
    { pod: 'an opted-out pod', namespace: 'shop', podLabels: { 'pod-template-hash': 'abc', 'kerf.getkerf.dev/webhook': 'disabled' }, count: 0 },
    {
      pod: 'a pod of an opted-out namespace',
      namespace: 'shop',
      podLabels: { 'pod-template-hash': 'abc' },
      namespaceLabels: { 'kerf.getkerf.dev/webhook': 'disabled' },
      count: 0,
    },
  ])('S2: $pod reaches $count webhook(s)', ({ namespace, podLabels, namespaceLabels, count }) => {
    expect(called(namespace, podLabels, namespaceLabels)).toHaveLength(count);
  });
});

// --- kubectl as a second reader ----------------------------------------------------------------------------

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

function kubectl(args: string[]): string {
  const result = spawnSync('kubectl', args, { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('kubectl', () => {
  it.skipIf(!hasKubectl)('kubectl kustomize templates renders every manifest, each once, but the cert-manager component', () => {
    const rendered = parseAllDocuments(kubectl(['kustomize', 'templates'])).map((doc) => {
      const o = doc.toJS() as { kind: string; metadata: { name: string } };
      return `${o.kind}/${o.metadata.name}`;
    });
    const certManager = join('templates', 'components', 'cert-manager');
    expect(rendered.sort()).toEqual(docs.filter((doc) => !doc.file.startsWith(certManager)).map((doc) => `${doc.kind}/${doc.name}`).sort());
  });

  // `kubectl create --dry-run=client` needs API discovery (a cluster) to map kinds; `annotate --local` reads the
  // same files through kubectl's own YAML decoder and object builder without one.
  it.skipIf(!hasKubectl).each(manifestFiles().map((path) => [relative(ROOT, path)]))('kubectl reads %s offline', (file) => {
    const names = kubectl(['annotate', '--local', '-f', file, '-o', 'name', 'kerf.getkerf.dev/check=1']).trim().split('\n');
    expect(names).toHaveLength(docs.filter((doc) => doc.file === file).length);
  });
});
