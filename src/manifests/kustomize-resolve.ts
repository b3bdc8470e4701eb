import { posix } from 'node:path';
import type { ObjectRef, ResourceField } from '../model/types.js';
import { podSpecOf, type AppliedPatch, type KustomizeGraph, type ObjectId, type RenderedObject } from './kustomize-graph.js';
import type { PatchEntry, PatchField } from './kustomize-kustomization.js';
import { KERF_PATCH_FILE, type ContainerOrder, type OverlayPatchTarget } from './kustomize-overlay-patch.js';
import { isObject } from '../util/json.js';

/** A strategic-merge directive that removed or replaced the value wholesale. */
export type Directive = 'delete' | 'replace';

/** Who sets the field last in the target's rendering (the value kustomize outputs). */
export type ResourceSource =
  | { kind: 'document'; file: string; document: number; role: 'resource' | 'patch'; value: string | null; directive?: Directive }
  | { kind: 'inline-patch'; kustomization: string; field: PatchField; index: number; document: number; value: string | null; directive?: Directive }
  /** `operation` and `value` are absent when the patch file was not scanned (its effect is unknown). */
  | { kind: 'json6902'; kustomization: string; field: PatchField; index: number; file?: string; operation?: number; value?: string | null }
  | { kind: 'none' };

export type EditDecision =
  /** Edit this document in place (with `editResources`): it feeds only the target's rendering. */
  | { kind: 'edit-file'; file: string; document: number; documentKind: string; documentName: string; reason: string }
  /** Write the value into kerf's strategic-merge patch in the target's root, listed in its kustomization. */
  | {
      kind: 'overlay-patch';
      dir: string;
      file: typeof KERF_PATCH_FILE;
      kustomization: string;
      target: OverlayPatchTarget;
      /** Pass to `renderOverlayPatch` so the patch keeps the containers' order. */
      order: ContainerOrder;
      reason: string;
    }
  | { kind: 'unsupported'; reason: string };

export type Resolution =
  | { status: 'resolved'; root: string; object: RenderedObject; source: ResourceSource; decision: EditDecision }
  | { status: 'not-rendered'; reason: string }
  | { status: 'ambiguous'; roots: string[]; reason: string };

export interface ResolveOptions {
  /** The root that renders the cluster, when several roots render the same identity. */
  root?: string;
}

type Effect = { value: string | null; directive?: Directive };
type Writer = { source: Exclude<ResourceSource, { kind: 'none' }>; candidate?: { file: string; document: number } };

