// Which of the repo's objects are this cluster's, and in which namespace: the kustomize roots and
// plain files that `roots`/`paths` select, with namespaces from Argo CD and Flux objects or the config.
import { posix } from 'node:path';
import type { ContainerSpec, KerfConfig, PlanError } from '../model/types.js';
import { containerSpecs } from '../model/workload.js';
import { podSpecOf, type KustomizeGraph, type RenderedObject } from './kustomize-graph.js';
import { kustomizationFileIn } from './kustomize-kustomization.js';
import type { RenderedSource, RenderingView } from './scan.js';
import type { ScannedFile } from './scanned-file.js';
import { isObject, type Json, nonEmptyText } from '../util/json.js';

/** Where a GitOps object (or the config) deploys a path, and whether it overrides the objects' own namespaces. */
export interface PathNamespace {
  namespace: string;
  /** Flux's `targetNamespace` replaces every namespace; Argo CD's destination only fills in missing ones. */
  force: boolean;
  /** The object or config key that says so, for messages. */
  from: string;
}


/** `./apps/prod/`, `apps/prod` and `apps//prod` are the same directory; `.` is the repo's top. */
export function normalizeDir(path: string): string {
  const normal = posix.normalize(path.trim()).replace(/(.)\/+$/, '$1');
  return normal === '' ? '.' : normal;
}

function under(path: string, dir: string): boolean {
  return dir === '.' || path === dir || path.startsWith(`${dir}/`);
}

/** `{{key}}`, `{{ .key }}` and `{{values.key}}` of a list generator element; undefined when one stays unresolved. */
function substitute(template: string, element: Json): string | undefined {
  let unresolved = false;
  const result = template.replace(/\{\{\s*\.?([\w.-]+)\s*\}\}/g, (_, key: string) => {
    let value: unknown = element;
    for (const part of key.split('.')) value = isObject(value) ? value[part] : undefined;
    if (typeof value !== 'string' && typeof value !== 'number') unresolved = true;
    return String(value);
  });
  return unresolved ? undefined : result;
}

function applicationTargets(spec: Json): { path: string; namespace: string }[] {
  const destination = isObject(spec['destination']) ? spec['destination'] : {};
  const namespace = nonEmptyText(destination['namespace']);
  if (namespace === undefined) return [];
  const sources = [spec['source'], ...(Array.isArray(spec['sources']) ? spec['sources'] : [])].filter(isObject);
  return sources.flatMap((source) => (nonEmptyText(source['path']) === undefined ? [] : [{ path: source['path'] as string, namespace }]));
}

/** Argo CD Applications, ApplicationSets with list generators and Flux Kustomizations, by the path they deploy. */
export function gitopsNamespaces(files: ReadonlyMap<string, ScannedFile>): Map<string, PathNamespace> {
  const found = new Map<string, PathNamespace>();
  const add = (path: string, entry: PathNamespace): void => {
    const dir = normalizeDir(path);
    if (!dir.startsWith('..') && !found.has(dir)) found.set(dir, entry);
  };
  for (const [file, scanned] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    for (const doc of scanned.documents) {
      if (!isObject(doc) || !isObject(doc['spec'])) continue;
      const apiVersion = String(doc['apiVersion'] ?? '');
      const name = isObject(doc['metadata']) ? String(doc['metadata']['name'] ?? '') : '';
      const from = `${file}: ${String(doc['kind'])} ${name}`;
      const spec = doc['spec'];
      if (apiVersion.startsWith('argoproj.io/') && doc['kind'] === 'Application') {
        for (const target of applicationTargets(spec)) add(target.path, { namespace: target.namespace, force: false, from });
      } else if (apiVersion.startsWith('argoproj.io/') && doc['kind'] === 'ApplicationSet') {
        const template = isObject(spec['template']) && isObject(spec['template']['spec']) ? spec['template']['spec'] : undefined;
        const generators = Array.isArray(spec['generators']) ? spec['generators'].filter(isObject) : [];
        const elements = generators.flatMap((g) => (isObject(g['list']) && Array.isArray(g['list']['elements']) ? g['list']['elements'].filter(isObject) : []));
        if (template === undefined) continue;
        for (const element of elements) {
          for (const target of applicationTargets(template)) {
            const path = substitute(target.path, element);
            const namespace = substitute(target.namespace, element);
            if (path !== undefined && namespace !== undefined) add(path, { namespace, force: false, from });
          }
        }
      } else if (apiVersion.startsWith('kustomize.toolkit.fluxcd.io/') && doc['kind'] === 'Kustomization') {
        const namespace = nonEmptyText(spec['targetNamespace']);
        if (namespace !== undefined) add(nonEmptyText(spec['path']) ?? '.', { namespace, force: true, from });
      }
    }
  }
  return found;
}

