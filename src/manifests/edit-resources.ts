// The byte-exact editor of container CPU/memory `resources` (S3, R1, G1: the PR changes those
// fields and nothing else). A pure function, string in and string out, that splices the source at
// the parsed nodes' ranges and never re-serializes a document; every result to be written is
// re-parsed and compared with the original before it is returned.
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, parseDocument } from 'yaml';
import type { Document, Node, Pair, YAMLError, YAMLMap } from 'yaml';
import type { ResourceField } from '../model/types.js';
import { parseQuantity, QuantityError } from '../rules/quantity.js';
import { EditError } from './edit-error.js';
import type { EditErrorSubject } from './edit-error.js';
import { applyChangesJs, cloneTree, findContainerJs, readField, splitField } from './edit-js.js';
import { expandAlias, fillEmpty, insertIntoMap, removePair, replaceValue } from './edit-map-ops.js';
import type { NewEntry, OpContext } from './edit-map-ops.js';
import { applySplices, detectEol, renderScalar } from './edit-text.js';
import type { QuoteStyle, Splice } from './edit-text.js';
import { findEditProblem } from './edit-verify.js';
import { sketchedObject, type DocumentSketch } from './edit-sketch.js';
import { documentBounds } from './screen.js';
import { aliasTargets, detectIndentStep, findPair, hasNestedAnchors, isEmptyValue, PARSE_OPTIONS, quoteStyleOf } from './edit-yaml.js';

/** One field of one container; `to: null` removes the request or limit (N4). */
export interface ResourceEdit {
  container: string;
  field: ResourceField;
  to: string | null;
}

/**
 * Where a document keeps the containers to edit: a pod template (the default) or, for a Helm
 * chart, the mappings of its values that hold each container's `resources`.
 */
export interface ContainerLocator {
  /** The container's mapping and every node from the root down to it (for anchor checks). */
  nodes(doc: Document, name: string, subject: EditErrorSubject): { container: YAMLMap; path: unknown[] };
  /** The same mapping in `toJS()` output, or undefined. */
  js(document: unknown, name: string): Record<string, unknown> | undefined;
  /** Whether the document's kind and name must match the target's (values have none). */
  identified: boolean;
  /** The problem of a container it cannot find. */
  notFound(name: string): string;
}

/** The object to edit: its 0-based index among the file's YAML documents (as `parseAllDocuments` counts them), kind and name. */
export interface DocumentTarget {
  document: number;
  kind: string;
  name: string;
}

// An alias of `resources` and one of `requests`/`limits` may each need copying before the edit.
const MAX_ROUNDS = 3;
const GROUPS = ['requests', 'limits'] as const;

/**
 * Sets or removes `resources.requests/limits` `cpu`/`memory` of named containers (and init
 * containers) of one document of `text`, keeping every other byte. Missing mappings are added in
 * the file's style; a mapping emptied by a removal goes too. Throws `EditError` rather than
 * return text that does not re-parse to exactly the requested change.
 */
export function editResources(text: string, target: DocumentTarget, edits: ResourceEdit[], file: string, locator: ContainerLocator = POD_TEMPLATE): string {
  const editor = new ResourceFileEditor(text, file);
  editor.commit(target.document, editor.edit(target, edits, undefined, locator));
  return editor.render();
}

/**
 * All the resource edits of one file on one parse: each document is edited as its own slice of
 * the text (from where the previous document ends, so its directives come along, to its own end),
 * verified on a parse of that slice alone, and the file is put together in one pass at the end.
 * The cost is one parse of the file plus one of each edited document, however many edits.
 */
export class ResourceFileEditor {
  private layout?: Layout;
  private eol?: string;
  private readonly slices = new Map<number, string>();

  private readonly documents: number | undefined;
  private readonly verify: boolean;
  private readonly sketches: readonly (DocumentSketch | undefined)[] | undefined;

  /**
   * `documents`: how many documents the scan found in `text`. When the markers split the text
   * into as many, only the documents edited are parsed; otherwise the whole text is.
   * `verify: false` is for a dry run whose texts are never written (plan): every refusal is still
   * made, but the result is not re-parsed, a guard for the bytes written that `write` keeps; and
   * with the scan's `sketches` of the documents, an edit that only replaces values already
   * written is placed without parsing the document again (see edit-sketch.ts).
   */
  constructor(
    readonly text: string,
    readonly file: string,
    options: { documents?: number; verify?: boolean; sketches?: readonly (DocumentSketch | undefined)[] } = {},
  ) {
    this.documents = options.documents;
    this.verify = options.verify ?? true;
    this.sketches = options.sketches;
  }

