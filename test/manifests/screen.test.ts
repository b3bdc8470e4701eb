// Screening by kind before parsing (issue 15): the screened text parses to the same documents at
// the same lines, with the skipped ones empty; on hand-made edge cases and every YAML file of the
// real-world corpus and repos.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineCounter, parseAllDocuments } from 'yaml';
import { screenDocuments } from '../../src/manifests/screen.js';
import { corpusDir, hasCorpus } from '../support/corpus.js';

/** Each document's kind (or its value when not an object), first line and toJS(), as the scan reads them. */
function read(text: string) {
  const lineCounter = new LineCounter();
  return parseAllDocuments(text, { lineCounter, uniqueKeys: false }).map((doc) => ({
    line: lineCounter.linePos(doc.range[0]).line,
    errors: doc.errors.length,
    value: doc.errors.length > 0 ? undefined : (doc.toJS({ maxAliasCount: -1 }) as unknown),
  }));
}

const KEPT = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'RightsizingPolicy', 'RightsizingRecommendation', 'Kustomization', 'Component', 'Application', 'AppProject']);
const kindOf = (value: unknown) => (typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined);

/** The screened text reads as the original, but for skipped documents, which are empty and were plainly of another kind. */
function expectScreenedLikeOriginal(text: string): number {
  const screened = screenDocuments(text);
  const original = read(text);
  if (screened === undefined) {
    for (const doc of original) expect(doc.errors === 0 && typeof kindOf(doc.value) === 'string' && !KEPT.has(kindOf(doc.value) as string)).toBe(true);
    return original.length;
  }
  let skipped = 0;
  const after = read(screened);
  expect(after.length).toBe(original.length);
  original.forEach((doc, i) => {
    const got = after[i];
    if (got?.value === null && doc.value !== null) {
      // Skipped: it named one kind, not one the scan reads.
      expect(doc.errors).toBe(0);
      expect(KEPT.has(String(kindOf(doc.value)))).toBe(false);
      skipped++;
    } else {
      expect(got).toEqual(doc);
    }
  });
  return skipped;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '.git' ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

describe('screenDocuments', () => {
  it('blanks Services and ConfigMaps between workloads, keeping document count and lines', () => {
    const text = `# cart
apiVersion: apps/v1
kind: Deployment
metadata: {name: cart}
---
apiVersion: v1
kind: Service   # the cart's
metadata:
  name: cart
---
kind: "ConfigMap"
data:
  kind: Deployment
...
%YAML 1.2
---
kind: StatefulSet
metadata: {name: db}
...
apiVersion: v1
kind: Secret
---
`;
    const screened = screenDocuments(text) as string;
    expect(screened.split('\n').length).toBe(text.split('\n').length);
    expect(read(screened).map((doc) => (doc.value as { metadata?: { name?: string } } | null)?.metadata?.name ?? null)).toEqual(['cart', null, null, 'db', null, null]);
    expectScreenedLikeOriginal(text);
  });

  it('keeps what it cannot tell: content on a marker line, two kinds, a kind that is not a plain word, no kind', () => {
    for (const text of ['--- {kind: Service}\n', 'kind: Service\nkind: Deployment\n', 'kind: !!str Service\n', 'apiVersion: v1\nmetadata: {}\n', '"kind": Deployment\n']) {
      expect(screenDocuments(text)).toBe(text);
    }
    expect(screenDocuments('kind: Service\n---\nkind: Secret\n')).toBeUndefined();
    expectScreenedLikeOriginal('kind: Service\r\nmetadata:\r\n  name: a\r\n---\r\nkind: Deployment\r\n');
  });

  it('keeps a document that mentions the given word (kerf\'s API group) whatever its kind, and kinds the set says it has', () => {
    const text = 'kind: Service\n---\napiVersion: kerf.getkerf.dev/v1alpha1\nkind: Rightsizing\n---\nkind: ConfigMap\n---\nkind: RightsizingPolcy\n';
    const near = { has: (kind: string) => kind === 'RightsizingPolcy' };
    const kinds = read(screenDocuments(text, near, 'kerf.getkerf.dev') as string).map((doc) => (doc.value as { kind?: string } | null)?.kind ?? null);
    expect(kinds).toEqual([null, 'Rightsizing', null, 'RightsizingPolcy']);
    expect(screenDocuments('kind: Service\n---\nkind: Secret\n', near, 'kerf.getkerf.dev')).toBeUndefined();
  });

  const roots = [corpusDir, '/work/shared/realworld/repos'].filter((dir) => hasCorpus || dir !== corpusDir);
  it.skipIf(!hasCorpus)('reads every YAML file of the corpus and the real repos as the full parse does (needs ../shared/corpus)', () => {
    let files = 0;
    let skipped = 0;
    for (const root of roots) {
      for (const file of yamlFiles(root)) {
        skipped += expectScreenedLikeOriginal(readFileSync(file, 'utf8'));
        files++;
      }
    }
    expect(files).toBeGreaterThan(100);
    expect(skipped).toBeGreaterThan(100);
  });
});
