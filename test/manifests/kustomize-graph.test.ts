import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildKustomizeGraph, type FileRendering } from '../../src/manifests/kustomize-graph.js';
import { FIXTURES, hasKubectl, identitiesToCompare, kustomizeBuild, loadTree, parseYaml } from './fixtures/kustomize/harness.js';

const TREES = ['shop', 'legacy', 'chain'] as const;
const graphs = Object.fromEntries(TREES.map((tree) => [tree, buildKustomizeGraph(loadTree(join(FIXTURES, tree)))]));

function graphOf(tree: (typeof TREES)[number]) {
  const graph = graphs[tree];
  if (graph === undefined) throw new Error(`no fixture tree ${tree}`);
  return graph;
}

function inline(files: Record<string, string>) {
  return buildKustomizeGraph(new Map(Object.entries(files).map(([path, text]) => [path, parseYaml(text)])));
}

describe('buildKustomizeGraph', () => {
  it.each([
    { tree: 'shop', roots: ['overlays/production', 'overlays/staging'] },
    { tree: 'legacy', roots: ['overlay'] },
    { tree: 'chain', roots: ['top-east', 'top-west'] },
  ] as const)('roots of $tree are the kustomizations nobody includes (components never are)', ({ tree, roots }) => {
    expect([...graphOf(tree).roots].sort()).toEqual(roots);
  });

  it.each([
    { tree: 'shop', dir: 'overlays/production', includes: ['base', 'components/db-tuning'] },
    { tree: 'legacy', dir: 'overlay', includes: ['app'] },
    { tree: 'chain', dir: 'mid', includes: ['app'] },
  ] as const)('$tree: $dir includes its resources, legacy bases and components', ({ tree, dir, includes }) => {
    expect(graphOf(tree).includes.get(dir)).toEqual(includes);
  });

  it.each<{ name: string; tree: (typeof TREES)[number]; file: string; renderings: FileRendering[]; shared: boolean }>([
    {
      name: 'a base shared by two overlays gets each overlay namespace and prefix',
      tree: 'shop',
      file: 'base/web.yaml',
      renderings: [
        { root: 'overlays/production', namespace: 'production', namePrefix: 'prod-', nameSuffix: '' },
        { root: 'overlays/staging', namespace: 'staging', namePrefix: '', nameSuffix: '' },
      ],
      shared: true,
    },
    {
      name: "an overlay's patch feeds only that overlay",
      tree: 'shop',
      file: 'overlays/production/web-memory.yaml',
      renderings: [{ root: 'overlays/production', namespace: 'production', namePrefix: 'prod-', nameSuffix: '' }],
      shared: false,
    },
    {
      name: 'the outermost namespace wins over inner ones; a root without namespace keeps the inner one',
      tree: 'chain',
      file: 'app/api.yaml',
      renderings: [
        { root: 'top-east', namespace: 'east', namePrefix: '', nameSuffix: '-v2' },
        { root: 'top-west', namespace: 'mid', namePrefix: '', nameSuffix: '-v2' },
      ],
      shared: true,
    },
    {
      name: "a patch in a shared middle kustomization feeds every root above it; its own kustomization's suffix applies after it",
      tree: 'chain',
      file: 'mid/api-cpu.yaml',
      renderings: [
        { root: 'top-east', namespace: 'east', namePrefix: '', nameSuffix: '-v2' },
        { root: 'top-west', namespace: 'mid', namePrefix: '', nameSuffix: '-v2' },
      ],
      shared: true,
    },
    {
      name: 'legacy bases and a Kustomization file without apiVersion/kind',
      tree: 'legacy',
      file: 'app/worker.yaml',
      renderings: [{ root: 'overlay', namespace: 'jobs', namePrefix: '', nameSuffix: '' }],
      shared: false,
    },
  ])('renderingsOf: $name', ({ tree, file, renderings, shared }) => {
    const graph = graphOf(tree);
    expect(graph.renderingsOf(file).sort((a, b) => a.root.localeCompare(b.root))).toEqual(renderings);
    expect(graph.isShared(file)).toBe(shared);
  });

  it('a file no kustomization uses has no renderings', () => {
    expect(graphOf('shop').renderingsOf('nowhere.yaml')).toEqual([]);
  });

  it.each([
    { file: 'overlays/production/web-memory.yaml', patch: true },
    { file: 'base/web.yaml', patch: false },
  ])('isPatch($file) is $patch', ({ file, patch }) => {
    expect(graphOf('shop').isPatch(file)).toBe(patch);
  });

  it.each<{ name: string; files: Record<string, string>; codes: string[] }>([
    {
      name: 'remote resource',
      files: { 'kustomization.yaml': 'resources:\n- github.com/org/repo//deploy?ref=v1\n- https://example.com/x.yaml\n' },
      codes: ['remote-resource', 'remote-resource'],
    },
    { name: 'missing directory', files: { 'kustomization.yaml': 'resources:\n- ../gone\n- gone\n' }, codes: ['outside-repository', 'missing-file'] },
    { name: 'file the scan screened out or that is missing', files: { 'kustomization.yaml': 'resources:\n- service.yaml\n' }, codes: ['unscanned-file'] },
    { name: 'helm chart', files: { 'kustomization.yaml': 'helmCharts:\n- name: redis\n' }, codes: ['helm-chart'] },
    {
      name: 'json patch file that was not scanned',
      files: { 'kustomization.yaml': 'patchesJson6902:\n- target: {kind: Deployment, name: a}\n  path: p.json\n' },
      codes: ['unscanned-patch'],
    },
    {
      name: 'unused component',
      files: { 'kustomization.yaml': 'resources: []\n', 'c/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n' },
      codes: ['unused-component'],
    },
    {
      name: 'Flux Kustomization CR named like a kustomization file',
      files: { 'kustomization.yaml': 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps}\n' },
      codes: ['not-a-kustomization'],
    },
    {
      name: 'cycle',
      files: { 'a/kustomization.yaml': 'resources:\n- ../b\n', 'b/kustomization.yaml': 'resources:\n- ../a\n', 'kustomization.yaml': 'resources:\n- a\n' },
      codes: ['cycle'],
    },
    {
      name: 'renaming transformer',
      files: { 'kustomization.yaml': 'transformers:\n- ns.yaml\n', 'ns.yaml': 'apiVersion: builtin\nkind: NamespaceTransformer\nmetadata: {name: x, namespace: y}\n' },
      codes: ['unsupported-transformer'],
    },
    {
      name: 'patch without a matching object',
      files: { 'kustomization.yaml': 'patches:\n- path: p.yaml\n', 'p.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ghost}\n' },
      codes: ['patch-matches-nothing'],
    },
  ])('unresolvable input is a warning, not a failure: $name', ({ files, codes }) => {
    expect(inline(files).warnings.map((w) => w.code)).toEqual(codes);
  });

  it('names the kinds kustomize leaves unprefixed and renames a Namespace object to the namespace', () => {
    const graph = inline({
      'kustomization.yaml': 'namespace: zz\nnamePrefix: p-\nresources:\n- r.yaml\n',
      'r.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: other}\n',
    });
    expect(graph.renderings.get('.')?.map((o) => `${o.id.kind} ${o.id.namespace ?? '-'}/${o.id.name}`)).toEqual([
      'Namespace -/zz',
      'ClusterRole -/p-cr',
      'Deployment zz/p-d',
    ]);
  });

  it('a whole-object $patch: delete removes the object from the rendering', () => {
    const graph = inline({
      'kustomization.yaml': 'resources:\n- r.yaml\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: gone}\n    $patch: delete\n',
      'r.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gone}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: kept}\n',
    });
    expect(graph.renderings.get('.')?.map((o) => o.id.name)).toEqual(['kept']);
  });

  describe('agrees with kustomize on namespaces and names', () => {
    const roots = TREES.flatMap((tree) => graphOf(tree).roots.map((root) => ({ tree, root })));
    it.skipIf(!hasKubectl).each(roots)('(kubectl kustomize is the judge; skipped without kubectl) $tree/$root', ({ tree, root }) => {
      const rendered = kustomizeBuild(join(FIXTURES, tree, root));
      if (!rendered.ok) throw new Error(rendered.error);
      const { ours, kustomize } = identitiesToCompare(graphOf(tree).renderings.get(root) ?? [], rendered.objects);
      expect(ours).toEqual(kustomize);
    });
  });
});
