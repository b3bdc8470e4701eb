// What plan's dry run needs of a workload document to place the commonest edit without parsing it
// again: where each container's CPU and memory values are written and how they are quoted, taken
// from the scan's own parse. It serves only an edit that replaces values already written, in a
// document with no anchors, aliases or tags and none of the keys whose effect the editor refuses
// to guess; anything else (and every edit `write` writes, which is verified) takes the editor's
// full path. The result is the editor's, byte for byte (test/manifests/edit-sketch.test.ts).
import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, YAMLMap } from 'yaml';
import { RESOURCE_FIELDS, type ResourceField } from '../model/types.js';
import type { QuoteStyle } from './edit-text.js';
import { findPair, quoteStyleOf, rangeOf } from './edit-yaml.js';

/** One value as written: its offsets in the document's slice, its source, quoting and value as `toJS()` reads it. */
export interface SketchedValue {
  start: number;
  end: number;
  source: string;
  style: QuoteStyle;
  value: unknown;
}

export interface DocumentSketch {
  kind: string;
  name: string;
  /** By container name (containers, then init containers): every CPU and memory value it has, each plainly written. */
  containers: Record<string, { init: boolean; values: Partial<Record<ResourceField, SketchedValue>> }>;
}

/** Keys that make an edit's effect unknowable from the document alone (merge keys, patch directives): the editor refuses them. */
const SPECIAL_KEYS = ['<<', '$patch'];

/**
 * The sketch of a parsed workload document whose slice of the file begins at `sliceStart` (in
 * `text`), or undefined when the document has anchors, aliases or tags (`&`, `*`, `!` anywhere in
 * its source) or no pod template. Containers whose values are not all plain scalars, or that carry
 * special keys, or whose name is used twice, are left out.
 */
export function sketchDocument(doc: Document.Parsed, text: string, sliceStart: number): DocumentSketch | undefined {
  const [start, , end] = doc.range;
  if (/[&*!]/.test(text.slice(start, end))) return undefined;
  const kind: unknown = doc.get('kind');
  const name: unknown = doc.getIn(['metadata', 'name']);
  if (typeof kind !== 'string' || typeof name !== 'string') return undefined;
  let spec: unknown = doc.contents;
  for (const key of ['spec', 'template', 'spec']) spec = isMap(spec) ? findPair(spec, key)?.value : undefined;
  if (!isMap(spec)) return undefined;
  const containers: DocumentSketch['containers'] = {};
  const seen = new Set<string>();
  for (const list of ['containers', 'initContainers']) {
    const items = findPair(spec, list)?.value;
    if (!isSeq(items)) continue;
    for (const item of items.items) {
      const containerName: unknown = isMap(item) ? item.get('name') : undefined;
      if (typeof containerName !== 'string') continue;
      if (seen.has(containerName)) {
        delete containers[containerName];
        continue;
      }
      seen.add(containerName);
      const values = isMap(item) ? sketchValues(item, text, sliceStart) : undefined;
      if (values) containers[containerName] = { init: list === 'initContainers', values };
    }
  }
  return { kind, name, containers };
}

function hasSpecialKey(map: YAMLMap): boolean {
  return SPECIAL_KEYS.some((key) => findPair(map, key) !== undefined);
}

function sketchValues(container: YAMLMap, text: string, sliceStart: number): DocumentSketch['containers'][string]['values'] | undefined {
  if (hasSpecialKey(container)) return undefined;
  const resources = findPair(container, 'resources')?.value;
  if (!isMap(resources) || hasSpecialKey(resources)) return undefined;
  const values: Partial<Record<ResourceField, SketchedValue>> = {};
  for (const field of RESOURCE_FIELDS) {
    const [group, resource] = field.split('.') as [string, string];
    const groupPair = findPair(resources, group);
    if (!groupPair) continue;
    if (!isMap(groupPair.value)) return undefined;
    const pair = findPair(groupPair.value, resource);
    if (!pair) continue;
    const node = pair.value;
    const style = quoteStyleOf(node);
    if (!isScalar(node) || style === undefined) return undefined;
    const [start, end] = rangeOf(node);
    if (start === end) return undefined;
    values[field] = { start: start - sliceStart, end: end - sliceStart, source: text.slice(start, end), style, value: node.value };
  }
  return values;
}

/** The document's containers as `toJS()` gives their CPU and memory values, for the editor's checks. */
export function sketchedObject(sketch: DocumentSketch): unknown {
  const lists: Record<'containers' | 'initContainers', unknown[]> = { containers: [], initContainers: [] };
  for (const [name, { init, values }] of Object.entries(sketch.containers)) {
    const resources: Record<string, Record<string, unknown>> = {};
    for (const [field, written] of Object.entries(values)) {
      const [group, resource] = field.split('.') as [string, string];
      (resources[group] ??= {})[resource] = written.value;
    }
    lists[init ? 'initContainers' : 'containers'].push({ name, resources });
  }
  return { kind: sketch.kind, metadata: { name: sketch.name }, spec: { template: { spec: lists } } };
}