  private documentLayout(): Layout {
    if (!this.layout) {
      const bounds = this.documents === undefined ? undefined : documentBounds(this.text);
      if (bounds && bounds.length === this.documents) this.layout = { bounds };
      else {
        const docs = parseAllDocuments(this.text, PARSE_OPTIONS) as Document.Parsed[];
        const broken = docs.find((doc) => doc.errors.length > 0)?.errors[0];
        this.layout = { bounds: docs.map((doc, i) => ({ start: docs[i - 1]?.range[2] ?? 0, end: doc.range[2] })), docs, ...(broken && { broken }) };
      }
    }
    return this.layout;
  }

  /** The new text of document `target.document` after `edits`, on top of `current` (its text as edited so far, if it was); commits nothing. `locator` finds the containers (a pod template unless told). */
  edit(target: DocumentTarget, edits: ResourceEdit[], current = this.slices.get(target.document), locator: ContainerLocator = POD_TEMPLATE): string {
    const { file } = this;
    const object = `${target.kind}/${target.name}`;
    const layout = this.documentLayout();
    const sketched = current === undefined && !this.verify && locator === POD_TEMPLATE ? this.sketchedEdit(target, edits, layout) : undefined;
    if (sketched !== undefined) return sketched;
    const invalid = (error: YAMLError) => {
      const line = error.linePos?.[0]?.line;
      return new EditError('InvalidYaml', { file, object }, `does not parse${line ? ` at line ${line}` : ''}: ${error.message.split('\n')[0]}`);
    };
    if (layout.broken) throw invalid(layout.broken);
    const bounds = layout.bounds[target.document];
    const original = layout.docs?.[target.document];
    if (!bounds) throw new EditError('DocumentMismatch', { file, object }, `has no document ${target.document} (it has ${layout.bounds.length})`);
    // An edited document was verified to parse as one document on its own.
    const source =
      current !== undefined
        ? sliceSource(current)
        : original
          ? { text: this.text, doc: original, ...bounds }
          : sliceSource(this.text.slice(bounds.start, bounds.end));
    if (!source) throw new EditError('InvalidYaml', { file, object }, `document ${target.document} does not parse as one document on its own`);
    const { doc } = source;
    const [error] = doc.errors;
    if (error) throw invalid(error);
    const kind: unknown = doc.get('kind');
    const name: unknown = doc.getIn(['metadata', 'name']);
    if (locator.identified && (kind !== target.kind || name !== target.name)) {
      throw new EditError('DocumentMismatch', { file, object }, `document ${target.document} is ${String(kind)}/${String(name)}`);
    }
    const before: unknown = doc.toJS({ maxAliasCount: -1 });
    checkQuantities(edits, { file, object });
    const effective = checkEdits(before, edits, { file, object }, locator);

    this.eol ??= detectEol(this.text);
    const eol = this.eol;
    // New values copy the quoting the file had, not quoting an earlier edit of this call chose.
    const styles = new Map<string, QuoteStyle>();
    for (const edit of effective) {
      const subject = { file, object, container: edit.container };
      if (!styles.has(edit.container)) styles.set(edit.container, newValueStyle(locator.nodes(doc, edit.container, subject).container));
    }
    const settingsOf = (edit: ResourceEdit): EditSettings => ({
      subject: { file, object, container: edit.container, field: edit.field },
      locator,
      eol,
      style: styles.get(edit.container) ?? 'PLAIN',
    });
    const edited = editAtOnce(doc, source, effective, settingsOf) ?? editOneByOne(source.text.slice(source.start, source.end), effective, settingsOf);

    const problem = this.verify ? findEditProblem([before], parseAllDocuments(edited, PARSE_OPTIONS), 0, edits, locator.js) : undefined;
    if (problem) throw new EditError('VerifyFailed', { file, object }, problem);
    return edited;
  }

  /**
   * The edited slice when the document's sketch holds every value the edits replace, still written
   * as the scan saw it; undefined for the full path. Refuses as the full path refuses, on the same
   * values in the same order.
   */
  private sketchedEdit(target: DocumentTarget, edits: readonly ResourceEdit[], layout: Layout): string | undefined {
    const sketch = this.sketches?.[target.document];
    const bounds = layout.bounds[target.document];
    if (!sketch || !bounds || layout.docs || sketch.kind !== target.kind || sketch.name !== target.name) return undefined;
    // Two edits of one field depend on each other's outcome: the full path orders them.
    if (new Set(edits.map((edit) => `${edit.container}\u0000${edit.field}`)).size < edits.length) return undefined;
    const slice = this.text.slice(bounds.start, bounds.end);
    const splices: Splice[] = [];
    for (const edit of edits) {
      const written = edit.to === null ? undefined : sketch.containers[edit.container]?.values[edit.field];
      if (!written || edit.to === null || slice.slice(written.start, written.end) !== written.source) return undefined;
      splices.push({ start: written.start, end: written.end, text: renderScalar(edit.to, written.style) });
    }
    const subject = { file: this.file, object: `${target.kind}/${target.name}` };
    checkQuantities(edits, subject);
    checkEdits(sketchedObject(sketch), edits, subject, POD_TEMPLATE);
    return applySplices(slice, splices);
  }

