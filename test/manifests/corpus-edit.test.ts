// Every Deployment, StatefulSet and DaemonSet of the shared real-world corpus, edited with
// seeded random recommendations: only the CPU/memory fields may read differently afterwards,
// and every line outside the edited ones must survive byte for byte (R1).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EditError } from '../../src/manifests/edit-error.js';
import { editResources } from '../../src/manifests/edit-resources.js';
import type { ResourceEdit } from '../../src/manifests/edit-resources.js';
import { WORKLOAD_KINDS } from '../../src/model/types.js';
import type { ResourceField, ResourceName } from '../../src/model/types.js';
import { parseQuantity } from '../../src/rules/quantity.js';
import { corpusDir as CORPUS, hasCorpus } from '../support/corpus.js';
import { withoutCpuMemory } from '../support/cpu-memory.js';


/** Refusals the corpus is known to need, by file: each is a case the editor must not guess at. */
const EXPECTED_REFUSALS: Record<string, string> = {
  // `resources: {$patch: delete}`: adding values to a mapping the patch deletes would mean nothing.
  'kubernetes-sigs__metrics-server/manifests/components/autoscale/patch.yaml': 'UnsupportedNode',
};

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

/** mulberry32: small, seeded, the same sequence on every run. */
function random(seedText: string): () => number {
  let seed = [...seedText].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0, 2166136261);
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES: Record<ResourceName, string[]> = {
  cpu: ['5m', '100m', '250m', '1', '1500m', '2', '0.5'],
  memory: ['16Mi', '128Mi', '1Gi', '1536Mi', '2Gi', '512M', '3G'],
};

function podSpec(doc: unknown): Json | undefined {
  const template = isJson(doc) && isJson(doc['spec']) ? doc['spec']['template'] : undefined;
  const spec = isJson(template) ? template['spec'] : undefined;
  return isJson(spec) ? spec : undefined;
}

function containersOf(doc: unknown): Json[] {
  const spec = podSpec(doc);
  const lists = [spec?.['containers'], spec?.['initContainers']];
  return lists.flatMap((list) => (Array.isArray(list) ? list.filter(isJson) : []));
}

function current(container: Json, group: 'requests' | 'limits', name: ResourceName): string | undefined {
  const resources = container['resources'];
  const values = isJson(resources) ? resources[group] : undefined;
  const value = isJson(values) ? values[name] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

/** A recommendation per container and resource: set both, set one (keeping request ≤ limit), remove, or leave. */
function recommend(container: Json, next: () => number): ResourceEdit[] {
  const name = String(container['name']);
  const edits: ResourceEdit[] = [];
  const pick = (list: string[]): string => list[Math.floor(next() * list.length)] as string;
  const atMost = (a: string, b: string): boolean => parseQuantity(a).compare(parseQuantity(b)) <= 0;
  for (const resource of ['cpu', 'memory'] as const) {
    const request = `requests.${resource}` as ResourceField;
    const limit = `limits.${resource}` as ResourceField;
    const value = pick(VALUES[resource]);
    const existingLimit = current(container, 'limits', resource);
    const existingRequest = current(container, 'requests', resource);
    switch (Math.floor(next() * 6)) {
      case 0:
        break;
      case 1:
        edits.push({ container: name, field: request, to: value }, { container: name, field: limit, to: value });
        break;
      case 2:
        edits.push({ container: name, field: request, to: value });
        if (existingLimit !== undefined && !atMost(value, existingLimit)) edits.push({ container: name, field: limit, to: null });
        break;
      case 3:
        edits.push({ container: name, field: limit, to: value });
        if (existingRequest !== undefined && !atMost(existingRequest, value)) edits.push({ container: name, field: request, to: value });
        break;
      case 4:
        edits.push({ container: name, field: limit, to: null });
        break;
      default:
        edits.push({ container: name, field: request, to: null }, { container: name, field: limit, to: null });
    }
  }
  return edits;
}

/** Lines of `a` not matched by a line of `b` (a multiset difference). */
function missingLines(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of b) counts.set(line, (counts.get(line) ?? 0) + 1);
  return a.filter((line) => {
    const left = counts.get(line) ?? 0;
    counts.set(line, left - 1);
    return left <= 0;
  });
}

/** Which line-break kinds a text uses: an edit of a CRLF file must not bring in a bare LF. */
function lineBreaks(text: string): { crlf: boolean; lf: boolean } {
  const crlf = text.split('\r\n').length - 1;
  return { crlf: crlf > 0, lf: text.split('\n').length - 1 > crlf };
}

