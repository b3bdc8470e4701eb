// The house's plan, held against the code: every folder of src/ stands on one floor, imports run
// only downwards (never sideways between the two top wings, never up), no files import each other
// in a circle, and the README's map of the code names exactly the folders there are.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const src = join(root, 'src');

/** Floors from the top; folders on one floor may not import each other. */
const FLOORS: readonly (readonly string[])[] = [
  ['entry'],
  ['reconcile', 'helper'],
  ['plan'],
  ['import'],
  ['lifecycle'],
  ['git', 'github', 'manifests', 'cluster'],
  ['model'],
  ['rules'],
  ['types', 'util'],
];
/** The top-level files are entry points, except two leaves every floor may read. model/types.ts holds
 * the shapes: the rules take them, and the rest of model/ (validation) stands on the rules. */
const LEAVES = new Set(['version.ts', 'embedded-templates.ts']);
const ENTRY_FILES = new Set(['cli/main.ts', 'helper/main.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function roomOf(file: string): string {
  const path = relative(src, file);
  if (ENTRY_FILES.has(path)) return 'entry';
  if (path === 'model/types.ts') return 'types';
  if (!path.includes('/')) return LEAVES.has(path) ? 'leaf' : 'entry';
  const folder = path.split('/')[0]!;
  return folder === 'action' || folder === 'cli' ? 'entry' : folder;
}

function floorOf(room: string): number {
  if (room === 'leaf') return FLOORS.length;
  const floor = FLOORS.findIndex((rooms) => rooms.includes(room));
  if (floor < 0) throw new Error(`src/${room}/ stands on no floor of the plan`);
  return floor;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((match) => normalize(join(dirname(file), (match[1] ?? match[2])!.replace(/\.js$/, '.ts'))))
    .filter((target) => !relative(src, target).startsWith('..'));
}

const files = sources(src);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('the house', () => {
  it('imports run only downwards', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      targets.flatMap((target) => {
        const [from, to] = [roomOf(file), roomOf(target)];
        if (from === to) return [];
        const [high, low] = [floorOf(from), floorOf(to)];
        return low > high ? [] : [`${relative(root, file)} -> ${relative(root, target)}`];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('has no circle of imports', () => {
    const circles: string[][] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') circles.push(stack.slice(stack.indexOf(target)).map((one) => relative(root, one)));
        else if (!state.has(target) && graph.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  // model/schema.ts reads the CRDs' own schemas from templates/crds/*.yaml, kerf's files, not a
  // user's: validation stands below manifests/, which validates what it scans.
  it('only manifests/ imports yaml', () => {
    const outside = files.filter((file) => roomOf(file) !== 'manifests' && relative(src, file) !== 'model/schema.ts' && /from 'yaml'/.test(readFileSync(file, 'utf8')));
    expect(outside.map((file) => relative(root, file))).toEqual([]);
  });

  it("the README's map names every folder of src/ and no other", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const development = readme.slice(readme.indexOf('## Development'));
    const map = development.slice(0, development.indexOf('\n\n', development.indexOf('| folder |')));
    const named = new Set([...map.matchAll(/`src\/([a-z-]+)\/`/g)].map((match) => match[1]));
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    expect([...named].sort()).toEqual(folders.sort());
    for (const folder of folders) if (folder !== 'action' && folder !== 'cli') floorOf(folder);
  });
});