  /** Keeps `slice` (from `edit`) as the text of document `document`. */
  commit(document: number, slice: string): void {
    this.slices.set(document, slice);
  }

  /** The text with every committed document, and those of `pending`, in place, put together in one pass. */
  render(pending: ReadonlyMap<number, string> = new Map()): string {
    if (this.slices.size === 0 && pending.size === 0) return this.text;
    const { bounds } = this.documentLayout();
    const slices = new Map([...this.slices, ...pending]);
    let out = '';
    let at = 0;
    for (const [document, slice] of [...slices].sort(([a], [b]) => a - b)) {
      const { start, end } = bounds[document] as Bounds;
      out += this.text.slice(at, start) + slice;
      at = end;
    }
    return out + this.text.slice(at);
  }
}

interface Bounds {
  start: number;
  end: number;
}

/** Each document's bytes; with `docs` when the whole text was parsed. */
interface Layout {
  bounds: Bounds[];
  docs?: Document.Parsed[];
  broken?: YAMLError;
}

/** One document's text, parsed on its own; undefined when it holds other than one document. */
function sliceSource(text: string): { text: string; doc: Document; start: number; end: number } | undefined {
  const docs = parseAllDocuments(text, PARSE_OPTIONS) as Document[];
  const [doc] = docs;
  return doc && docs.length === 1 ? { text, doc, start: 0, end: text.length } : undefined;
}

/**
 * Follows the edits on the document's plain values: refuses an unknown container or a request
 * left above its limit, and drops removals of fields that are absent by then (so an aliased
 * mapping is not copied for nothing). Returns the edits that change something.
 */
function checkEdits(document: unknown, edits: readonly ResourceEdit[], subject: EditErrorSubject, locator: ContainerLocator): ResourceEdit[] {
  const effective: ResourceEdit[] = [];
  for (const containerName of new Set(edits.map((edit) => edit.container))) {
    const found = locator.js(document, containerName);
    if (!found) throw new EditError('ContainerNotFound', { ...subject, container: containerName }, locator.notFound(containerName));
    const container = cloneTree(found);
    const own = edits.filter((edit) => edit.container === containerName);
    for (const edit of own) {
      if (edit.to === null && readField(container, edit.field) === undefined) continue;
      applyChangesJs(container, [edit]);
      effective.push(edit);
    }
    for (const resource of new Set(own.map((edit) => splitField(edit.field)[1]))) {
      const request = readField(container, `requests.${resource}`);
      const limit = readField(container, `limits.${resource}`);
      if (request === undefined || limit === undefined) continue;
      const field = `requests.${resource}`;
      const [requested, limited] = [request, limit].map((value) => quantity(value, { ...subject, container: containerName, field }));
      if (requested && limited && requested.compare(limited) > 0) {
        throw new EditError('RequestAboveLimit', { ...subject, container: containerName, field }, `request ${request} would be above limit ${limit}`);
      }
    }
  }
  return effective;
}

const ZERO = parseQuantity('0');

/** A request or limit below zero is no resource amount; the API server would refuse the manifest. */
function checkQuantities(edits: readonly ResourceEdit[], subject: EditErrorSubject): void {
  for (const edit of edits) {
    if (edit.to === null) continue;
    const at = { ...subject, container: edit.container, field: edit.field };
    if (quantity(edit.to, at).compare(ZERO) < 0) throw new EditError('InvalidQuantity', at, `${edit.to} is negative`);
  }
}

function quantity(value: string, subject: EditErrorSubject): ReturnType<typeof parseQuantity> {
  try {
    return parseQuantity(value);
  } catch (error) {
    if (error instanceof QuantityError) throw new EditError('InvalidQuantity', subject, error.message, { cause: error });
    throw error;
  }
}

/** Applies one edit to the document's text, re-parsing after each alias copy. */
interface EditSettings {
  subject: EditErrorSubject;
  locator: ContainerLocator;
  eol: string;
  /** Quoting for values the file has no quoting of its own for. */
  style: QuoteStyle;
}

