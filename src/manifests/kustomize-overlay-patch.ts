import { posix } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument, stringify, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ContainerRecommendation, ResourceName } from '../model/types.js';
import { KustomizeError } from './kustomize-error.js';

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
const RESOURCE_NAMES: readonly ResourceName[] = ['cpu', 'memory'];

type Resources = { requests?: Partial<Record<ResourceName, string | null>>; limits?: Partial<Record<ResourceName, string | null>> };
type PatchContainer = { name: string; resources?: Resources };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function withLineEnding(text: string, eol: string): string {
  return eol === '\n' ? text : text.replace(/\n/g, eol);
}

/** Keep only cpu/memory of requests/limits: anything else in kerf's file would be kerf writing more than R1 allows. */
function resourcesOf(value: unknown): Resources {
  const resources: Resources = {};
  for (const group of ['requests', 'limits'] as const) {
    const source = isRecord(value) ? value[group] : undefined;
    if (!isRecord(source)) continue;
    for (const name of RESOURCE_NAMES) {
      if (!(name in source)) continue;
      const quantity = source[name];
      (resources[group] ??= {})[name] = quantity === null || quantity === undefined ? null : String(quantity);
    }
  }
  return resources;
}

function containersOf(doc: unknown, field: 'containers' | 'initContainers'): PatchContainer[] {
  const spec = isRecord(doc) && isRecord(doc['spec']) && isRecord(doc['spec']['template']) ? doc['spec']['template']['spec'] : undefined;
  const list = isRecord(spec) ? spec[field] : undefined;
  return Array.isArray(list)
    ? list.flatMap((c) => {
        if (!isRecord(c) || typeof c['name'] !== 'string') return [];
        return c['resources'] === undefined ? [{ name: c['name'] }] : [{ name: c['name'], resources: resourcesOf(c['resources']) }];
      })
    : [];
}

/** Names of the target's containers in rendered order; see `renderOverlayPatch`. */
export interface ContainerOrder {
  containers: readonly string[];
  initContainers: readonly string[];
}

function merge(existing: PatchContainer[], updates: OverlayPatchContainer[], order: readonly string[]): PatchContainer[] {
  const merged = existing.map((c) => (c.resources === undefined ? { name: c.name } : { name: c.name, resources: { ...c.resources } }));
  for (const update of updates) {
    let container = merged.find((c) => c.name === update.name);
    if (container === undefined) {
      container = { name: update.name };
      merged.push(container);
    }
    for (const group of ['requests', 'limits'] as const) {
      const values = update[group];
      if (values === undefined || Object.keys(values).length === 0) continue;
      const resources = (container.resources ??= {});
      resources[group] = { ...resources[group], ...values };
    }
  }
  if (merged.length === 0) return merged;
  // kustomize's strategic merge moves the patch's list items to the front; naming every container
  // in its rendered order (name-only where nothing changes) keeps the order as it was.
  const ordered = order.map((name) => merged.find((c) => c.name === name) ?? { name });
  return [...ordered, ...merged.filter((c) => !order.includes(c.name))];
}

function patchDocument(target: OverlayPatchTarget, containers: PatchContainer[], initContainers: PatchContainer[]): string {
  const podSpec: Record<string, PatchContainer[]> = {};
  if (containers.length > 0) podSpec['containers'] = containers;
  if (initContainers.length > 0) podSpec['initContainers'] = initContainers;
  const metadata = target.namespace === undefined ? { name: target.name } : { name: target.name, namespace: target.namespace };
  return stringify({ apiVersion: target.apiVersion, kind: target.kind, metadata, spec: { template: { spec: podSpec } } });
}

function isTarget(doc: unknown, target: OverlayPatchTarget): boolean {
  const metadata = isRecord(doc) && isRecord(doc['metadata']) ? doc['metadata'] : undefined;
  return isRecord(doc) && doc['kind'] === target.kind && metadata?.['name'] === target.name && (metadata['namespace'] ?? undefined) === target.namespace;
}

export interface OverlayPatchOptions {
  /** The target's containers in rendered order (from the resolution); without it, order may change. */
  order?: ContainerOrder;
  /** For error messages. */
  file?: string;
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
  const render = (data: unknown): string =>
    patchDocument(target, merge(containersOf(data, 'containers'), regular, order.containers), merge(containersOf(data, 'initContainers'), init, order.initContainers));
  if (existingText === undefined) return HEADER + render(undefined);
  const file = options.file ?? KERF_PATCH_FILE;
  const eol = lineEnding(existingText);
  const docs = parseAllDocuments(existingText);
  const list = Array.isArray(docs) ? docs : [docs];
  const broken = list.find((doc) => doc.errors.length > 0);
  if (broken !== undefined) {
    throw new KustomizeError('KUSTOMIZE_BAD_PATCH_FILE', file, `does not parse as YAML (${broken.errors[0]?.message ?? 'error'}); kerf will not overwrite it`);
  }
  const existing = list.find((doc) => isTarget(doc.toJS(), target));
  if (existing?.contents?.range === undefined) {
    const hasDocument = list.some((doc) => doc.contents !== null);
    const separator = existingText === '' || existingText.endsWith('\n') ? '' : eol;
    return existingText + separator + (hasDocument ? `---${eol}` : '') + withLineEnding(render(undefined), eol);
  }
  const [start, , end] = existing.contents.range;
  return existingText.slice(0, start) + withLineEnding(render(existing.toJS()), eol) + existingText.slice(end);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
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
    const path = typeof entry === 'string' ? entry : isRecord(entry) ? entry['path'] : undefined;
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
