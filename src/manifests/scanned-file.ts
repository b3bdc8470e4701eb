// One YAML file as the scan reads it: decoded as UTF-8 (or refused, naming the file), split into
// documents, each parsed to plain data with its first line and its parse error.
import { LineCounter, parseAllDocuments } from 'yaml';
import type { PlanError } from '../model/types.js';
import { isWorkloadKind } from '../model/workload.js';
import { sketchDocument, type DocumentSketch } from './edit-sketch.js';
import { documentBounds } from './screen.js';

export interface ScannedFile {
  /** The text parsed; the repo scan drops it (edits read the few files they touch again). */
  text?: string;
  /**
   * toJS() of each YAML document, in order; null for a document that did not parse, was screened
   * out by its kind, or, outside kustomize renderings, is held by the index as what it is.
   */
  documents: unknown[];
  /** 1-based first line of each document. */
  lines: number[];
  /** The parse error of each document that did not parse, by document index. */
  broken?: Map<number, PlanError>;
  /** A kustomization names it (or may: every word of its text is taken as a path): read whole, its documents kept. */
  named?: boolean;
  /** Where its workload documents write their CPU and memory values, by document (see edit-sketch.ts); not for files read whole. */
  sketches?: readonly (DocumentSketch | undefined)[];
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The file's text; undefined (with an error naming the file) when it is not UTF-8, which YAML requires. */
export function decodeUtf8(name: string, bytes: Uint8Array, errors: PlanError[]): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    const line = bytes.subarray(0, at).filter((byte) => byte === 0x0a).length + 1;
    errors.push({ code: 'NotUtf8', file: name, line, message: `${name}:${line}: is not UTF-8 (byte 0x${(bytes[at] ?? 0).toString(16)} at offset ${at}); YAML files must be UTF-8, so nothing in it is read` });
    return undefined;
  }
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  let low = 0;
  let high = bytes.length;
  // Binary search for the shortest prefix that fails to decode (a cut inside a valid character does not count as invalid when streaming).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  while (low < high) {
    const mid = (low + high) >> 1;
    try {
      decoder.decode(bytes.subarray(0, mid + 1), { stream: true });
      low = mid + 1;
    } catch {
      high = mid;
    }
  }
  return low;
}

/** `sketch`: sketch the workload documents (see edit-sketch.ts). */
export function parseFile(name: string, text: string, errors: PlanError[], sketch = false): ScannedFile & { text: string } {
  const lineCounter = new LineCounter();
  const documents: unknown[] = [];
  const lines: number[] = [];
  const broken = new Map<number, PlanError>();
  const sketches: (DocumentSketch | undefined)[] = [];
  let bounds: { start: number }[] | undefined;
  // Duplicate keys are errors, as kubectl refuses them: which of the two would count is anyone's guess.
  for (const doc of parseAllDocuments(text, { lineCounter, uniqueKeys: true })) {
    const line = lineCounter.linePos(doc.range[0]).line;
    lines.push(line);
    const [error] = doc.errors;
    if (error) {
      const at = error.linePos?.[0];
      const code = error.code === 'DUPLICATE_KEY' ? 'DuplicateKey' : 'YamlSyntax';
      const problem: PlanError = { code, file: name, line: at?.line ?? line, ...(at && { column: at.col }), message: `${name}:${at?.line ?? line}: ${error.message.split('\n')[0]}` };
      errors.push(problem);
      broken.set(documents.length, problem);
      documents.push(null);
      continue;
    }
    try {
      // The parser's default alias budget: an alias bomb is one error for its file, not a run out of memory.
      const object: unknown = doc.toJS();
      if (sketch && isWorkloadKind((object as { kind?: unknown } | null)?.kind)) {
        bounds ??= documentBounds(text);
        const start = bounds[documents.length]?.start;
        if (start !== undefined) sketches[documents.length] = sketchDocument(doc, text, start);
      }
      documents.push(object);
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error;
      const problem: PlanError = { code: 'AliasLimit', file: name, line, message: `${name}:${line}: ${error.message}; the document is not read` };
      errors.push(problem);
      broken.set(documents.length, problem);
      documents.push(null);
    }
  }
  // A sketch's offsets are in its document's slice as the markers split the text: only when they split it as the parser did.
  const sliced = bounds !== undefined && bounds.length === documents.length && sketches.some(Boolean);
  return { text, documents, lines, ...(broken.size > 0 && { broken }), ...(sliced && { sketches }) };
}
