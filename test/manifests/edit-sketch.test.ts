// Plan's dry run places an edit that only replaces values already written from the scan's sketch
// of the document, without parsing it again. It must give the editor's full path's text, byte for
// byte, and refuse what it refuses; and leave to the full path what the sketch cannot vouch for.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResourceField } from '../../src/model/types.js';
import { EditError } from '../../src/manifests/edit-error.js';
import { ResourceFileEditor, type ResourceEdit } from '../../src/manifests/edit-resources.js';
import type { DocumentSketch } from '../../src/manifests/edit-sketch.js';
import { parseFile } from '../../src/manifests/scanned-file.js';
import { screenDocuments } from '../../src/manifests/screen.js';
import { corpusDir, hasCorpus } from '../support/corpus.js';

const realworldCandidates = [join(import.meta.dirname, '../../../shared/realworld/repos'), '/work/shared/realworld/repos'];
const realworldDir = realworldCandidates.find((dir) => existsSync(dir));
const NEW: Record<ResourceField, string> = { 'requests.cpu': '123m', 'requests.memory': '321Mi', 'limits.cpu': '1234m', 'limits.memory': '4321Mi' };

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === '.git' || entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry)) out.push(path);
  }
  return out;
}

type Outcome = { text: string } | { refused: string };

function outcome(place: () => string): Outcome {
  try {
    return { text: place() };
  } catch (error) {
    if (error instanceof EditError) return { refused: `${error.code} ${error.message}` };
    throw error;
  }
}

/** The edit placed from the sketch (plan's dry run) and by the full path with its verification (write). */
function bothWays(text: string, file: string, at: number, sketch: DocumentSketch, documents: number, edits: ResourceEdit[]): { sketched: Outcome; full: Outcome } {
  const target = { document: at, kind: sketch.kind, name: sketch.name };
  const sketches: (DocumentSketch | undefined)[] = [];
  sketches[at] = sketch;
  const dryRun = new ResourceFileEditor(text, file, { documents, verify: false, sketches });
  const sketched = outcome(() => dryRun.edit(target, edits));
  const full = outcome(() => new ResourceFileEditor(text, file, { documents }).edit(target, edits));
  return { sketched, full };
}

/** Every sketched value of every workload document of `text`, replaced, both ways; how many documents were tried. */
function compareFile(text: string, file: string): number {
  const screened = screenDocuments(text);
  if (screened === undefined) return 0;
  const scanned = parseFile(file, screened, [], true);
  let tried = 0;
  scanned.sketches?.forEach((sketch, at) => {
    if (!sketch) return;
    for (const [container, { values }] of Object.entries(sketch.containers)) {
      const edits = (Object.keys(values) as ResourceField[]).map((field) => ({ container, field, to: NEW[field] }));
      if (edits.length === 0) continue;
      const { sketched, full } = bothWays(text, file, at, sketch, scanned.documents.length, edits);
      expect(sketched, `${file} document ${at} container ${container}`).toEqual(full);
      tried++;
    }
  });
  return tried;
}

const web = (resources: string, extra = '') => `# the web tier
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: app${extra}
          resources:
${resources}
---
apiVersion: v1
kind: Service
metadata: {name: web}
`;

function sketchOf(text: string): { sketch: DocumentSketch | undefined; documents: number } {
  const scanned = parseFile('web.yaml', text, [], true);
  return { sketch: scanned.sketches?.[0], documents: scanned.documents.length };
}

describe("plan's sketched edits", () => {
  const cases: Record<string, string> = {
    'plain values': '            requests: {cpu: 100m, memory: 128Mi}\n            limits: {memory: 256Mi}',
    'quoted values and comments': `            requests:\n              cpu: "100m" # raised in May\n              memory: '128Mi'\n            limits:\n              memory: 256Mi`,
    'numbers': '            requests: {cpu: 1, memory: 1073741824}\n            limits: {cpu: 2}',
  };
  for (const [name, resources] of Object.entries(cases)) {
    it(`gives the full path's text for ${name}, with CRLF line ends too`, () => {
      for (const text of [web(resources), web(resources).replaceAll('\n', '\r\n')]) {
        const { sketch, documents } = sketchOf(text);
        expect(sketch).toBeDefined();
        const values = sketch?.containers.app?.values ?? {};
        const edits = (Object.keys(values) as ResourceField[]).map((field) => ({ container: 'app', field, to: NEW[field] }));
        const { sketched, full } = bothWays(text, 'web.yaml', 0, sketch as DocumentSketch, documents, edits);
        expect(sketched).toEqual(full);
        expect('text' in sketched && sketched.text).toContain('123m');
      }
    });
  }

  it('refuses as the full path does: a request above its limit, a negative value', () => {
    const text = web('            requests: {cpu: 100m, memory: 128Mi}\n            limits: {memory: 256Mi}');
    const { sketch, documents } = sketchOf(text);
    for (const edits of [[{ container: 'app', field: 'requests.memory' as const, to: '1Gi' }], [{ container: 'app', field: 'requests.cpu' as const, to: '-1' }]]) {
      const { sketched, full } = bothWays(text, 'web.yaml', 0, sketch as DocumentSketch, documents, edits);
      expect(sketched).toEqual(full);
      expect(sketched).toHaveProperty('refused');
    }
  });

  it('leaves to the full path what it cannot vouch for', () => {
    // Anchors or aliases anywhere: no sketch at all.
    expect(sketchOf(web('            requests: &r {cpu: 100m, memory: 128Mi}')).sketch).toBeUndefined();
    // A merge key in the container, a block scalar value: the container is not sketched.
    expect(sketchOf(web('            requests: {cpu: 100m}', '\n          "<<": {}')).sketch?.containers).toEqual({});
    expect(sketchOf(web('            requests:\n              cpu: |\n                100m')).sketch?.containers).toEqual({});
    // A value to add or remove, or a value changed since the scan: the full path places it.
    const text = web('            requests: {cpu: 100m}');
    const { sketch, documents } = sketchOf(text);
    const dryRun = (source: string, edits: ResourceEdit[]) => new ResourceFileEditor(source, 'web.yaml', { documents, verify: false, sketches: [sketch] }).edit({ document: 0, kind: 'Deployment', name: 'web' }, edits);
    const full = (source: string, edits: ResourceEdit[]) => new ResourceFileEditor(source, 'web.yaml', { documents }).edit({ document: 0, kind: 'Deployment', name: 'web' }, edits);
    const add = [{ container: 'app', field: 'limits.memory' as const, to: '1Gi' }];
    expect(dryRun(text, add)).toEqual(full(text, add));
    const changed = text.replace('cpu: 100m', 'cpu: 200m');
    const replace = [{ container: 'app', field: 'requests.cpu' as const, to: '300m' }];
    expect(dryRun(changed, replace)).toEqual(full(changed, replace));
  });

  const repos = [realworldDir, hasCorpus ? corpusDir : undefined].filter((dir): dir is string => dir !== undefined);
  if (repos.length === 0) it.skip('every workload of the real repos (none at ../shared/realworld/repos or ../shared/corpus)', () => {});
  for (const dir of repos) {
    it(`gives the full path's text for every sketched container of ${dir}`, () => {
      let tried = 0;
      for (const path of yamlFiles(dir)) {
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path));
        } catch {
          continue;
        }
        tried += compareFile(text, path.slice(dir.length + 1));
      }
      // Most of these repos' workloads are Helm templates or have no resources: dozens are sketched, not hundreds.
      expect(tried).toBeGreaterThan(20);
    }, 120_000);
  }
});