/** The namespace an object without its own gets at `dir`: the nearest enclosing path that has one. */
function namespaceAt(dir: string, namespaces: ReadonlyMap<string, PathNamespace>): PathNamespace | undefined {
  let best: { length: number; entry: PathNamespace } | undefined;
  for (const [path, entry] of namespaces) {
    if (!under(dir, path)) continue;
    const length = path === '.' ? 0 : path.length;
    if (best === undefined || length > best.length) best = { length, entry };
  }
  return best?.entry;
}

/** Containers a strategic-merge patch adds, as the first patch that names them writes them. */
function addedContainers(graph: KustomizeGraph, object: RenderedObject): ContainerSpec[] {
  const origin = graph.files.get(object.origin.file)?.documents[object.origin.document];
  const own = new Set(containerSpecs(podSpecOf(origin)).map((c) => c.name));
  const added: ContainerSpec[] = [];
  for (const names of [object.containers, object.initContainers]) {
    for (const name of names) {
      if (own.has(name)) continue;
      const init = names === object.initContainers;
      const spec = object.patches
        .flatMap((p) => (p.patch.content.type === 'strategic-merge' ? [p.patch.content.documents[p.document]] : []))
        .flatMap((doc) => containerSpecs(podSpecOf(doc)))
        .find((c) => c.name === name);
      // A plain init container (no restartPolicy Always) finishes before the pod runs; kerf does not size it.
      if (init && spec === undefined) continue;
      added.push(spec ?? { name, init, image: '', envNames: [], resizePolicy: [], requests: {}, limits: {} });
    }
  }
  return added;
}

/** The first construct kerf does not model in the kustomizations a root renders, as its warning says. */
function unmodelledIn(graph: KustomizeGraph, root: string): string | undefined {
  const seen = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    if (seen.has(dir)) continue;
    seen.add(dir);
    pending.push(...(graph.includes.get(dir) ?? []));
  }
  const files = new Set([...seen].flatMap((dir) => graph.kustomizations.get(dir)?.file ?? []));
  return graph.warnings.find((w) => w.code === 'unsupported-transformer' && files.has(w.file))?.message;
}

function nearest(wanted: string, candidates: readonly string[]): string[] {
  return [...candidates].sort((x, y) => editDistance(wanted, x) - editDistance(wanted, y) || x.localeCompare(y)).slice(0, 3);
}

/**
 * The objects this cluster deploys: every kustomize root (or those `roots`/`paths` select) as
 * rendered, and plain files (in a directory without a kustomization) as written.
 */