// A line an edit may add, change or remove: a resources key, a flow mapping's closing brace, or
// the `{}` Helm puts on the line after `resources:`.
const RESOURCE_LINE = /^\s*(-\s+)?["']?(resources|requests|limits|cpu|memory)["']?\s*:|^\s*\{?\},?\r?$/;

interface Workload {
  document: number;
  kind: string;
  name: string;
  containers: Json[];
}

const files = (hasCorpus ? yamlFiles(CORPUS) : [])
  .map((path) => {
    const text = readFileSync(path, 'utf8');
    const docs = parseAllDocuments(text, { uniqueKeys: false });
    const broken = docs.some((doc) => doc.errors.length > 0);
    const workloads: Workload[] = [];
    docs.forEach((doc, document) => {
      if (doc.errors.length > 0) return;
      const js: unknown = doc.toJS({ maxAliasCount: -1 });
      const kind = isJson(js) ? js['kind'] : undefined;
      const name = isJson(js) && isJson(js['metadata']) ? js['metadata']['name'] : undefined;
      if (!WORKLOAD_KINDS.includes(kind as never) || typeof name !== 'string') return;
      const containers = containersOf(js).filter((container) => typeof container['name'] === 'string');
      if (containers.length > 0) workloads.push({ document, kind: kind as string, name, containers });
    });
    return { file: relative(CORPUS, path), text, broken, workloads };
  })
  .filter((entry) => entry.workloads.length > 0 || entry.broken);

describe.skipIf(!hasCorpus)('corpus: R1 edits change only CPU/memory fields (skipped when the shared corpus is absent)', () => {
  it('covers the corpus workloads', () => {
    const workloads = files.reduce((sum, entry) => sum + entry.workloads.length, 0);
    // The corpus README counts about 99 Deployments, 26 StatefulSets and 5 DaemonSets.
    expect(workloads).toBeGreaterThanOrEqual(120);
  });

  it.each(files.filter((entry) => entry.broken))('a file that does not parse is refused, not rewritten: $file', ({ text, file }) => {
    expect(() => editResources(text, { document: 0, kind: 'Deployment', name: 'x' }, [], file)).toThrow(expect.objectContaining({ code: 'InvalidYaml' }));
  });

  it.each(files.filter((entry) => !entry.broken))('R1: $file', ({ file, text, workloads }) => {
    const before = parseAllDocuments(text, { uniqueKeys: false }).map((doc) => doc.toJS({ maxAliasCount: -1 }) as unknown);
    const refusals: string[] = [];
    for (const workload of workloads) {
      const next = random(`${file}#${workload.document}`);
      const edits = workload.containers.flatMap((container) => recommend(container, next));
      const target = { document: workload.document, kind: workload.kind, name: workload.name };
      let edited: string;
      try {
        edited = editResources(text, target, edits, file);
      } catch (error) {
        if (!(error instanceof EditError)) throw new Error(`${target.kind}/${target.name} with ${JSON.stringify(edits)}`, { cause: error });
        refusals.push(error.code);
        continue;
      }
      const docs = parseAllDocuments(edited, { uniqueKeys: false });
      expect(docs.flatMap((doc) => doc.errors)).toEqual([]);
      const after = docs.map((doc) => doc.toJS({ maxAliasCount: -1 }) as unknown);
      expect(after.length).toBe(before.length);
      after.forEach((doc, index) => {
        if (index !== workload.document) expect(isDeepStrictEqual(doc, before[index])).toBe(true);
      });
      expect(withoutCpuMemory(after[workload.document], containersOf)).toEqual(withoutCpuMemory(before[workload.document], containersOf));

      const finalValues = new Map(edits.map((edit) => [`${edit.container} ${edit.field}`, edit.to]));
      for (const [key, to] of finalValues) {
        const [containerName, field] = key.split(' ') as [string, ResourceField];
        const container = containersOf(after[workload.document]).find((candidate) => candidate['name'] === containerName);
        const [group, resource] = field.split('.') as ['requests' | 'limits', ResourceName];
        expect(container && current(container, group, resource), `${workload.name} ${key}`).toBe(to ?? undefined);
      }

      const oldLines = text.split('\n');
      const newLines = edited.split('\n');
      expect(missingLines(oldLines, newLines).filter((line) => !RESOURCE_LINE.test(line))).toEqual([]);
      expect(missingLines(newLines, oldLines).filter((line) => !RESOURCE_LINE.test(line))).toEqual([]);
      expect(edited.endsWith('\n')).toBe(text.endsWith('\n'));
      expect(lineBreaks(edited)).toEqual(lineBreaks(text));
    }
    expect(refusals).toEqual(EXPECTED_REFUSALS[file] ? [EXPECTED_REFUSALS[file]] : []);
  });
});
