import { posix } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument, stringify, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ContainerRecommendation, ResourceName } from '../model/types.js';
import { editResources, type ResourceEdit } from './edit-resources.js';
import { applySplices, columnOf, insertLinesAfter, lineStart } from './edit-text.js';
import { contentEnd, PARSE_OPTIONS, rangeOf } from './edit-yaml.js';
import { KustomizeError } from './kustomize-error.js';
import { isObject } from '../util/json.js';

/** kerf's own strategic-merge patch in an overlay: CPU/memory of workloads whose manifests other roots share. */
export const KERF_PATCH_FILE = 'kerf-resources.yaml';

export interface OverlayPatchTarget {
  apiVersion: string;
  kind: string;
  /** The name as the overlay's patches see it (after inner prefixes, before the overlay's own). */
  name: string;
  namespace?: string;
}

export interface OverlayPatchContainer {
  name: string;
  /** An init container (native sidecar) rather than a regular one. */
  init?: boolean;
  /** `null` removes the value: a null map value is a delete in a strategic-merge patch. */
  requests?: ContainerRecommendation['requests'];
  limits?: ContainerRecommendation['limits'];
}

const HEADER = '# Written by kerf-gitops: CPU and memory of workloads whose manifests other overlays share.\n';

type Resources = { requests?: Partial<Record<ResourceName, string | null>>; limits?: Partial<Record<ResourceName, string | null>> };
type PatchContainer = { name: string; resources?: Resources };

function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function withLineEnding(text: string, eol: string): string {
  return eol === '\n' ? text : text.replace(/\n/g, eol);
}

/** Names of the target's containers in rendered order; see `renderOverlayPatch`. */
export interface ContainerOrder {
  containers: readonly string[];
  initContainers: readonly string[];
}

/** The patch's containers: the updated ones with their values, every other one of `order` by name only. */
function patchContainers(updates: OverlayPatchContainer[], order: readonly string[]): PatchContainer[] {
  const containers: PatchContainer[] = updates.map((update) => {
    const resources: Resources = {};
    for (const group of ['requests', 'limits'] as const) {
      const values = update[group];
      if (values !== undefined && Object.keys(values).length > 0) resources[group] = { ...values };
    }
    return Object.keys(resources).length === 0 ? { name: update.name } : { name: update.name, resources };
  });
  if (containers.length === 0) return containers;
  // kustomize's strategic merge moves the patch's list items to the front; naming every container
  // in its rendered order (name-only where nothing changes) keeps the order as it was.
  const ordered = order.map((name) => containers.find((c) => c.name === name) ?? { name });
  return [...ordered, ...containers.filter((c) => !order.includes(c.name))];
}

function patchDocument(target: OverlayPatchTarget, containers: PatchContainer[], initContainers: PatchContainer[]): string {
  const podSpec: Record<string, PatchContainer[]> = {};
  if (containers.length > 0) podSpec['containers'] = containers;
  if (initContainers.length > 0) podSpec['initContainers'] = initContainers;
  const metadata = target.namespace === undefined ? { name: target.name } : { name: target.name, namespace: target.namespace };
  return stringify({ apiVersion: target.apiVersion, kind: target.kind, metadata, spec: { template: { spec: podSpec } } });
}

/** Each document of a patch file by the target it patches (undefined: none), as `renderOverlayPatch` matches them. */
export type PatchTargets = readonly (string | undefined)[];

function targetKey(kind: unknown, name: unknown, namespace: unknown): string | undefined {
  const ns = namespace ?? undefined;
  return typeof kind === 'string' && typeof name === 'string' && (ns === undefined || typeof ns === 'string') ? JSON.stringify([kind, name, ns ?? null]) : undefined;
}

/** What each document of the patch file `text` targets; throws when it does not parse, as kerf will not overwrite it. */
export function overlayPatchTargets(text: string, file: string = KERF_PATCH_FILE): PatchTargets {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const broken = list.find((doc) => doc.errors.length > 0);
  if (broken !== undefined) {
    throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `does not parse as YAML (${broken.errors[0]?.message ?? 'error'}); kerf will not overwrite it`);
  }
  return list.map((doc) => {
    const js: unknown = doc.toJS();
    const metadata = isObject(js) && isObject(js['metadata']) ? js['metadata'] : undefined;
    return isObject(js) ? targetKey(js['kind'], metadata?.['name'], metadata?.['namespace']) : undefined;
  });
}

/** The targets of the text `renderOverlayPatch` returns for `target`, from those of the text it was given (undefined: none). */
export function withPatchTarget(targets: PatchTargets | undefined, target: OverlayPatchTarget): PatchTargets {
  const key = targetKey(target.kind, target.name, target.namespace);
  return targets?.includes(key) ? targets : [...(targets ?? []), key];
}

export interface OverlayPatchOptions {
  /** The target's containers in rendered order (from the resolution); without it, order may change. */
  order?: ContainerOrder;
  /** For error messages. */
  file?: string;
  /**
   * `overlayPatchTargets(existingText)` when the caller knows it (kept with `withPatchTarget`), so
   * a file kerf adds many workloads to is not parsed again for each.
   */
  targets?: PatchTargets;
}

