// Byte-exact edits of a Helm chart's values (Renovate's helm-values manager is the model): the
// manifest editor, pointed at the mapping that holds a container's `resources` instead of a pod
// template's container. Values embedded as a YAML string (an Argo CD `helm.values`, a ConfigMap's
// `values.yaml`) are edited as the YAML they hold and written back into the same block scalar.
import { isDeepStrictEqual } from 'node:util';
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, parseDocument, Scalar } from 'yaml';
import type { Document, YAMLMap } from 'yaml';
import type { HelmValuesSource } from '../../model/types.js';
import { EditError } from '../edit-error.js';
import { editResources, type ContainerLocator, type ResourceEdit } from '../edit-resources.js';
import type { EditErrorSubject } from '../edit-error.js';
import { detectEol } from '../edit-text.js';
import { findPair, PARSE_OPTIONS, rangeOf } from '../edit-yaml.js';
import { isObject } from '../../util/json.js';


/** The plain value at `keys` under `root` (a number-like key indexes a list), or undefined. */
export function valueAt(root: unknown, keys: readonly string[]): unknown {
  let node = root;
  for (const key of keys) node = isObject(node) ? node[key] : Array.isArray(node) && /^\d+$/.test(key) ? node[Number(key)] : undefined;
  return node;
}

/** The values a YAML string holds (an Argo CD `helm.values` as the cluster has it), or undefined when it does not parse. */
export function parseEmbeddedValues(text: string): unknown {
  const document = parseDocument(text, PARSE_OPTIONS);
  return document.errors.length > 0 ? undefined : document.toJS();
}

/** Finds each container's `resources` holder: the mapping at its key path (without the last key, `resources`) under `valuesPath`. */
export function valuesLocator(valuesPath: readonly string[], containers: Readonly<Record<string, readonly string[]>>): ContainerLocator {
  const holderKeys = (name: string): string[] | undefined => {
    const keys = containers[name];
    return keys && [...valuesPath, ...keys.slice(0, -1)];
  };
  return {
    identified: false,
    notFound: (name) => {
      const keys = holderKeys(name);
      return keys ? `the values have no mapping at ${keys.join('.') || 'the root'}` : 'is not mapped to a values path in the helm: entry';
    },
    js(document, name) {
      const keys = holderKeys(name);
      const holder = keys && valueAt(document, keys);
      return isObject(holder) ? holder : undefined;
    },
    nodes(doc, name, subject) {
      const keys = holderKeys(name);
      const path: unknown[] = [doc.contents];
      let node: unknown = doc.contents;
      for (const key of keys ?? []) {
        if (isSeq(node) && /^\d+$/.test(key)) node = node.items[Number(key)];
        else if (isMap(node)) node = findPair(node, key)?.value;
        else break;
        if (isAlias(node)) throw new EditError('SharedAnchor', subject, `${key} is alias *${node.source} of anchor &${node.source}; editing through it would change the anchor's other users`);
        path.push(node);
      }
      if (!keys || !isMap(node)) throw new EditError('ContainerNotFound', subject, `the values have no mapping at ${(keys ?? []).join('.') || 'the root'}`);
      return { container: node as YAMLMap, path };
    },
  };
}

/**
 * Sets or removes CPU/memory requests and limits of the containers `source` maps, in the text of
 * `source.file`, keeping every other byte. Throws `EditError` rather than return anything else.
 */
export function editHelmValues(text: string, source: HelmValuesSource, edits: ResourceEdit[]): string {
  const locator = valuesLocator(source.embedded ? [] : source.valuesPath, source.containers);
  const target = { document: source.document, kind: '', name: '' };
  if (!source.embedded) return editResourcesAs(text, target, edits, source, locator);
  const subject: EditErrorSubject = { file: source.file, object: source.owner, field: source.valuesPath.join('.') };
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  const doc = docs[source.document];
  if (!doc || docs.some((d) => d.errors.length > 0)) throw new EditError('InvalidYaml', subject, 'does not parse');
  const scalar = doc.getIn(source.valuesPath, true);
  if (!isScalar(scalar) || typeof scalar.value !== 'string') throw new EditError('UnsupportedNode', subject, 'is not a string of YAML');
  const inner = scalar.value;
  const edited = editResourcesAs(inner, { document: 0, kind: '', name: '' }, edits, source, locator);
  const after = replaceBlockLines(text, scalar, inner, edited, subject);
  confirmEmbedded(docs, after, source, edited, subject);
  return after;
}

