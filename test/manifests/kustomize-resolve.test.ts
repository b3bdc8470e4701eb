import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ObjectRef, ResourceField } from '../../src/model/types.js';
import { editResources } from '../../src/manifests/edit-resources.js';
import { buildKustomizeGraph, type KustomizeGraph } from '../../src/manifests/kustomize-graph.js';
import { addPatchToKustomization, renderOverlayPatch } from '../../src/manifests/kustomize-overlay-patch.js';
import { resolveResourceSource, type EditDecision, type Resolution, type ResourceSource } from '../../src/manifests/kustomize-resolve.js';
import { copyToTemp, FIXTURES, hasKubectl, identityOf, kustomizeBuild, loadTree, parseYaml, type Rendered } from './fixtures/kustomize/harness.js';

type Tree = 'shop' | 'legacy' | 'chain';

interface Row {
  name: string;
  tree: Tree;
  target: ObjectRef;
  container: string;
  field: ResourceField;
  to: string | null;
  root: string;
  source: ResourceSource;
  decision: Pick<EditDecision, 'kind'> & Record<string, unknown>;
}

const graphs = new Map<Tree, KustomizeGraph>((['shop', 'legacy', 'chain'] as const).map((tree) => [tree, buildKustomizeGraph(loadTree(join(FIXTURES, tree)))]));

function graphOf(tree: Tree): KustomizeGraph {
  const graph = graphs.get(tree);
  if (graph === undefined) throw new Error(`no fixture tree ${tree}`);
  return graph;
}