/**
 * Plans every edit on the parse the caller already has and splices them into the document's slice
 * `[start, end)` of `text` in one go; undefined when
 * an edit needs an alias copied first or two edits touch the same spot (then each is planned on a
 * fresh parse of the text the previous one left).
 */
function editAtOnce(
  doc: Document,
  { text, start, end }: { text: string; start: number; end: number },
  edits: readonly ResourceEdit[],
  settingsOf: (edit: ResourceEdit) => EditSettings,
): string | undefined {
  // Two edits of one field depend on each other's outcome.
  if (new Set(edits.map((edit) => `${edit.container}\u0000${edit.field}`)).size < edits.length) return undefined;
  const splices: Splice[] = [];
  // One walk of the document for its anchors serves every edit planned on this parse.
  const targets = aliasTargets(doc);
  for (const edit of edits) {
    const step = planEdit(doc, targets, text, edit, settingsOf(edit));
    if (step.again) return undefined;
    splices.push(...step.splices);
  }
  const ordered = splices.sort((a, b) => a.start - b.start || a.end - b.end);
  if (ordered.some((splice, i) => i > 0 && splice.start <= (ordered[i - 1] as Splice).end)) return undefined;
  return applySplices(text, ordered, start, end);
}

function editOneByOne(slice: string, edits: readonly ResourceEdit[], settingsOf: (edit: ResourceEdit) => EditSettings): string {
  let edited = slice;
  for (const edit of edits) edited = applyEdit(edited, edit, settingsOf(edit));
  return edited;
}

function applyEdit(slice: string, edit: ResourceEdit, settings: EditSettings): string {
  let current = slice;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const doc = parseDocument(current, PARSE_OPTIONS);
    const error = doc.errors[0];
    if (error) throw new EditError('VerifyFailed', settings.subject, `an intermediate edit does not parse: ${error.message.split('\n')[0]}`);
    const step = planEdit(doc, aliasTargets(doc), current, edit, settings);
    current = applySplices(current, step.splices);
    if (!step.again) return current;
  }
  throw new EditError('UnsupportedNode', settings.subject, 'aliases nest deeper than resources and requests/limits');
}

interface PlannedStep {
  splices: Splice[];
  /** The text changed shape (an alias was copied): parse again and plan the edit anew. */
  again: boolean;
}

/** `targets`: the nodes some alias of `doc` points at (aliasTargets), which an edit must not change. */
function planEdit(doc: Document, targets: Set<unknown>, text: string, edit: ResourceEdit, { subject, locator, eol, style }: EditSettings): PlannedStep {
  const fail = (code: 'SharedAnchor' | 'UnsupportedNode', problem: string): EditError => new EditError(code, subject, problem);
  const guard = (node: unknown, what: string): void => {
    if (targets.has(node)) throw fail('SharedAnchor', `${what} is anchor &${(node as Node & { anchor?: string }).anchor} used by an alias; editing it would change every user`);
  };
  const { container, path } = locator.nodes(doc, edit.container, subject);
  path.forEach((node) => guard(node, 'the container or an object above it'));
  const [group, resource] = splitField(edit.field);
  const ctx: OpContext = {
    text,
    eol,
    step: 0,
    keyStyle: 'PLAIN',
    unsupported: (problem) => {
      throw fail('UnsupportedNode', problem);
    },
  };

  // Walk container → resources → requests/limits, remembering each pair and the mapping holding it.
  const chain: { pair: Pair; map: YAMLMap }[] = [];
  let map = container;
  let missing: { at: YAMLMap; key: string; pair?: Pair } | undefined;
  for (const key of ['resources', group]) {
    refuseSpecialKeys(map, key === 'resources' ? 'the container' : 'resources', fail);
    const pair = findPair(map, key);
    const value = pair?.value;
    if (!pair || isEmptyValue(value)) {
      if (pair) guard(value, key);
      missing = pair ? { at: map, key, pair } : { at: map, key };
      break;
    }
    if (isAlias(value)) {
      const anchored = value.resolve(doc);
      if (!isMap(anchored)) throw fail('UnsupportedNode', `${key} is an alias of something other than a mapping`);
      if (hasNestedAnchors(anchored)) throw fail('SharedAnchor', `${key} is alias *${value.source} whose mapping holds anchors or aliases of its own; copying it would re-bind them`);
      ctx.step = detectIndentStep(text, [container, doc.contents]);
      return { splices: expandAlias(ctx, pair, map, anchored), again: true };
    }
    if (!isMap(value)) throw fail('UnsupportedNode', `${key} is not a mapping`);
    guard(value, key);
    chain.unshift({ pair, map });
    map = value;
  }
  const resourcesMap = findPair(container, 'resources')?.value;
  ctx.step = detectIndentStep(text, [isMap(resourcesMap) ? resourcesMap : undefined, container, doc.contents]);
  ctx.keyStyle = quoteStyleOf(container.items[0]?.key) ?? 'PLAIN';
  const leaf = missing ? undefined : findPair(map, resource);
  if (leaf) guard(leaf.value, edit.field);

  if (edit.to === null) {
    if (!leaf) return { splices: [], again: false };
    refuseOddValue(doc, leaf, fail);
    // Remove the highest mapping the removal leaves empty: limits, then resources.
    let top = { pair: leaf, map };
    for (const parent of chain) {
      if (top.map.items.length !== 1) break;
      top = parent;
    }
    return { splices: removePair(ctx, top.pair, top.map), again: false };
  }

  if (leaf) {
    refuseOddValue(doc, leaf, fail);
    return { splices: [replaceValue(ctx, leaf, renderScalar(edit.to, quoteStyleOf(leaf.value) ?? style))], again: false };
  }
  const leafEntry: NewEntry = { key: resource, value: renderScalar(edit.to, style) };
  if (!missing) return { splices: insertIntoMap(ctx, map, leafEntry), again: false };
  const content = missing.key === 'resources' ? { key: group, value: leafEntry } : leafEntry;
  if (missing.pair) return { splices: fillEmpty(ctx, missing.pair, missing.at, content), again: false };
  return { splices: insertIntoMap(ctx, missing.at, { key: missing.key, value: content }), again: false };
}

