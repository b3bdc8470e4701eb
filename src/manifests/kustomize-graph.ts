import type { KustomizeWarning } from './kustomize-error.js';
import {
  isKustomizationPath,
  parseKustomization,
  type Json6902Operation,
  type Kustomization,
  type ParsedFiles,
  type PatchEntry,
  type PatchSelector,
} from './kustomize-kustomization.js';
import { isObject } from '../util/json.js';

export interface ObjectId {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
}

/** A patch document applied to a rendered object. */
export interface AppliedPatch {
  patch: PatchEntry;
  /** Index of the strategic-merge document within the patch (0 for JSON6902). */
  document: number;
  /** Names of the object's containers when the patch was applied, for JSON6902 paths by index. */
  containers: readonly string[];
  initContainers: readonly string[];
}

/** An object of a root's rendering, known by identity and provenance rather than content. */
export interface RenderedObject {
  id: ObjectId;
  /** Every earlier id, oldest first: kustomize matches patches against any of them. */
  previousIds: ObjectId[];
  /** The resource document it came from; `generated` objects come from a kustomization's generator. */
  origin: { file: string; document: number; generated?: true };
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Prefixes and suffixes the kustomizations added to the original name. */
  namePrefix: string;
  nameSuffix: string;
  containers: string[];
  initContainers: string[];
  /** Patches applied to it, in the order kustomize applies them. */
  patches: AppliedPatch[];
  /** Its id when the root kustomization's own `patches:` run: what a patch listed there must name. */
  rootPatchId?: ObjectId;
}

export interface FileRendering {
  /** Directory of the root kustomization. */
  root: string;
  /** Namespace a kustomization forces on the file's objects; undefined: they keep their own. */
  namespace: string | undefined;
  namePrefix: string;
  nameSuffix: string;
}

export interface KustomizeGraph {
  files: ParsedFiles;
  /** Kustomizations and components by directory. */
  kustomizations: ReadonlyMap<string, Kustomization>;
  /** Directory → directories it includes (resources, bases, components). */
  includes: ReadonlyMap<string, readonly string[]>;
  /** Kustomizations (not components) that no other kustomization includes. */
  roots: readonly string[];
  /** Root directory → the objects it renders. */
  renderings: ReadonlyMap<string, readonly RenderedObject[]>;
  warnings: readonly KustomizeWarning[];
  /** How a resource, patch or kustomization file is rendered under each root that uses it. */
  renderingsOf(file: string): FileRendering[];
  /** True when the file feeds more than one root. */
  isShared(file: string): boolean;
  /** True when some kustomization lists the file as a patch (its objects are changes, not objects). */
  isPatch(file: string): boolean;
}

// Built-in cluster-scoped kinds: kustomize's namespace transformer leaves them alone.
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'APIService',
  'StorageClass',
  'PriorityClass',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'RuntimeClass',
  'IngressClass',
  'PodSecurityPolicy',
  'CertificateSigningRequest',
  'ComponentStatus',
  'FlowSchema',
  'PriorityLevelConfiguration',
]);
// Kinds kustomize never prefixes or suffixes (checked against kustomize v5.5).
const NOT_RENAMED = new Set(['Namespace', 'CustomResourceDefinition', 'APIService']);

/** A stand-in that rides along with a file's objects to learn the namespace and names they get. */
interface Probe {
  file: string;
  namespace: string | undefined;
  namePrefix: string;
  nameSuffix: string;
}

interface Accumulator {
  objects: RenderedObject[];
  probes: Probe[];
}

function stringMap(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `spec.template.spec` of a workload-shaped object. */
export function podSpecOf(doc: unknown): Record<string, unknown> | undefined {
  const template = isObject(doc) && isObject(doc['spec']) ? doc['spec']['template'] : undefined;
  return isObject(template) && isObject(template['spec']) ? template['spec'] : undefined;
}

function containerNames(podSpec: Record<string, unknown> | undefined, field: 'containers' | 'initContainers'): string[] {
  const list = podSpec?.[field];
  return Array.isArray(list) ? list.flatMap((c) => (isObject(c) && typeof c['name'] === 'string' ? [c['name']] : [])) : [];
}

function objectFromDocument(file: string, document: number, doc: Record<string, unknown>): RenderedObject | undefined {
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  if (typeof doc['kind'] !== 'string' || typeof metadata['name'] !== 'string') return undefined;
  const podSpec = podSpecOf(doc);
  return {
    id: {
      apiVersion: typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '',
      kind: doc['kind'],
      name: metadata['name'],
      namespace: typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '' ? metadata['namespace'] : undefined,
    },
    previousIds: [],
    origin: { file, document },
    labels: stringMap(metadata['labels']),
    annotations: stringMap(metadata['annotations']),
    namePrefix: '',
    nameSuffix: '',
    containers: containerNames(podSpec, 'containers'),
    initContainers: containerNames(podSpec, 'initContainers'),
    patches: [],
  };
}

/** kustomize treats no namespace and `default` as the same. */
function effectiveNamespace(namespace: string | undefined): string {
  return namespace ?? 'default';
}

function sameId(a: ObjectId, b: ObjectId): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && effectiveNamespace(a.namespace) === effectiveNamespace(b.namespace);
}

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