function editResourcesAs(text: string, target: { document: number; kind: string; name: string }, edits: ResourceEdit[], source: HelmValuesSource, locator: ContainerLocator): string {
  try {
    return editResources(text, target, edits, source.file, locator);
  } catch (error) {
    // The manifest editor names a Kind/name; values are the owner's.
    if (error instanceof EditError) {
      const subject = { file: source.file, object: source.owner, ...(error.container !== undefined && { container: error.container }), ...(error.field !== undefined && { field: error.field }) };
      throw new EditError(error.code, subject, error.message.replace(/^.*?: /, ''), { cause: error });
    }
    throw error;
  }
}

/**
 * Writes `edited` into the literal block scalar that held `inner`: the lines before and after the
 * change keep their bytes, the changed ones get the block's indentation. Only `|` blocks with no
 * explicit indentation indicator are edited; a quoted or folded string would need re-escaping.
 */
function replaceBlockLines(text: string, scalar: Scalar, inner: string, edited: string, subject: EditErrorSubject): string {
  const [start, end] = rangeOf(scalar);
  const header = /^\|[+-]?[ \t]*(#.*)?(\r?\n)/.exec(text.slice(start, end));
  if (scalar.type !== Scalar.BLOCK_LITERAL || !header) throw new EditError('UnsupportedNode', subject, 'embedded values are edited only in a `|` block without an indentation indicator');
  const contentStart = start + header[0].length;
  const lineStarts: number[] = [];
  for (let at = contentStart; at < end; at = text.indexOf('\n', at) + 1 || end) lineStarts.push(at);
  const firstContent = text.slice(contentStart, end).split('\n').find((line) => line.trim() !== '') ?? '';
  const indent = /^ */.exec(firstContent)?.[0] ?? '';
  const oldLines = inner.split('\n');
  const newLines = edited.split('\n');
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (tail < oldLines.length - head && tail < newLines.length - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) tail++;
  // Lines added after the block's last line (a mapping inserted under its last key) go at its end.
  const from = lineStarts[head] ?? (head === lineStarts.length ? end : undefined);
  const to = lineStarts[oldLines.length - tail] ?? end;
  if (from === undefined) throw new EditError('VerifyFailed', subject, 'the edited lines lie outside the block');
  const eol = detectEol(text);
  const replaced = newLines.slice(head, newLines.length - tail).map((line) => (line === '' ? '' : `${indent}${line}`) + eol).join('');
  const withoutLast = replaced.slice(0, replaced.length - eol.length);
  // Added after a last line that has no newline of its own (the end of a file), they start with one and end without.
  if (from === to && text[from - 1] !== '\n') return text.slice(0, from) + eol + withoutLast + text.slice(to);
  // A block at the very end of a file without a last newline stays without one.
  const ending = from === to || text.slice(from, to).endsWith('\n') ? replaced : withoutLast;
  return text.slice(0, from) + ending + text.slice(to);
}

/** The edited file must hold exactly `edited` in the string and read as before everywhere else. */
function confirmEmbedded(before: Document.Parsed[], after: string, source: HelmValuesSource, edited: string, subject: EditErrorSubject): void {
  const docs = parseAllDocuments(after, PARSE_OPTIONS);
  const fail = (problem: string): never => {
    throw new EditError('VerifyFailed', subject, problem);
  };
  if (docs.some((doc) => doc.errors.length > 0) || docs.length !== before.length) fail('the edited file does not parse into the same documents');
  docs.forEach((doc, i) => {
    const old = before[i] as Document.Parsed;
    if (i === source.document) {
      if (doc.getIn(source.valuesPath) !== edited) fail('the string does not hold the edited values after writing it back');
      old.setIn(source.valuesPath, edited);
    }
    if (!isDeepStrictEqual(doc.toJS({ maxAliasCount: -1 }), old.toJS({ maxAliasCount: -1 }))) fail(`document ${i} changed beyond the values`);
  });
}
