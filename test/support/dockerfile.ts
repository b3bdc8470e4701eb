// Reads the repo's Dockerfile the way `docker build` would for what the tests need: its stages, and the
// runtime stage's COPY lines laid out in a directory, so the test runs the very files the image holds.
import { cpSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions by stage; `\` continues a line, `#` lines (parser directives included) are comments. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const words = args.split(/\s+/).filter((word) => !word.startsWith('--'));
      stages.push({ from: words[0] ?? '', name: words[1]?.toUpperCase() === 'AS' ? words[2] : undefined, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile: ${upper} before the first FROM`);
    stage.instructions.push({ keyword: upper, args });
  }
  return stages;
}

/** The arguments of an exec-form (JSON array) instruction such as ENTRYPOINT. */
export function execForm(instruction: Instruction | undefined): string[] {
  const parsed: unknown = instruction ? JSON.parse(instruction.args) : undefined;
  if (!Array.isArray(parsed) || !parsed.every((word) => typeof word === 'string')) throw new Error(`Dockerfile: ${instruction?.keyword ?? 'instruction'} is not in exec form`);
  return parsed;
}

function workdir(stage: Stage): string {
  return stage.instructions.filter((i) => i.keyword === 'WORKDIR').reduce((dir, i) => posix.resolve(dir, i.args), '/');
}

/**
 * Copies what the last stage's COPY lines take from the build stage into `layer` (paths kept), from
 * `root`, where `npm run build` has put the same files the build stage makes at its WORKDIR. A
 * directory is copied whole to the target, as `COPY <dir> <target>` copies its contents there.
 * Returns the image paths copied. Only the forms the Dockerfile uses are understood; others throw.
 */
export function layOutRuntimeLayer(stages: Stage[], root: string, layer: string): string[] {
  const runtime = stages.at(-1);
  if (!runtime) throw new Error('Dockerfile: no stage');
  const copied: string[] = [];
  for (const copy of runtime.instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
    const words = copy.args.split(/\s+/);
    const flags = words.filter((word) => word.startsWith('--'));
    const paths = words.filter((word) => !word.startsWith('--'));
    const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
    const source = stages.find((stage) => stage.name === from);
    if (copy.keyword !== 'COPY' || !source || paths.length !== 2 || flags.length !== 1) throw new Error(`Dockerfile: unsupported ${copy.keyword} ${copy.args}`);
    const [from_, to] = paths as [string, string];
    const inBuild = posix.relative(workdir(source), posix.resolve(workdir(source), from_));
    if (inBuild.startsWith('..') || /[*?[]/.test(inBuild)) throw new Error(`Dockerfile: ${from_} is outside the build stage's WORKDIR or a glob`);
    const target = posix.resolve(workdir(runtime), to.endsWith('/') ? posix.join(to, posix.basename(from_)) : to);
    const file = join(root, inBuild);
    mkdirSync(dirname(join(layer, target)), { recursive: true });
    cpSync(file, join(layer, target), { recursive: statSync(file).isDirectory() });
    copied.push(target);
  }
  return copied;
}

/** The directories from `dir` up to the file system's root that hold a node_modules Node could resolve from. */
export function nodeModulesInReach(dir: string, exists: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    if (exists(join(at, 'node_modules'))) found.push(relative('/', at) || '/');
    if (dirname(at) === at) return found;
  }
}