const POD_TEMPLATE: ContainerLocator = { nodes: locateContainer, js: findContainerJs, identified: true, notFound: () => 'has no such container or init container in spec.template.spec' };

/** The container mapping and every node from the document root down to it (for anchor checks). */
function locateContainer(doc: Document, name: string, subject: EditErrorSubject): { container: YAMLMap; path: unknown[] } {
  const notFound = (): never => {
    throw new EditError('ContainerNotFound', subject, 'has no such container or init container in spec.template.spec');
  };
  const path: unknown[] = [doc.contents];
  let node: unknown = doc.contents;
  for (const key of ['spec', 'template', 'spec']) {
    if (!isMap(node)) return notFound();
    node = findPair(node, key)?.value;
    if (isAlias(node)) throw new EditError('SharedAnchor', subject, `${key} is alias *${node.source} of anchor &${node.source}; editing through it would change the anchor's other users`);
    path.push(node);
  }
  if (!isMap(node)) return notFound();
  for (const list of ['containers', 'initContainers']) {
    const items = findPair(node, list)?.value;
    if (!isSeq(items)) continue;
    for (const item of items.items) {
      if (isAlias(item)) {
        const resolved = item.resolve(doc);
        if (isMap(resolved) && resolved.get('name') === name) {
          throw new EditError('SharedAnchor', subject, `the container is alias *${item.source} of anchor &${item.source}; editing it would change the anchor's other users`);
        }
      } else if (isMap(item) && item.get('name') === name) {
        return { container: item, path: [...path, items, item] };
      }
    }
  }
  return notFound();
}

function refuseSpecialKeys(map: YAMLMap, where: string, fail: (code: 'UnsupportedNode', problem: string) => EditError): void {
  for (const key of ['<<', '$patch']) {
    if (findPair(map, key)) throw fail('UnsupportedNode', `${where} has a ${key} key, whose effect on the edit cannot be known from this file`);
  }
}

/** Only plain or quoted scalars (or an alias of one, which the new value replaces) are edited. */
function refuseOddValue(doc: Document, leaf: Pair, fail: (code: 'UnsupportedNode', problem: string) => EditError): void {
  const value = leaf.value;
  const scalar = isAlias(value) ? value.resolve(doc) : value;
  if (!isScalar(scalar)) throw fail('UnsupportedNode', 'the value is not a scalar');
  if (!isAlias(value) && quoteStyleOf(value) === undefined) throw fail('UnsupportedNode', 'the value is a block scalar');
}

/** Quoting for a value that has no quoting of its own: that of the container's other quantities, else of its name. */
function newValueStyle(container: YAMLMap): QuoteStyle {
  const resources = findPair(container, 'resources')?.value;
  for (const group of GROUPS) {
    const values = isMap(resources) ? findPair(resources, group)?.value : undefined;
    for (const resource of ['cpu', 'memory']) {
      const style = isMap(values) ? quoteStyleOf(findPair(values, resource)?.value) : undefined;
      if (style) return style;
    }
  }
  return quoteStyleOf(findPair(container, 'name')?.value) ?? 'PLAIN';
}