/** `k=v`, `k==v`, `k!=v`, `k`, `!k` terms; set-based terms are not modelled and match everything. */
function matchesLabelSelector(selector: string, labels: Record<string, string>): boolean {
  return selector.split(',').every((raw) => {
    const term = raw.trim();
    const equality = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (equality !== null) {
      const [, key = '', op, value] = equality;
      return op === '!=' ? labels[key] !== value : labels[key] === value;
    }
    if (/^![^\s()]+$/.test(term)) return !(term.slice(1) in labels);
    if (/^[^\s()!=]+$/.test(term)) return term in labels;
    return true;
  });
}

/** kustomize's `Select`: original or current namespace and name, regex-anchored; empty fields match all. */
function selectorMatches(selector: PatchSelector, object: RenderedObject): boolean {
  const original = object.previousIds[0] ?? object.id;
  const { group, version } = splitApiVersion(object.id.apiVersion);
  if (selector.group !== undefined && selector.group !== group) return false;
  if (selector.version !== undefined && selector.version !== version) return false;
  if (selector.kind !== undefined && selector.kind !== object.id.kind) return false;
  if (selector.namespace !== undefined) {
    const namespace = anchored(selector.namespace);
    if (!namespace.test(effectiveNamespace(original.namespace)) && !namespace.test(effectiveNamespace(object.id.namespace))) return false;
  }
  if (selector.name !== undefined) {
    const name = anchored(selector.name);
    if (!name.test(original.name) && !name.test(object.id.name)) return false;
  }
  if (selector.labelSelector !== undefined && !matchesLabelSelector(selector.labelSelector, object.labels)) return false;
  return selector.annotationSelector === undefined || matchesLabelSelector(selector.annotationSelector, object.annotations);
}

function patchIdOf(doc: Record<string, unknown>): ObjectId | undefined {
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  if (typeof doc['kind'] !== 'string' || typeof metadata['name'] !== 'string') return undefined;
  return {
    apiVersion: typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '',
    kind: doc['kind'],
    name: metadata['name'],
    namespace: typeof metadata['namespace'] === 'string' && metadata['namespace'] !== '' ? metadata['namespace'] : undefined,
  };
}

function changeId(object: RenderedObject, change: Partial<ObjectId>): void {
  const next = { ...object.id, ...change };
  if (sameId(next, object.id) && next.namespace === object.id.namespace) return;
  object.previousIds.push(object.id);
  object.id = next;
}

class GraphBuilder {
  readonly kustomizations = new Map<string, Kustomization>();
  readonly includes = new Map<string, string[]>();
  readonly warnings: KustomizeWarning[] = [];
  /** Directories of the kustomizations some root rendered. */
  readonly rendered = new Set<string>();

  constructor(readonly files: ParsedFiles) {
    for (const path of [...files.keys()].filter(isKustomizationPath).sort()) {
      const kustomization = parseKustomization(path, files, this.warnings);
      if (kustomization === undefined) continue;
      const existing = this.kustomizations.get(kustomization.dir);
      if (existing !== undefined) {
        this.warnings.push({ code: 'not-a-kustomization', file: path, message: `${path}: ${existing.file} is already the kustomization of ${kustomization.dir}; kustomize refuses both, ignored` });
        continue;
      }
      this.kustomizations.set(kustomization.dir, kustomization);
    }
    for (const [dir, k] of this.kustomizations) {
      this.includes.set(dir, [...k.resources.flatMap((r) => (r.type === 'kustomization' ? [r.dir] : [])), ...k.components]);
    }
  }

  roots(): string[] {
    const included = new Set([...this.includes.values()].flat());
    const roots: string[] = [];
    for (const [dir, k] of this.kustomizations) {
      if (included.has(dir)) continue;
      if (k.kind === 'Component') {
        this.warnings.push({ code: 'unused-component', file: k.file, message: `${k.file}: component is not included by any kustomization; not rendered` });
      } else {
        roots.push(dir);
      }
    }
    return roots;
  }