function scalar(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function directiveOf(value: Record<string, unknown>): Directive | undefined {
  const directive = value['$patch'];
  return directive === 'delete' || directive === 'replace' ? directive : undefined;
}

/** Whether a strategic-merge document (or a resource) sets `field` of the container, and to what. */
function strategicMergeEffect(doc: unknown, container: string, init: boolean, field: ResourceField): Effect | undefined {
  const list = podSpecOf(doc)?.[init ? 'initContainers' : 'containers'];
  if (!Array.isArray(list)) return undefined;
  const [group = '', resource = ''] = field.split('.');
  const replacedList = list.some((item) => isObject(item) && item['$patch'] === 'replace');
  const item: unknown = list.find((c) => isObject(c) && c['name'] === container);
  if (!isObject(item)) return replacedList ? { value: null, directive: 'replace' } : undefined;
  // Walk container → resources → requests|limits; a directive or a null on the way settles the value.
  let node: Record<string, unknown> = item;
  let replaced = replacedList || directiveOf(item) === 'replace';
  if (directiveOf(item) === 'delete') return { value: null, directive: 'delete' };
  for (const key of ['resources', group]) {
    const next = node[key];
    if (next === undefined) return replaced ? { value: null, directive: 'replace' } : undefined;
    if (next === null) return { value: null, directive: 'delete' };
    if (!isObject(next)) return undefined;
    if (directiveOf(next) === 'delete') return { value: null, directive: 'delete' };
    replaced ||= directiveOf(next) === 'replace';
    node = next;
  }
  if (!(resource in node)) return replaced ? { value: null, directive: 'replace' } : undefined;
  return replaced ? { value: scalar(node[resource]), directive: 'replace' } : { value: scalar(node[resource]) };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The last JSON6902 operation that writes the field, given the container's index when the patch ran. */
function json6902Effect(patch: AppliedPatch, container: string, init: boolean, field: ResourceField): { operation: number; value: string | null } | undefined {
  if (patch.patch.content.type !== 'json6902') return undefined;
  const index = (init ? patch.initContainers : patch.containers).indexOf(container);
  if (index < 0) return undefined;
  const fieldPath = ['spec', 'template', 'spec', init ? 'initContainers' : 'containers', String(index), 'resources', ...field.split('.')];
  let found: { operation: number; value: string | null } | undefined;
  patch.patch.content.operations.forEach((op, operation) => {
    if (op.op === 'test') return;
    const opPath = op.path.split('/').slice(1).map(unescapePointer);
    if (opPath.length > fieldPath.length || opPath.some((segment, i) => segment !== fieldPath[i])) return;
    if (op.op === 'remove') {
      found = { operation, value: null };
      return;
    }
    // An op on a parent path carries the field inside its value.
    let value: unknown = op.value;
    for (const segment of fieldPath.slice(opPath.length)) value = isObject(value) ? value[segment] : undefined;
    found = { operation, value: scalar(value) };
  });
  return found;
}

function patchWriter(applied: AppliedPatch, container: string, init: boolean, field: ResourceField): Writer | undefined {
  const { patch } = applied;
  const at = { kustomization: patch.kustomization, field: patch.field, index: patch.index };
  if (patch.content.type === 'unknown') return { source: { kind: 'json6902', ...at, ...(patch.file === undefined ? {} : { file: patch.file }) } };
  if (patch.content.type === 'json6902') {
    const effect = json6902Effect(applied, container, init, field);
    return effect === undefined ? undefined : { source: { kind: 'json6902', ...at, ...(patch.file === undefined ? {} : { file: patch.file }), ...effect } };
  }
  const effect = strategicMergeEffect(patch.content.documents[applied.document], container, init, field);
  if (effect === undefined) return undefined;
  if (patch.file === undefined) return { source: { kind: 'inline-patch', ...at, document: applied.document, ...effect } };
  const source = { kind: 'document' as const, file: patch.file, document: applied.document, role: 'patch' as const, ...effect };
  return { source, candidate: { file: patch.file, document: applied.document } };
}

interface Rendered {
  root: string;
  object: RenderedObject;
}

/** The renderings looked up by object and by the documents feeding them, built once per graph (one scan of it, not one per field). */
interface RenderingIndex {
  byTarget: Map<string, Rendered[]>;
  byDocument: Map<string, Rendered[]>;
}
const indexes = new WeakMap<KustomizeGraph, RenderingIndex>();
const targetKey = (kind: string, namespace: string, name: string) => `${kind}\u0000${namespace}\u0000${name}`;
const documentKey = (file: string, document: number) => `${file}\u0000${document}`;

function renderingIndex(graph: KustomizeGraph): RenderingIndex {
  let index = indexes.get(graph);
  if (index) return index;
  index = { byTarget: new Map(), byDocument: new Map() };
  const add = (map: Map<string, Rendered[]>, key: string, rendered: Rendered) => {
    const list = map.get(key);
    if (list) {
      if (list.at(-1) !== rendered) list.push(rendered);
    } else map.set(key, [rendered]);
  };
  for (const [root, objects] of graph.renderings) {
    for (const object of objects) {
      const rendered = { root, object };
      add(index.byTarget, targetKey(object.id.kind, object.id.namespace ?? 'default', object.id.name), rendered);
      if (!object.origin.generated) add(index.byDocument, documentKey(object.origin.file, object.origin.document), rendered);
      for (const p of object.patches) if (p.patch.file !== undefined) add(index.byDocument, documentKey(p.patch.file, p.document), rendered);
    }
  }
  indexes.set(graph, index);
  return index;
}

/** Every (root, object) a document contributes to, as the resource or as a patch, in rendering order. */
function fanOut(graph: KustomizeGraph, file: string, document: number): Rendered[] {
  return renderingIndex(graph).byDocument.get(documentKey(file, document)) ?? [];
}

function documentIdentity(graph: KustomizeGraph, file: string, document: number): { kind: string; name: string } {
  const doc = graph.files.get(file)?.documents[document];
  const metadata = isObject(doc) && isObject(doc['metadata']) ? doc['metadata'] : {};
  return { kind: isObject(doc) ? String(doc['kind']) : '', name: String(metadata['name']) };
}

function overlayTarget(id: ObjectId): OverlayPatchTarget {
  return { apiVersion: id.apiVersion, kind: id.kind, name: id.name, ...(id.namespace === undefined ? {} : { namespace: id.namespace }) };
}

function describe(source: ResourceSource): string {
  switch (source.kind) {
    case 'document':
      return `${source.file} document ${source.document}`;
    case 'inline-patch':
    case 'json6902':
      return `${source.kind} ${source.kustomization} ${source.field}[${source.index}]`;
    case 'none':
      return 'no file';
  }
}

/** The document that brings the container in when no one sets the field: its resource, or the patch that adds it. */
function definingDocument(graph: KustomizeGraph, object: RenderedObject, container: string, init: boolean): { file: string; document: number } | undefined {
  const has = (doc: unknown): boolean => {
    const list = podSpecOf(doc)?.[init ? 'initContainers' : 'containers'];
    return Array.isArray(list) && list.some((c) => isObject(c) && c['name'] === container);
  };
  if (!object.origin.generated && has(graph.files.get(object.origin.file)?.documents[object.origin.document])) return object.origin;
  const adding = object.patches.find((p) => p.patch.content.type === 'strategic-merge' && has(p.patch.content.documents[p.document]));
  return adding?.patch.file === undefined ? undefined : { file: adding.patch.file, document: adding.document };
}

function decide(graph: KustomizeGraph, root: string, object: RenderedObject, last: Writer | undefined, field: ResourceField, defining: { file: string; document: number } | undefined): EditDecision {
  const kustomization = graph.kustomizations.get(root);
  if (kustomization === undefined) return { kind: 'unsupported', reason: `root ${root} has no kustomization` };
  const ownJson = (p: Pick<PatchEntry, 'kustomization' | 'field'>): boolean => p.kustomization === kustomization.file && p.field === 'patchesJson6902';
  const source = last?.source ?? { kind: 'none' };
  // The root's own patchesJson6902 run after every strategic-merge patch it lists: nothing kerf adds can win.
  if (source.kind === 'json6902' && ownJson(source)) {
    return { kind: 'unsupported', reason: `${field} is set by a JSON6902 patch in ${kustomization.file} (${source.field}[${source.index}]), which applies after any patch kerf can add; change it by hand` };
  }
  const overlay: EditDecision = {
    kind: 'overlay-patch',
    dir: root,
    file: KERF_PATCH_FILE,
    kustomization: kustomization.file,
    target: overlayTarget(object.rootPatchId ?? object.id),
    order: { containers: [...object.containers], initContainers: [...object.initContainers] },
    reason: `${field} comes from ${describe(source)}, which kerf does not edit for this target alone`,
  };
  const candidate = last === undefined ? defining : last.candidate;
  const directive = source.kind === 'document' ? source.directive : undefined;
  if (candidate === undefined || directive !== undefined || candidate.file === posix.join(root, KERF_PATCH_FILE)) return overlay;
  const feeds = fanOut(graph, candidate.file, candidate.document);
  if (feeds.length !== 1 || feeds[0]?.root !== root || feeds[0].object !== object) {
    const roots = [...new Set(feeds.map((f) => f.root))].sort();
    return { ...overlay, reason: `${candidate.file} document ${candidate.document} also feeds ${feeds.length - 1} other rendering(s) (roots: ${roots.join(', ')})` };
  }
  const identity = documentIdentity(graph, candidate.file, candidate.document);
  return {
    kind: 'edit-file',
    file: candidate.file,
    document: candidate.document,
    documentKind: identity.kind,
    documentName: identity.name,
    reason: `${candidate.file} document ${candidate.document} feeds only ${object.id.kind} ${object.id.namespace ?? 'default'}/${object.id.name} of root ${root}`,
  };
}

/**
 * Which file or patch defines `field` of `container` for the target, in the order kustomize applies
 * them (the last writer wins), and where kerf should write a new value.
 */
export function resolveResourceSource(graph: KustomizeGraph, target: ObjectRef, container: string, field: ResourceField, options: ResolveOptions = {}): Resolution {
  const matches = renderingIndex(graph).byTarget.get(targetKey(target.kind, target.namespace, target.name)) ?? [];
  const chosen = options.root === undefined ? matches : matches.filter((m) => m.root === options.root);
  const label = `${target.kind} ${target.namespace}/${target.name}`;
  const [first] = chosen;
  if (first === undefined) return { status: 'not-rendered', reason: `no kustomize root${options.root === undefined ? '' : ` ${options.root}`} renders ${label}` };
  if (chosen.length > 1) {
    const roots = chosen.map((m) => m.root);
    return { status: 'ambiguous', roots, reason: `${label} is rendered by several roots (${roots.join(', ')}); pick one` };
  }
  const { root, object } = first;
  const init = !object.containers.includes(container) && object.initContainers.includes(container);
  if (!init && !object.containers.includes(container)) {
    return { status: 'resolved', root, object, source: { kind: 'none' }, decision: { kind: 'unsupported', reason: `${label} of root ${root} has no container ${container}` } };
  }
  const writers: Writer[] = [];
  if (!object.origin.generated) {
    const effect = strategicMergeEffect(graph.files.get(object.origin.file)?.documents[object.origin.document], container, init, field);
    if (effect !== undefined) {
      const { file, document } = object.origin;
      writers.push({ source: { kind: 'document', file, document, role: 'resource', ...effect }, candidate: { file, document } });
    }
  }
  for (const applied of object.patches) {
    const writer = patchWriter(applied, container, init, field);
    if (writer !== undefined) writers.push(writer);
  }
  const last = writers.at(-1);
  return { status: 'resolved', root, object, source: last?.source ?? { kind: 'none' }, decision: decide(graph, root, object, last, field, definingDocument(graph, object, container, init)) };
}
