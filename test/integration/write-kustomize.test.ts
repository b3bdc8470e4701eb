// `write` on a kustomize tree, judged by real kustomize: render every root before and after; only
// the target's CPU/memory fields may differ, in the target's root only.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planEdits } from '../../src/plan/edits.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { writeFilesAtomic } from '../../src/util/atomic-write.js';
import { copyToTemp, FIXTURES, hasKubectl, identityOf, kustomizeBuild, type Rendered } from '../manifests/fixtures/kustomize/harness.js';

const now = new Date('2026-12-02T10:00:00Z');
const roots = ['overlays/production', 'overlays/staging'];
let repo = '';
afterEach(() => rmSync(repo, { recursive: true, force: true }));

function setUp(recommendation: string): string {
  repo = copyToTemp(join(FIXTURES, 'shop'));
  mkdirSync(join(repo, 'kerf'), { recursive: true });
  const policy = (namespace: string) => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: ${namespace}}
spec: {mode: auto-patch, apply: {strategy: rollout}}
`;
  writeFileSync(join(repo, 'kerf/policies.yaml'), `${policy('production')}---\n${policy('staging')}`);
  writeFileSync(join(repo, 'kerf/recommendation.yaml'), `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
${recommendation}`);
  return repo;
}

function render(): Map<string, Rendered[]> {
  return new Map(roots.map((root) => {
    const result = kustomizeBuild(join(repo, root));
    if (!result.ok) throw new Error(`kustomize ${root}: ${result.error}`);
    return [root, result.objects];
  }));
}

/** Blanks the CPU/memory fields of one object so the rest can be compared whole. */
function withoutResources(objects: Rendered[], identity: string): Rendered[] {
  return objects.map((object) => {
    if (identityOf(object) !== identity) return object;
    const copy = structuredClone(object) as { spec: { template: { spec: { containers: { resources?: unknown }[] } } } };
    for (const container of copy.spec.template.spec.containers) delete container.resources;
    return copy as unknown as Rendered;
  });
}

function containerResources(objects: Rendered[], identity: string): unknown {
  const object = objects.find((o) => identityOf(o) === identity) as { spec: { template: { spec: { containers: { name: string; resources?: unknown }[] } } } };
  return Object.fromEntries(object.spec.template.spec.containers.map((c) => [c.name, c.resources]));
}

async function write() {
  const { plan, index } = await runPlan({ repo, recommendations: [], now, fleetPaused: false });
  const result = planEdits(index, plan.decisions);
  await writeFilesAtomic(repo, result.edits.map((edit) => ({ path: edit.path, content: edit.after })));
  return { plan, ...result };
}

describe.skipIf(!hasKubectl)('write on kustomize trees (judged by kubectl kustomize; skipped without kubectl)', () => {
  it('G1: a base shared by two overlays is left alone; the change goes into the target overlay as a patch', async () => {
    setUp(`metadata: {name: prod-web, namespace: production}
spec:
  targetRef: {kind: Deployment, name: prod-web}
  containers:
    - {name: app, requests: {cpu: 50m, memory: 96Mi}, limits: {memory: 384Mi}}
`);
    const before = render();
    const { plan, edits, errors } = await write();
    expect(errors).toEqual([]);
    expect(plan.decisions).toEqual([expect.objectContaining({
      action: 'pull-request',
      changes: [
        { container: 'app', field: 'requests.cpu', from: '100m', to: '50m', file: 'overlays/production/kerf-resources.yaml' },
        { container: 'app', field: 'requests.memory', from: '128Mi', to: '96Mi', file: 'overlays/production/kerf-resources.yaml' },
        // The overlay's own patch sets this limit: it is edited where it is.
        { container: 'app', field: 'limits.memory', from: '512Mi', to: '384Mi', file: 'overlays/production/web-memory.yaml' },
      ],
    })]);
    expect(edits.map((e) => e.path).sort()).toEqual(['overlays/production/kerf-resources.yaml', 'overlays/production/kustomization.yaml', 'overlays/production/web-memory.yaml']);
    expect(readFileSync(join(repo, 'base/web.yaml'), 'utf8')).toBe(readFileSync(join(FIXTURES, 'shop/base/web.yaml'), 'utf8'));

    const after = render();
    const target = 'Deployment production/prod-web';
    expect(after.get('overlays/staging')).toEqual(before.get('overlays/staging'));
    expect(withoutResources(after.get('overlays/production') ?? [], target)).toEqual(withoutResources(before.get('overlays/production') ?? [], target));
    expect(containerResources(after.get('overlays/production') ?? [], target)).toEqual({
      app: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '384Mi' } },
      proxy: { requests: { cpu: '10m' } },
    });
  });

  it('the namespace and name come from the overlay, and a second write changes nothing', async () => {
    setUp(`metadata: {name: web, namespace: staging}