  render(dir: string, stack: readonly string[], isRoot: boolean): Accumulator {
    const acc: Accumulator = { objects: [], probes: [] };
    const kustomization = this.kustomizations.get(dir);
    if (kustomization !== undefined) this.accumulate(kustomization, acc, stack, isRoot);
    return acc;
  }

  private enter(from: Kustomization, dir: string, stack: readonly string[]): readonly string[] | undefined {
    if (stack.includes(dir) || dir === from.dir) {
      this.warnings.push({ code: 'cycle', file: from.file, message: `${from.file}: including ${dir} makes a cycle; not followed` });
      return undefined;
    }
    return [...stack, from.dir];
  }

  /** kustomize's order: resources, then components (each on the whole set), then own transformers. */
  private accumulate(k: Kustomization, acc: Accumulator, stack: readonly string[], isRoot: boolean): void {
    this.rendered.add(k.dir);
    acc.probes.push({ file: k.file, namespace: undefined, namePrefix: '', nameSuffix: '' });
    for (const resource of k.resources) {
      if (resource.type === 'file') {
        this.addFile(resource.path, acc);
        continue;
      }
      const inner = this.enter(k, resource.dir, stack);
      if (inner === undefined) continue;
      const sub = this.render(resource.dir, inner, false);
      acc.objects.push(...sub.objects);
      acc.probes.push(...sub.probes);
    }
    for (const dir of k.components) {
      const component = this.kustomizations.get(dir);
      const inner = this.enter(k, dir, stack);
      if (component !== undefined && inner !== undefined) this.accumulate(component, acc, inner, false);
    }
    this.generate(k, acc);
    if (isRoot) for (const object of acc.objects) object.rootPatchId = { ...object.id };
    for (const patch of k.patches.filter((p) => p.field !== 'patchesJson6902')) this.applyPatch(patch, acc);
    this.transformNames(k, acc);
    for (const patch of k.patches.filter((p) => p.field === 'patchesJson6902')) this.applyPatch(patch, acc);
  }

  private addFile(file: string, acc: Accumulator): void {
    acc.probes.push({ file, namespace: undefined, namePrefix: '', nameSuffix: '' });
    this.files.get(file)?.documents.forEach((doc, index) => {
      const object = isObject(doc) ? objectFromDocument(file, index, doc) : undefined;
      if (object !== undefined) acc.objects.push(object);
    });
  }

  private generate(k: Kustomization, acc: Accumulator): void {
    k.generated.forEach((generated, document) => {
      const id: ObjectId = { apiVersion: 'v1', kind: generated.kind, name: generated.name, namespace: generated.namespace };
      if (generated.behavior !== 'create' && acc.objects.some((o) => [...o.previousIds, o.id].some((known) => sameId(known, id)))) return;
      acc.objects.push({
        id,
        previousIds: [],
        origin: { file: k.file, document, generated: true },
        labels: {},
        annotations: {},
        namePrefix: '',
        nameSuffix: '',
        containers: [],
        initContainers: [],
        patches: [],
      });
    });
  }

  private transformNames(k: Kustomization, acc: Accumulator): void {
    for (const probe of acc.probes) {
      if (k.namespace !== undefined) probe.namespace = k.namespace;
      probe.namePrefix = k.namePrefix + probe.namePrefix;
      probe.nameSuffix += k.nameSuffix;
    }
    for (const object of acc.objects) {
      const { kind } = object.id;
      if (k.namespace !== undefined && kind === 'Namespace') changeId(object, { name: k.namespace });
      else if (k.namespace !== undefined && !CLUSTER_SCOPED.has(kind)) changeId(object, { namespace: k.namespace });
      if ((k.namePrefix !== '' || k.nameSuffix !== '') && !NOT_RENAMED.has(kind)) {
        changeId(object, { name: k.namePrefix + object.id.name + k.nameSuffix });
        object.namePrefix = k.namePrefix + object.namePrefix;
        object.nameSuffix += k.nameSuffix;
      }
    }
  }