/**
 * kerf's overlay patch with the target's containers set to the given values: updates the target's
 * document when `existingText` has one, appends a document otherwise; other documents keep their bytes.
 */
export function renderOverlayPatch(
  existingText: string | undefined,
  target: OverlayPatchTarget,
  containers: OverlayPatchContainer[],
  options: OverlayPatchOptions = {},
): string {
  const regular = containers.filter((c) => c.init !== true);
  const init = containers.filter((c) => c.init === true);
  const order = options.order ?? { containers: [], initContainers: [] };
  const render = (): string => patchDocument(target, patchContainers(regular, order.containers), patchContainers(init, order.initContainers));
  if (existingText === undefined) return HEADER + render();
  const file = options.file ?? KERF_PATCH_FILE;
  const eol = lineEnding(existingText);
  const targets = options.targets ?? overlayPatchTargets(existingText, file);
  const index = targets.indexOf(targetKey(target.kind, target.name, target.namespace));
  if (index < 0) {
    // A parsed document always has contents (a null scalar at least): none only in a file of comments.
    const hasDocument = targets.length > 0;
    const separator = existingText === '' || existingText.endsWith('\n') ? '' : eol;
    return existingText + separator + (hasDocument ? `---${eol}` : '') + withLineEnding(render(), eol);
  }
  return editPatchDocument(existingText, index, target, containers, order, file);
}

/** Stands in for a null (strategic-merge delete) where the key is missing, so the editor adds the key; any request is ≤ 1E and any limit ≥ 0. */
const NULL_PLACEHOLDER = { requests: '0', limits: '1E' } as const;

/**
 * The target's existing document edited in place through the byte-exact resources editor: only
 * the CPU/memory fields kerf sets change (plus `- name:` entries for containers the patch does not
 * list yet); whatever a person added (annotations, images, env, comments) keeps its bytes.
 */
function editPatchDocument(text: string, document: number, target: OverlayPatchTarget, containers: OverlayPatchContainer[], order: ContainerOrder, file: string): string {
  let edited = listContainers(text, document, containers, order, file);
  const edits: ResourceEdit[] = [];
  const nulls: { container: string; group: 'requests' | 'limits'; resource: ResourceName }[] = [];
  for (const container of containers) {
    for (const group of ['requests', 'limits'] as const) {
      for (const [resource, to] of Object.entries(container[group] ?? {}) as [ResourceName, string | null][]) {
        if (to === null) nulls.push({ container: container.name, group, resource });
        edits.push({ container: container.name, field: `${group}.${resource}`, to: to ?? NULL_PLACEHOLDER[group] });
      }
    }
  }
  edited = editResources(edited, { document, kind: target.kind, name: target.name }, edits, file);
  if (nulls.length === 0) return edited;
  const doc = parseAllDocuments(edited, PARSE_OPTIONS)[document] as Document;
  const splices = nulls.map(({ container, group, resource }) => {
    const value = doc.getIn(['spec', 'template', 'spec', ...containerPath(doc, container), 'resources', group, resource], true);
    const [start, end] = isScalar(value) && value.range ? value.range : [-1, -1];
    if (start < 0) throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `cannot write ${group}.${resource}: null for container ${container}`);
    return { start, end, text: 'null' };
  });
  return applySplices(edited, splices);
}

/** `['containers', i]` or `['initContainers', i]` of a container by name. */
function containerPath(doc: Document, name: string): (string | number)[] {
  for (const list of ['containers', 'initContainers']) {
    const items = doc.getIn(['spec', 'template', 'spec', list]);
    const at = isSeq(items) ? items.items.findIndex((item) => isMap(item) && item.get('name') === name) : -1;
    if (at >= 0) return [list, at];
  }
  return [];
}

/**
 * Adds a `- name: X` entry for every container the patch must name but does not (kustomize moves
 * patched list items to the front, so the patch names them in rendered order), appending to the
 * list or adding the list under the pod spec.
 */
function listContainers(text: string, document: number, containers: OverlayPatchContainer[], order: ContainerOrder, file: string): string {
  let edited = text;
  for (const [list, init] of [['containers', false], ['initContainers', true]] as const) {
    const wanted = [...(init ? order.initContainers : order.containers), ...containers.filter((c) => (c.init === true) === init).map((c) => c.name)];
    for (const name of new Set(wanted)) {
      const doc = parseAllDocuments(edited, PARSE_OPTIONS)[document] as Document;
      const podSpec = doc.getIn(['spec', 'template', 'spec'], true);
      if (!isMap(podSpec) || podSpec.flow === true || podSpec.items.length === 0) {
        throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `the document of ${doc.getIn(['metadata', 'name'])} has no block mapping at spec.template.spec; kerf will not rewrite it`);
      }
      const items = podSpec.get(list, true);
      if (isSeq(items) && items.items.some((item) => isMap(item) && item.get('name') === name)) continue;
      const eol = lineEnding(edited);
      if (isSeq(items) && items.items.length > 0) {
        edited = appendToSequence(edited, items, { block: `name: ${name}`, flow: `{name: ${name}}` }, eol);
        continue;
      }
      if (items !== undefined && !(isScalar(items) && items.value === null)) {
        throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `spec.template.spec.${list} is not a list; kerf will not rewrite it`);
      }
      if (items !== undefined) throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `spec.template.spec.${list} is empty; kerf will not rewrite it`);
      const [first] = podSpec.items;
      const column = ' '.repeat(columnOf(edited, rangeOf(first?.key)[0]));
      const indent = podSpec.items.some((pair) => isSeq(pair.value) && pair.value.flow !== true) ? sequenceIndent(edited, podSpec) : '  ';
      const lines = [`${column}${list}:`, `${column}${indent}- name: ${name}`];
      edited = applySplices(edited, [insertLinesAfter(edited, contentEnd(podSpec), lines, eol)]);
    }
  }
  return edited;
}

