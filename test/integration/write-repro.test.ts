// The reproductions of issue #10, each a small tree under test/fixtures/repro, run through `plan`
// and `write` and judged by real `kubectl kustomize`: every root renders as before except the
// targeted containers' CPU/memory, which read the recommended values.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { planEdits } from '../../src/plan/edits.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { writeFilesAtomic } from '../../src/util/atomic-write.js';
import { copyToTemp, hasKubectl, identityOf, kustomizeBuild, type Rendered } from '../manifests/fixtures/kustomize/harness.js';

const REPRO = join(import.meta.dirname, '../fixtures/repro');
const now = new Date('2026-12-02T10:00:00Z');
let repo = '';
afterEach(() => rmSync(repo, { recursive: true, force: true }));

interface Target {
  namespace: string;
  kind: string;
  name: string;
  containers: { name: string; requests?: Record<string, string>; limits?: Record<string, string> }[];
}

function setUp(tree: string, targets: Target[], config?: string): void {
  repo = copyToTemp(join(REPRO, tree));
  mkdirSync(join(repo, 'kerf'), { recursive: true });
  mkdirSync(join(repo, '.kerf'), { recursive: true });
  if (config !== undefined) writeFileSync(join(repo, '.kerf/config.yaml'), config);
  const namespaces = [...new Set(targets.map((t) => t.namespace))];
  const docs = [
    ...namespaces.map((ns) => ({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingPolicy', metadata: { name: 'default', namespace: ns }, spec: { mode: 'auto-patch', apply: { strategy: 'rollout' } } })),
    ...targets.map((t, i) => ({
      apiVersion: 'kerf.getkerf.dev/v1alpha1',
      kind: 'RightsizingRecommendation',
      metadata: { name: `r${i}`, namespace: t.namespace },
      spec: { targetRef: { kind: t.kind, name: t.name }, containers: t.containers },
    })),
  ];
  writeFileSync(join(repo, 'kerf/recommendations.yaml'), docs.map((d) => stringify(d)).join('---\n'));
}

function render(roots: string[]): Map<string, Rendered[]> {
  return new Map(roots.map((root) => {
    const result = kustomizeBuild(join(repo, root));
    if (!result.ok) throw new Error(`kustomize ${root}: ${result.error}`);
    return [root, result.objects];
  }));
}

type Pod = { spec: { template: { spec: { containers: { name: string; resources?: unknown }[] } } } };

function resourcesOf(objects: Rendered[] | undefined, identity: string): Record<string, unknown> {
  const object = objects?.find((o) => identityOf(o) === identity) as Pod | undefined;
  return Object.fromEntries((object?.spec.template.spec.containers ?? []).map((c) => [c.name, c.resources]));
}

function withoutResources(objects: Rendered[] | undefined, identity: string): Rendered[] {
  return (objects ?? []).map((object) => {
    if (identityOf(object) !== identity) return object;
    const copy = structuredClone(object) as unknown as Pod;
    for (const container of copy.spec.template.spec.containers) delete container.resources;
    return copy as unknown as Rendered;
  });
}

async function write() {
  const { plan, index } = await runPlan({ repo, recommendations: [], now, fleetPaused: false });
  const result = planEdits(index, plan.decisions);
  await writeFilesAtomic(repo, result.edits.map((edit) => ({ path: edit.path, content: edit.after })));
  return { plan, ...result };
}

const read = (path: string): string => readFileSync(join(repo, path), 'utf8');

describe.skipIf(!hasKubectl)('issue #10 reproductions (judged by kubectl kustomize; skipped without kubectl)', () => {
  it('a base listed with a trailing slash (`../../base/`) is a base, not a root: the overlay gets the change, eu-web stays as it was', async () => {
    setUp('trailing-slash', [{ namespace: 'shop', kind: 'Deployment', name: 'web', containers: [{ name: 'app', requests: { cpu: '50m' } }] }]);
    const roots = ['overlays/eu', 'overlays/us'];
    const before = render(roots);
    const base = read('base/deployment.yaml');
    const { errors, edits } = await write();
    expect(errors).toEqual([]);
    expect(edits.map((e) => e.path).sort()).toEqual(['overlays/us/kerf-resources.yaml', 'overlays/us/kustomization.yaml']);
    expect(read('base/deployment.yaml')).toBe(base);
    const after = render(roots);
    expect(after.get('overlays/eu')).toEqual(before.get('overlays/eu'));
    expect(resourcesOf(after.get('overlays/us'), 'Deployment shop/web')).toEqual({ app: { requests: { cpu: '50m' } } });
    expect(withoutResources(after.get('overlays/us'), 'Deployment shop/web')).toEqual(withoutResources(before.get('overlays/us'), 'Deployment shop/web'));
  });

  it('a sidecar that a patch adds (patches: and patchesStrategicMerge:) is edited with the containers the base defines', async () => {
    setUp('sidecar-patch', [
      { namespace: 'demo-system', kind: 'Deployment', name: 'demo-controller-manager', containers: [{ name: 'manager', requests: { cpu: '20m' } }, { name: 'kube-rbac-proxy', requests: { cpu: '5m', memory: '32Mi' } }] },
      { namespace: 'legacy-system', kind: 'Deployment', name: 'controller-manager', containers: [{ name: 'kube-rbac-proxy', requests: { cpu: '15m' } }] },
    ]);
    const roots = ['config/default', 'config/legacy'];
    const before = render(roots);
    const { errors, plan } = await write();
    expect(errors).toEqual([]);
    expect(plan.decisions.map((d) => d.action)).toEqual(['pull-request', 'pull-request']);
    const after = render(roots);
    expect(resourcesOf(after.get('config/default'), 'Deployment demo-system/demo-controller-manager')).toEqual({
      'kube-rbac-proxy': { requests: { cpu: '5m', memory: '32Mi' } },
      manager: { requests: { cpu: '20m', memory: '64Mi' } },
    });
    expect(resourcesOf(after.get('config/legacy'), 'Deployment legacy-system/controller-manager')).toEqual({
      'kube-rbac-proxy': { requests: { cpu: '15m' } },
      manager: { requests: { cpu: '10m', memory: '64Mi' } },
    });
    // The patch that adds the sidecar to one root only is where its value is written.
    expect(read('config/legacy/auth_proxy.yaml')).toMatch(/cpu: 15m/);
    for (const [root, identity] of [['config/default', 'Deployment demo-system/demo-controller-manager'], ['config/legacy', 'Deployment legacy-system/controller-manager']] as const) {
      expect(withoutResources(after.get(root), identity)).toEqual(withoutResources(before.get(root), identity));
    }
  });

  it('a JSON 6902 patch that removes metadata.namespace: the workload takes the overlay namespace and is found', async () => {
    setUp('json6902-namespace', [{ namespace: 'argocd', kind: 'StatefulSet', name: 'redis-ha-server', containers: [{ name: 'redis', requests: { cpu: '150m', memory: '256Mi' } }] }]);
    const { errors, edits } = await write();
    expect(errors).toEqual([]);
    expect(edits.map((e) => e.path)).toEqual(['upstream/redis.yaml']);
    expect(resourcesOf(render(['install']).get('install'), 'StatefulSet argocd/redis-ha-server')).toEqual({ redis: { requests: { cpu: '150m', memory: '256Mi' } } });
  });

  it('`$patch: delete` in a sibling overlay: the workload has one root, whatever the folder order, and plan and write agree', async () => {
    for (const [from, to] of [['a-without-worker', 'b-with-worker'], ['z-without-worker', 'a-with-worker']] as const) {
      setUp('patch-delete', [{ namespace: 'jobs', kind: 'Deployment', name: 'worker', containers: [{ name: 'worker', requests: { cpu: '300m' } }] }]);
      const { cpSync } = await import('node:fs');
      if (from !== 'a-without-worker') {
        cpSync(join(repo, 'a-without-worker'), join(repo, from), { recursive: true });
        cpSync(join(repo, 'b-with-worker'), join(repo, to), { recursive: true });
        rmSync(join(repo, 'a-without-worker'), { recursive: true });
        rmSync(join(repo, 'b-with-worker'), { recursive: true });
      }
      const before = render([from, to]);
      const { errors, plan, applied } = await write();
      expect(errors).toEqual([]);
      expect(plan.decisions.map((d) => d.action)).toEqual(['pull-request']);
      expect(applied).toHaveLength(1);
      const after = render([from, to]);
      expect(after.get(from)).toEqual(before.get(from));
      expect(resourcesOf(after.get(to), 'Deployment jobs/worker')).toEqual({ worker: { requests: { cpu: '300m' } } });
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('a workload two roots render is refused naming both roots; `roots:` or `paths:` selects one and the other stays alone', async () => {
    const target: Target = { namespace: 'prod', kind: 'Deployment', name: 'api', containers: [{ name: 'api', requests: { cpu: '80m' } }] };
    setUp('two-roots', [target]);
    const refused = await write();
    expect(refused.edits).toEqual([]);
    expect(refused.plan.errors).toContainEqual(expect.objectContaining({ message: expect.stringContaining('Deployment prod/api is rendered by prod-a and prod-b') }));
    for (const config of ['roots: [prod-b/]\n', 'paths: [prod-b, kerf]\n', 'paths: [./prod-b/, base, kerf]\n']) {
      rmSync(repo, { recursive: true, force: true });
      setUp('two-roots', [target], config);
      const before = render(['prod-a', 'prod-b']);
      const { errors, edits } = await write();
      expect(errors, config).toEqual([]);
      expect(edits.map((e) => e.path).sort(), config).toEqual(['prod-b/kerf-resources.yaml', 'prod-b/kustomization.yaml']);
      const after = render(['prod-a', 'prod-b']);
      expect(after.get('prod-a')).toEqual(before.get('prod-a'));
      expect(resourcesOf(after.get('prod-b'), 'Deployment prod/api')).toEqual({ api: { requests: { cpu: '80m', memory: '128Mi' } } });
    }
  });

  it('one container whose edit is refused is refused by name; the recommendation\'s other container is written, and plan says so first', async () => {
    setUp('two-containers', [{ namespace: 'shop', kind: 'Deployment', name: 'api', containers: [{ name: 'app', requests: { cpu: '60m' } }, { name: 'proxy', requests: { cpu: '50m' } }] }]);
    const { plan, errors, edits } = await write();
    expect(errors).toEqual([]);
    expect(plan.errors).toEqual([expect.objectContaining({ code: 'RequestAboveLimit', message: expect.stringContaining('container "proxy"') })]);
    expect(plan.decisions).toEqual([expect.objectContaining({ action: 'pull-request', changes: [expect.objectContaining({ container: 'app', to: '60m' })] })]);
    expect(edits.map((e) => e.path)).toEqual(['app.yaml']);
    expect(read('app.yaml')).toMatch(/requests: \{cpu: 60m\}[\s\S]*requests: \{cpu: 10m\}\n\s+limits: \{cpu: 20m\}/);
  });

  it('the same workload in several plain files is an error naming them all, unless `paths` selects one', async () => {
    const target: Target = { namespace: 'default', kind: 'Deployment', name: 'productpage-v1', containers: [{ name: 'productpage', requests: { cpu: '50m' } }] };
    setUp('plain-duplicates', [target]);
    const refused = await write();
    expect(refused.edits).toEqual([]);
    expect(refused.plan.errors).toContainEqual(expect.objectContaining({
      message: expect.stringContaining('Deployment default/productpage-v1 is defined in platform/bookinfo-dualstack.yaml, platform/bookinfo-psa.yaml and platform/bookinfo.yaml'),
    }));
    rmSync(repo, { recursive: true, force: true });
    setUp('plain-duplicates', [target], 'paths: [platform/bookinfo.yaml, kerf]\n');
    const { errors, edits } = await write();
    expect(errors).toEqual([]);
    expect(edits.map((e) => e.path)).toEqual(['platform/bookinfo.yaml']);
  });
});
