// One file of the repo scan, read, screened and parsed: what a scan worker runs, so it imports
// nothing more than that needs (no validation, no schemas).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_GROUP, KERF_KINDS, type PlanError } from '../model/types.js';
import { isWorkloadKind, workloadFields } from '../model/workload.js';
import { didYouMean } from '../util/did-you-mean.js';
import { isObject } from '../util/json.js';
import { decodeUtf8, parseFile, type ScannedFile } from './scanned-file.js';
import { SCANNED_KINDS, screenDocuments } from './screen.js';

/** One file of the scan: whether it is read whole (kustomize may render it), and a kustomization's text, already read. */
export interface FileScan {
  name: string;
  whole: boolean;
  kustomizationText?: string;
}

/** A file as the scan keeps it (none when it is not UTF-8 or the screen keeps nothing of it), and its problems. */
export interface FileScanResult {
  scanned?: ScannedFile;
  errors: PlanError[];
}

/**
 * What the screen keeps: the kinds the scan reads, and kinds near kerf's (a misspelt kind of
 * kerf's must still be reported; documents naming kerf's API group are kept as well).
 */
const nearKerfKinds = new Map<string, boolean>();
const SCREENED_KINDS = {
  has: (kind: string): boolean => {
    if (SCANNED_KINDS.has(kind)) return true;
    if (!nearKerfKinds.has(kind)) nearKerfKinds.set(kind, didYouMean(kind, KERF_KINDS) !== undefined);
    return nearKerfKinds.get(kind) === true;
  },
};

/**
 * One file of the repo, read, screened and parsed. Read synchronously: a fleet's repo is thousands of
 * small files, and the promise API's round trips through the thread pool cost more per file than the reads.
 */
export function scanFile(root: string, { name, whole, kustomizationText }: FileScan): FileScanResult {
  const errors: PlanError[] = [];
  const text = kustomizationText ?? decodeUtf8(name, readFileSync(join(root, name)), errors);
  if (text === undefined) return { errors };
  // What kustomize may render is read whole: its Services and ConfigMaps are objects of the rendering too.
  // Elsewhere a document is parsed when its kind is one the scan reads, near one of kerf's (to report
  // the misspelling), or it names kerf's API group; a document parsed is checked in full (duplicate
  // keys, alias bombs), and the whole file's bytes were checked as UTF-8 above.
  // A JSON 6902 patch (a list, no `kind`) is kept by the screen too, as is any document whose kind it cannot tell.
  const screened = whole ? text : screenDocuments(text, SCREENED_KINDS, API_GROUP);
  if (screened === undefined) return { errors };
  const parsed = parseFile(name, screened, errors, !whole);
  const { lines, broken } = parsed;
  // Memory grows with the workloads, not the repo's bytes: until the index takes them, workloads
  // outside kustomize (which reads its files whole) are held as the fields it reads.
  const documents = whole ? parsed.documents : parsed.documents.map((doc) => (isObject(doc) && isWorkloadKind(doc.kind) ? workloadFields(doc) : doc));
  // The text stays only for a file with a document that does not parse: a guess at what it holds.
  const { sketches } = parsed;
  return { scanned: { documents, lines, ...(broken && { broken, text: screened }), ...(whole && { named: true }), ...(sketches && { sketches }) }, errors };
}