/** Offset just after the line holding `offset - 1`, so an insertion starts a fresh line. */
function afterLine(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline + 1;
}

function insertLine(text: string, at: number, line: string, eol: string): string {
  const prefix = at > 0 && text[at - 1] !== '\n' ? eol : '';
  return text.slice(0, at) + prefix + line + eol + text.slice(at);
}

/** Append an entry to an existing sequence in its own style (flow or block, dash indent and spacing). */
function appendToSequence(text: string, seq: YAMLSeq, entry: { block: string; flow: string }, eol: string): string {
  const [start, valueEnd] = seq.range ?? [0, 0];
  if (seq.flow === true) {
    const last = seq.items.at(-1);
    const closing = text.lastIndexOf(']', valueEnd);
    if (isScalar(last) || isMap(last)) return text.slice(0, last.range?.[1]) + `, ${entry.flow}` + text.slice(last.range?.[1]);
    return text.slice(0, closing) + entry.flow + text.slice(closing);
  }
  const first = seq.items[0];
  const dashIndent = ' '.repeat(start - lineStart(text, start));
  const afterDash = isScalar(first) || isMap(first) ? ' '.repeat(Math.max(1, (first.range?.[0] ?? start + 2) - start - 1)) : ' ';
  return insertLine(text, afterLine(text, valueEnd), `${dashIndent}-${afterDash}${entry.block}`, eol);
}

/** How far block sequences are indented under their key in this file (0 when none tells). */
function sequenceIndent(text: string, map: YAMLMap): string {
  for (const pair of map.items) {
    const keyStart = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    const seqStart = isSeq(pair.value) && pair.value.flow !== true ? pair.value.range?.[0] : undefined;
    if (keyStart === undefined || seqStart === undefined) continue;
    return ' '.repeat(Math.max(0, seqStart - lineStart(text, seqStart) - (keyStart - lineStart(text, keyStart))));
  }
  return '';
}

function listsPatch(value: unknown, patchFile: string): boolean {
  if (!Array.isArray(value)) return false;
  return value.some((entry) => {
    const path = typeof entry === 'string' ? entry : isObject(entry) ? entry['path'] : undefined;
    return typeof path === 'string' && posix.normalize(path) === patchFile;
  });
}

/**
 * List `patchFile` in a kustomization's patches by splicing its text: appended to `patches:` (or to a
 * legacy `patchesStrategicMerge:` when that is the file's only patch list), or a new `patches:` key.
 */
export function addPatchToKustomization(text: string, patchFile: string = KERF_PATCH_FILE, file: string = 'kustomization.yaml'): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new KustomizeError('KUSTOMIZE_NOT_A_MAPPING', file, 'is not a YAML mapping; cannot add a patch entry');
  }
  const map = doc.contents;
  const data = doc.toJS() as Record<string, unknown>;
  if (listsPatch(data['patches'], patchFile) || listsPatch(data['patchesStrategicMerge'], patchFile)) return text;
  const eol = lineEnding(text);
  const patches = map.get('patches', true);
  const legacy = map.get('patchesStrategicMerge', true);
  if (isSeq(patches)) return appendToSequence(text, patches, { block: `path: ${patchFile}`, flow: `{path: ${patchFile}}` }, eol);
  if (patches === undefined && isSeq(legacy)) return appendToSequence(text, legacy, { block: patchFile, flow: patchFile }, eol);
  const indent = sequenceIndent(text, map);
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === 'patches');
  if (pair !== undefined) {
    // `patches:` with no list (null): put the list in its place.
    const keyEnd = pair.key !== null && isScalar(pair.key) ? (pair.key.range?.[1] ?? 0) : 0;
    const valueEnd = isScalar(pair.value) ? (pair.value.range?.[1] ?? keyEnd) : keyEnd;
    const colon = text.indexOf(':', keyEnd) + 1;
    const keyIndent = ' '.repeat(keyEnd - lineStart(text, keyEnd) - 'patches'.length);
    return text.slice(0, colon) + `${eol}${keyIndent}${indent}- path: ${patchFile}` + text.slice(Math.max(colon, valueEnd)).replace(/^[ \t]+(?=\r?\n|$)/, '');
  }
  const end = afterLine(text, map.range?.[1] ?? text.length);
  return insertLine(text, end, `patches:${eol}${indent}- path: ${patchFile}`, eol);
}