export function repoView(files: ReadonlyMap<string, ScannedFile>, graph: KustomizeGraph | undefined, config: Pick<KerfConfig, 'paths'> & { roots?: readonly string[]; namespaces?: Readonly<Record<string, string>> }): { view: RenderingView; errors: PlanError[] } {
  const errors: PlanError[] = [];
  const namespaces = gitopsNamespaces(files);
  for (const [path, namespace] of Object.entries(config.namespaces ?? {})) {
    namespaces.set(normalizeDir(path), { namespace, force: false, from: `.kerf/config.yaml namespaces.${path}` });
  }
  const paths = config.paths.map(normalizeDir);
  for (const path of paths) {
    if ([...files.keys()].some((file) => under(file, path))) continue;
    errors.push({ code: 'UnknownPath', file: '.kerf/config.yaml', field: 'paths', message: `.kerf/config.yaml: paths entry ${path} holds no manifest kerf reads` });
  }
  const allRoots = graph?.roots ?? [];
  let roots = paths.length === 0 ? [...allRoots] : allRoots.filter((root) => paths.some((path) => under(root, path)));
  if ((config.roots ?? []).length > 0) {
    roots = [];
    for (const entry of config.roots ?? []) {
      const dir = normalizeDir(entry);
      if (allRoots.includes(dir)) {
        roots.push(dir);
        continue;
      }
      const includedBy = [...(graph?.includes ?? [])].filter(([, included]) => included.includes(dir)).map(([from]) => from).sort();
      const message =
        includedBy.length > 0
          ? `roots entry ${entry}: ${dir} is included by ${includedBy.join(', ')}; kerf edits only roots that no other kustomization includes`
          : `roots entry ${entry}: ${dir} is not a kustomize root of this repo${allRoots.length > 0 ? `; nearest: ${nearest(dir, allRoots).join(', ')}` : ''}`;
      errors.push({ code: 'UnknownRoot', file: '.kerf/config.yaml', field: 'roots', message: `.kerf/config.yaml: ${message}` });
    }
  }
  const objects: RenderedSource[] = [];
  for (const root of roots) {
    const at = namespaceAt(root, namespaces);
    const unmodelled = graph === undefined ? undefined : unmodelledIn(graph, root);
    for (const object of graph?.renderings.get(root) ?? []) {
      if (object.origin.generated) continue;
      const namespace = at !== undefined && (at.force || object.id.namespace === undefined) ? at.namespace : object.id.namespace;
      objects.push({ root, file: object.origin.file, document: object.origin.document, namespace, name: object.id.name, addedContainers: addedContainers(graph as KustomizeGraph, object), ...(unmodelled !== undefined && { unmodelled }) });
    }
  }
  const rendered = (file: string): boolean => graph !== undefined && (graph.renderingsOf(file).length > 0 || graph.isPatch(file));
  const view: RenderingView = {
    // Files beside a kustomization are applied only through it, listed or not.
    asWritten: (file) => !rendered(file) && kustomizationFileIn(posix.dirname(file), files) === undefined && (paths.length === 0 || paths.some((path) => under(file, path))),
    namespaceOf: (file) => namespaceAt(posix.dirname(file), namespaces),
    renderedNamespaces: (file) => [
      ...new Set(
        (graph?.renderingsOf(file) ?? [])
          .filter((rendering) => roots.includes(rendering.root))
          .map((rendering) => {
            const at = namespaceAt(rendering.root, namespaces);
            return at !== undefined && (at.force || rendering.namespace === undefined) ? at.namespace : rendering.namespace;
          }),
      ),
    ],
    objects,
  };
  return { view, errors };
}

/** The closest identities to a target that is not in the repo, for its error. */
export function nearestTargets(wanted: string, known: readonly string[]): string[] {
  const [namespace, kind, name] = wanted.split('/');
  const sameName = known.filter((key) => key.endsWith(`/${kind}/${name}`) || key.split('/')[2] === name).sort();
  if (sameName.length > 0) return sameName.slice(0, 3);
  const distance = (key: string): number => {
    const [ns, k, n] = key.split('/');
    return (k === kind ? 0 : 1000) + (ns === namespace ? 0 : 100) + editDistance(n ?? '', name ?? '');
  };
  return [...known].sort((a, b) => distance(a) - distance(b) || a.localeCompare(b)).slice(0, 1);
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length] ?? 0;
}