  private applyPatch(patch: PatchEntry, acc: Accumulator): void {
    acc.probes.push({ file: patch.file ?? patch.kustomization, namespace: undefined, namePrefix: '', nameSuffix: '' });
    const { content } = patch;
    const where = `${patch.kustomization}: ${patch.field}[${patch.index}]`;
    const { target } = patch;
    if (content.type !== 'strategic-merge') {
      // Without a target (legacy entries always have one) kustomize cannot place a JSON6902 patch.
      const selected = target === undefined ? [] : acc.objects.filter((o) => selectorMatches(target, o));
      for (const object of selected) {
        record(object, patch, 0);
        if (content.type === 'json6902') changeId(object, json6902Identity(content.operations, object.id));
      }
      return;
    }
    content.documents.forEach((doc, document) => {
      let selected: RenderedObject[];
      if (target !== undefined) {
        selected = acc.objects.filter((o) => selectorMatches(target, o));
      } else {
        const id = patchIdOf(doc);
        selected = id === undefined ? [] : acc.objects.filter((o) => [...o.previousIds, o.id].some((known) => sameId(known, id)));
        if (selected.length === 0) {
          this.warnings.push({ code: 'patch-matches-nothing', file: patch.file ?? patch.kustomization, message: `${where}: document ${document} (${id?.kind}/${id?.name}) matches no object` });
        }
      }
      if (doc['$patch'] === 'delete') {
        acc.objects = acc.objects.filter((o) => !selected.includes(o));
        return;
      }
      for (const object of selected) {
        record(object, patch, document);
        // kustomize's strategic merge puts the patch's list items first, in the patch's order.
        const podSpec = podSpecOf(doc);
        const merged = (existing: string[], patched: string[]): string[] => (patched.length === 0 ? existing : [...patched, ...existing.filter((name) => !patched.includes(name))]);
        object.containers = merged(object.containers, containerNames(podSpec, 'containers'));
        object.initContainers = merged(object.initContainers, containerNames(podSpec, 'initContainers'));
      }
    });
  }
}

/** What a JSON 6902 patch does to `metadata.name` / `metadata.namespace` (argo-cd's redis-ha removes the namespace). */
function json6902Identity(operations: readonly Json6902Operation[], id: ObjectId): Partial<ObjectId> {
  const change: Partial<ObjectId> = {};
  for (const { op, path, value } of operations) {
    const field = path === '/metadata/name' ? 'name' : path === '/metadata/namespace' ? 'namespace' : undefined;
    if (field === undefined || op === 'test') continue;
    if (op === 'remove') {
      if (field === 'namespace') change.namespace = undefined;
    } else if ((op === 'add' || op === 'replace') && typeof value === 'string') {
      change[field] = field === 'namespace' && value === '' ? undefined : value;
    }
  }
  return 'namespace' in change || change.name !== undefined ? { ...id, ...change } : {};
}

function record(object: RenderedObject, patch: PatchEntry, document: number): void {
  object.patches.push({ patch, document, containers: [...object.containers], initContainers: [...object.initContainers] });
}

/** Build the kustomize graph of a repo from its parsed YAML files; problems become warnings. */
export function buildKustomizeGraph(files: ParsedFiles): KustomizeGraph {
  const builder = new GraphBuilder(files);
  const roots = builder.roots();
  const renderings = new Map<string, RenderedObject[]>();
  const fileRenderings = new Map<string, FileRendering[]>();
  const patchFiles = new Set([...builder.kustomizations.values()].flatMap((k) => k.patches.flatMap((p) => (p.file === undefined ? [] : [p.file]))));
  for (const root of roots) {
    const { objects, probes } = builder.render(root, [], true);
    renderings.set(root, objects);
    for (const probe of probes) {
      const rendering: FileRendering = { root, namespace: probe.namespace, namePrefix: probe.namePrefix, nameSuffix: probe.nameSuffix };
      const known = fileRenderings.get(probe.file) ?? [];
      if (!known.some((r) => JSON.stringify(r) === JSON.stringify(rendering))) known.push(rendering);
      fileRenderings.set(probe.file, known);
    }
  }
  // Kustomizations that include each other with none above them: no root, so nothing renders them.
  for (const k of builder.kustomizations.values()) {
    if (k.kind !== 'Component' && !builder.rendered.has(k.dir)) {
      builder.warnings.push({ code: 'cycle', file: k.file, message: `${k.file}: only included in a cycle of kustomizations, so no root renders it` });
    }
  }
  return {
    files,
    kustomizations: builder.kustomizations,
    includes: builder.includes,
    roots,
    renderings,
    // A shared base is rendered once per root, so the same warning can come up several times.
    warnings: builder.warnings.filter((w, i, all) => all.findIndex((o) => o.message === w.message) === i),
    renderingsOf: (file) => fileRenderings.get(file) ?? [],
    isShared: (file) => new Set((fileRenderings.get(file) ?? []).map((r) => r.root)).size > 1,
    isPatch: (file) => patchFiles.has(file),
  };
}