spec:
  targetRef: {kind: Deployment, name: web}
  containers:
    - {name: proxy, requests: {cpu: 5m}}
`);
    const first = await write();
    expect(first.errors).toEqual([]);
    expect(first.edits.map((e) => e.path).sort()).toEqual(['overlays/staging/kerf-resources.yaml', 'overlays/staging/kustomization.yaml']);
    expect(containerResources(render().get('overlays/staging') ?? [], 'Deployment staging/web')).toMatchObject({ proxy: { requests: { cpu: '5m' } } });
    const second = await write();
    expect(second.plan.decisions[0]).toMatchObject({ phase: 'UpToDate' });
    expect(second.edits).toEqual([]);
  });

  it('what a person added to kerf-resources.yaml (env, annotation, comments) survives kerf\'s next change, byte for byte', async () => {
    const recommendation = (cpu: string) => `metadata: {name: web, namespace: staging}
spec:
  targetRef: {kind: Deployment, name: web}
  containers:
    - {name: proxy, requests: {cpu: ${cpu}}}
`;
    setUp(recommendation('5m'));
    expect((await write()).errors).toEqual([]);
    const patch = join(repo, 'overlays/staging/kerf-resources.yaml');
    const theirs = readFileSync(patch, 'utf8')
      .replace('  name: web\n', '  name: web\n  annotations:\n    owner: shop-team # ask before changing\n')
      .replace('- name: proxy\n', '- name: proxy\n          # debug logging until INC-7 is closed\n          env:\n            - {name: LOG_LEVEL, value: debug}\n');
    writeFileSync(patch, theirs);
    writeFileSync(join(repo, 'kerf/recommendation.yaml'), `apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\n${recommendation('7m')}`);
    const second = await write();
    expect(second.errors).toEqual([]);
    expect(readFileSync(patch, 'utf8')).toBe(theirs.replace('cpu: 5m', 'cpu: 7m'));
    const rendered = render().get('overlays/staging')?.find((o) => identityOf(o) === 'Deployment staging/web') as { metadata: { annotations?: Record<string, string> }; spec: { template: { spec: { containers: { name: string; env?: unknown }[] } } } };
    expect(rendered.metadata.annotations).toMatchObject({ owner: 'shop-team' });
    expect(rendered.spec.template.spec.containers.find((c) => c.name === 'proxy')?.env).toEqual([{ name: 'LOG_LEVEL', value: 'debug' }]);
  });

  it('N4: removing a limit that an overlay patch sets is refused, not done halfway', async () => {
    setUp(`metadata: {name: prod-web, namespace: production}
spec:
  targetRef: {kind: Deployment, name: prod-web}
  containers:
    - {name: app, limits: {memory: null}}
`);
    const { plan, edits, errors } = await write();
    expect(edits).toEqual([]);
    // `plan` already refuses it, by container, so `write` has nothing left to refuse.
    expect(plan.decisions).toEqual([]);
    expect(errors).toEqual([]);
    expect(plan.errors).toEqual([expect.objectContaining({ code: 'UnplaceableContainer', object: 'production/Deployment/prod-web container app', message: expect.stringMatching(/comes from the kustomize patch overlays\/production\/web-memory\.yaml/) })]);
  });
});