const ROWS: Row[] = [
  {
    name: 'a value from a base shared by two overlays goes to the overlay patch of the target root',
    tree: 'shop',
    target: { namespace: 'staging', kind: 'Deployment', name: 'web' },
    container: 'app',
    field: 'requests.cpu',
    to: '300m',
    root: 'overlays/staging',
    source: { kind: 'document', file: 'base/web.yaml', document: 0, role: 'resource', value: '100m' },
    decision: { kind: 'overlay-patch', dir: 'overlays/staging', file: 'kerf-resources.yaml', target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
  },
  {
    name: 'a limit removal through the overlay patch (a null map value deletes in a strategic merge)',
    tree: 'shop',
    target: { namespace: 'staging', kind: 'Deployment', name: 'web' },
    container: 'app',
    field: 'limits.memory',
    to: null,
    root: 'overlays/staging',
    source: { kind: 'document', file: 'base/web.yaml', document: 0, role: 'resource', value: '256Mi' },
    decision: { kind: 'overlay-patch', dir: 'overlays/staging' },
  },
  {
    name: 'a field set nowhere, in a shared base: added by the overlay patch',
    tree: 'shop',
    target: { namespace: 'staging', kind: 'Deployment', name: 'web' },
    container: 'proxy',
    field: 'limits.memory',
    to: '64Mi',
    root: 'overlays/staging',
    source: { kind: 'none' },
    decision: { kind: 'overlay-patch', dir: 'overlays/staging' },
  },
  {
    name: "a component's inline patch wins over the base; the overlay patch names the object as the root's patches see it",
    tree: 'shop',
    target: { namespace: 'production', kind: 'StatefulSet', name: 'prod-db' },
    container: 'postgres',
    field: 'requests.cpu',
    to: '750m',
    root: 'overlays/production',
    source: { kind: 'inline-patch', kustomization: 'components/db-tuning/kustomization.yaml', field: 'patches', index: 0, document: 0, value: '500m' },
    decision: { kind: 'overlay-patch', dir: 'overlays/production', target: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' } },
  },
  {
    name: "an overlay's own patch that sets memory is edited in place",
    tree: 'shop',
    target: { namespace: 'production', kind: 'Deployment', name: 'prod-web' },
    container: 'app',
    field: 'limits.memory',
    to: '768Mi',
    root: 'overlays/production',
    source: { kind: 'document', file: 'overlays/production/web-memory.yaml', document: 0, role: 'patch', value: '512Mi' },
    decision: { kind: 'edit-file', file: 'overlays/production/web-memory.yaml', document: 0, documentKind: 'Deployment', documentName: 'web' },
  },
  {
    name: 'a legacy patchesStrategicMerge file that feeds one root is edited in place',
    tree: 'legacy',
    target: { namespace: 'jobs', kind: 'Deployment', name: 'worker' },
    container: 'main',
    field: 'requests.cpu',
    to: '80m',
    root: 'overlay',
    source: { kind: 'document', file: 'overlay/worker-resources.yaml', document: 0, role: 'patch', value: '75m' },
    decision: { kind: 'edit-file', file: 'overlay/worker-resources.yaml' },
  },
  {
    name: 'a legacy inline patch string: kerf adds its patch to the legacy list, after it',
    tree: 'legacy',
    target: { namespace: 'jobs', kind: 'Deployment', name: 'worker' },
    container: 'main',
    field: 'limits.cpu',
    to: '300m',
    root: 'overlay',
    source: { kind: 'inline-patch', kustomization: 'overlay/kustomization.yml', field: 'patchesStrategicMerge', index: 1, document: 0, value: '200m' },
    decision: { kind: 'overlay-patch', dir: 'overlay', kustomization: 'overlay/kustomization.yml', target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'worker', namespace: 'jobs-base' } },
  },
  {
    name: 'a base file that only one root renders gets the missing field inserted in place',
    tree: 'legacy',
    target: { namespace: 'jobs', kind: 'Deployment', name: 'worker' },
    container: 'main',
    field: 'limits.memory',
    to: '128Mi',
    root: 'overlay',
    source: { kind: 'none' },
    decision: { kind: 'edit-file', file: 'app/worker.yaml', document: 0 },
  },
  {
    name: 'a patch in a middle kustomization shared by two roots: overlay patch in the east root',
    tree: 'chain',
    target: { namespace: 'east', kind: 'Deployment', name: 'api-v2' },
    container: 'server',
    field: 'requests.cpu',
    to: '250m',
    root: 'top-east',
    source: { kind: 'document', file: 'mid/api-cpu.yaml', document: 0, role: 'patch', value: '200m' },
    decision: { kind: 'overlay-patch', dir: 'top-east', target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api-v2', namespace: 'mid' } },
  },
  {
    name: 'the same in the west root, which keeps the middle namespace',
    tree: 'chain',
    target: { namespace: 'mid', kind: 'Deployment', name: 'api-v2' },
    container: 'server',
    field: 'limits.cpu',
    to: '1',
    root: 'top-west',
    source: { kind: 'none' },
    decision: { kind: 'overlay-patch', dir: 'top-west' },
  },
];

function resolved(row: Row): Extract<Resolution, { status: 'resolved' }> {
  const resolution = resolveResourceSource(graphOf(row.tree), row.target, row.container, row.field);
  if (resolution.status !== 'resolved') throw new Error(`${row.name}: ${resolution.reason}`);
  return resolution;
}

describe('resolveResourceSource', () => {
  it.each(ROWS)('$name', (row) => {
    const resolution = resolved(row);
    expect(resolution.root).toBe(row.root);
    expect(resolution.source).toEqual(row.source);
    expect(resolution.decision).toMatchObject(row.decision);
  });

  it("a JSON6902 patch in the root's own patchesJson6902 cannot be overridden: unsupported", () => {
    const resolution = resolveResourceSource(graphOf('legacy'), { namespace: 'jobs', kind: 'Deployment', name: 'worker' }, 'main', 'requests.memory');
    expect(resolution).toMatchObject({
      status: 'resolved',
      source: { kind: 'json6902', file: 'overlay/worker-memory.yaml', field: 'patchesJson6902', index: 0, operation: 0, value: '96Mi' },
      decision: { kind: 'unsupported' },
    });
  });

  it('a JSON6902 patch in an inner kustomization is overridden by the overlay patch', () => {
    const files = new Map(
      Object.entries({
        'base/kustomization.yaml': 'resources:\n- d.yaml\npatches:\n- target: {kind: Deployment, name: d}\n  patch: |\n    - op: add\n      path: /spec/template/spec/containers/1/resources\n      value: {requests: {cpu: 5m}}\n',
        'base/d.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: a}, {name: b}]}}}\n',
        'o1/kustomization.yaml': 'namespace: one\nresources:\n- ../base\n',
        'o2/kustomization.yaml': 'namespace: two\nresources:\n- ../base\n',
      }).map(([path, text]) => [path, parseYaml(text)]),
    );
    const graph = buildKustomizeGraph(files);
    const target = { namespace: 'one', kind: 'Deployment', name: 'd' };
    expect(resolveResourceSource(graph, target, 'b', 'requests.cpu')).toMatchObject({
      source: { kind: 'json6902', kustomization: 'base/kustomization.yaml', operation: 0, value: '5m' },
      decision: { kind: 'overlay-patch', dir: 'o1' },
    });
    // The op addresses container 1; container 0 is untouched by it.
    expect(resolveResourceSource(graph, target, 'a', 'requests.cpu')).toMatchObject({ source: { kind: 'none' } });
  });

  it.each([
    { name: 'not rendered by any root', target: { namespace: 'default', kind: 'Deployment', name: 'web' }, status: 'not-rendered' },
    { name: 'rendered by several roots (same identity twice)', target: { namespace: 'default', kind: 'Deployment', name: 'd' }, status: 'ambiguous' },
  ])('$name', ({ target, status }) => {
    const files = new Map(
      Object.entries({
        'd.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: a}]}}}\n',
        'c1/kustomization.yaml': 'resources:\n- ../d.yaml\n',
        'c2/kustomization.yaml': 'resources:\n- ../d.yaml\n',
      }).map(([path, text]) => [path, parseYaml(text)]),
    );
    expect(resolveResourceSource(buildKustomizeGraph(files), target, 'a', 'requests.cpu').status).toBe(status);
  });

  it('an unknown container is unsupported rather than added by a patch', () => {
    const resolution = resolveResourceSource(graphOf('shop'), { namespace: 'staging', kind: 'Deployment', name: 'web' }, 'nope', 'requests.cpu');
    expect(resolution).toMatchObject({ status: 'resolved', decision: { kind: 'unsupported' } });
  });
});

/** Apply a resolution in `dir` (a copy of the tree) the way the reconciler will. */
function apply(dir: string, row: Row, decision: EditDecision): void {
  const edit = { container: row.container, field: row.field, to: row.to };
  if (decision.kind === 'edit-file') {
    const path = join(dir, decision.file);
    const target = { document: decision.document, kind: decision.documentKind, name: decision.documentName };
    writeFileSync(path, editResources(readFileSync(path, 'utf8'), target, [edit], decision.file));
    return;
  }
  if (decision.kind !== 'overlay-patch') throw new Error(`cannot apply ${decision.kind}: ${decision.reason}`);
  const patchPath = join(dir, decision.dir, decision.file);
  const existing = existsSync(patchPath) ? readFileSync(patchPath, 'utf8') : undefined;
  const [group, resource] = row.field.split('.') as ['requests' | 'limits', 'cpu' | 'memory'];
  const containers = [{ name: row.container, [group]: { [resource]: row.to } }];
  writeFileSync(patchPath, renderOverlayPatch(existing, decision.target, containers, { order: decision.order, file: decision.file }));
  const kustomization = join(dir, decision.kustomization);
  writeFileSync(kustomization, addPatchToKustomization(readFileSync(kustomization, 'utf8'), decision.file, decision.kustomization));
}

function renderAll(dir: string, roots: readonly string[]): Map<string, Map<string, Rendered>> {
  return new Map(
    roots.map((root) => {
      const result = kustomizeBuild(join(dir, root));
      if (!result.ok) throw new Error(`${root}: ${result.error}`);
      return [root, new Map(result.objects.map((o) => [identityOf(o), o]))];
    }),
  );
}

/** The target as it rendered before, with only the one field changed. */
function expectedAfter(before: Rendered, row: Row): Rendered {
  const copy = structuredClone(before) as { spec: { template: { spec: { containers: { name: string; resources?: Record<string, Record<string, string>> }[] } } } };
  const container = copy.spec.template.spec.containers.find((c) => c.name === row.container);
  if (container === undefined) throw new Error(`no container ${row.container}`);
  const [group = '', resource = ''] = row.field.split('.');
  const resources = (container.resources ??= {});
  const values = (resources[group] ??= {});
  if (row.to === null) delete values[resource];
  else values[resource] = row.to;
  return withoutEmptyGroups(copy as unknown as Rendered);
}

/**
 * A strategic merge that deletes the last key of `limits` leaves `limits: {}`; the API server treats an
 * empty map as absent, so both sides are compared without empty requests/limits maps.
 */
function withoutEmptyGroups(object: Rendered): Rendered {
  const copy = structuredClone(object) as { spec?: { template?: { spec?: { containers?: { resources?: Record<string, object> }[] } } } };
  for (const container of copy.spec?.template?.spec?.containers ?? []) {
    for (const [group, values] of Object.entries(container.resources ?? {})) {
      if (Object.keys(values).length === 0) delete container.resources?.[group];
    }
  }
  return copy as Rendered;
}

describe('applying a resolution changes only the target field, in the target root only', () => {
  const before = new Map<Tree, Map<string, Map<string, Rendered>>>();
  function renderedBefore(tree: Tree): Map<string, Map<string, Rendered>> {
    const known = before.get(tree);
    if (known !== undefined) return known;
    const rendered = renderAll(join(FIXTURES, tree), graphOf(tree).roots);
    before.set(tree, rendered);
    return rendered;
  }

  it.skipIf(!hasKubectl).each(ROWS)('(kubectl kustomize is the judge; skipped without kubectl) $name', (row) => {
    const { decision } = resolved(row);
    const dir = copyToTemp(join(FIXTURES, row.tree));
    try {
      apply(dir, row, decision);
      const after = renderAll(dir, graphOf(row.tree).roots);
      const targetKey = `${row.target.kind} ${row.target.namespace}/${row.target.name}`;
      for (const [root, objects] of renderedBefore(row.tree)) {
        const expected = new Map(objects);
        if (root === row.root) {
          const target = objects.get(targetKey);
          if (target === undefined) throw new Error(`${root} did not render ${targetKey}`);
          expected.set(targetKey, expectedAfter(target, row));
        }
        const normalized = (objects: Map<string, Rendered> | undefined) => new Map([...(objects ?? [])].map(([key, o]) => [key, withoutEmptyGroups(o)]));
        expect(normalized(after.get(root)), root).toEqual(normalized(expected));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
