// Reads what a run needs from disk: the repo index, the config and the recommendations.
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { KerfConfig, PlanError, RightsizingRecommendation } from '../model/types.js';
import { API_VERSION } from '../model/types.js';
import { CONFIG_DEFAULTS, validateRecommendation } from '../model/validate.js';
import { indexRepo, misspeltKerfObject, readRepoFiles, type RepoIndex } from '../manifests/scan.js';
import { decodeUtf8, parseFile } from '../manifests/scanned-file.js';
import { readConfigText } from '../manifests/config-file.js';
import { documentLocator } from '../manifests/yaml-locate.js';
import { addHelmWorkloads } from '../manifests/helm/workloads.js';
import { applyKustomizeValues, buildGraph, kustomizeErrors } from '../manifests/kustomize-values.js';
import { repoView } from '../manifests/targeting.js';
import { StringPool } from '../util/string-pool.js';
import { InputError } from '../util/input-error.js';

/** Config problems no run can go on with: where to scan, and what branches to push. */
const STOPPING_CONFIG_CODES = new Set(['PathOutsideRepo', 'PathNotFound', 'InvalidBranchPrefix']);

export const DEFAULT_CONFIG_PATH = '.kerf/config.yaml';

export async function loadConfig(repo: string, file: string | undefined): Promise<{ config: KerfConfig; file?: string; errors: PlanError[] }> {
  const path = file ?? join(repo, DEFAULT_CONFIG_PATH);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return { config: CONFIG_DEFAULTS, errors: [] };
    throw new InputError(`cannot read config ${path}: ${(error as Error).message}`, { cause: error });
  }
  const shown = displayPath(repo, path);
  const { config, errors } = readConfigText(shown, bytes);
  errors.push(...(await pathErrors(repo, config.paths, shown)));
  const stopping = errors.filter((error) => error.code !== undefined && STOPPING_CONFIG_CODES.has(error.code));
  if (stopping.length > 0) throw new InputError(stopping.map((error) => error.message).join('\n'));
  return { config, file: shown, errors };
}

/** `paths` entries must name directories (or single files, to pick one of several that define a workload) inside the repo. */
async function pathErrors(repo: string, paths: readonly string[], file: string): Promise<PlanError[]> {
  const errors: PlanError[] = [];
  for (const [i, entry] of paths.entries()) {
    const field = `paths[${i}]`;
    const inside = relative(resolve(repo), resolve(repo, entry));
    if (isAbsolute(entry) || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      errors.push({ code: 'PathOutsideRepo', file, object: 'config', field, message: `${file}: config: ${field}: ${JSON.stringify(entry)} is outside the repo; paths are directories inside it` });
      continue;
    }
    const info = await stat(join(repo, entry)).catch(() => undefined);
    if (!info?.isDirectory() && !info?.isFile()) {
      errors.push({ code: 'PathNotFound', file, object: 'config', field, message: `${file}: config: ${field}: ${JSON.stringify(entry)} is not a directory of the repo (nor a file in it)` });
    }
  }
  return errors;
}

function displayPath(repo: string, path: string): string {
  const inside = relative(repo, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside.split(sep).join('/');
}

export async function scanRepo(repo: string, config: KerfConfig, workers?: number): Promise<RepoIndex> {
  try {
    if (!(await stat(repo)).isDirectory()) throw new InputError(`repo ${repo} is not a directory`);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`no such repo: ${repo}`, { cause: error });
  }
  // The whole tree is read even when `paths` narrows the targets: kustomize bases live outside them.
  const { files, errors } = await readRepoFiles(repo, { workers });
  const graph = buildGraph(files);
  const { view, errors: targetingErrors } = repoView(files, graph, config);
  const pool = new StringPool();
  const index = indexRepo(repo, files, view, [...errors, ...targetingErrors, ...(graph ? kustomizeErrors(graph) : [])], pool);
  if (graph) {
    applyKustomizeValues(index, graph);
    index.kustomize = graph;
    for (const objects of graph.renderings.values()) pool.share(objects);
  }
  // What the plan reads again (the documents kustomize renders, the edits' sketches) shares the
  // index's strings: each file's parse, made apart from the others, has its own of every one.
  for (const scanned of files.values()) pool.share([scanned.documents, scanned.sketches]);
  await addHelmWorkloads(index, config);
  return index;
}

/** `*` within a path segment, `**` across segments, `?` one character. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*' && glob[i + 1] === '*') {
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '.git' && entry.name !== 'node_modules') out.push(...(await walk(path)));
    else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Files, directories and globs; a path that matches nothing or cannot be read stops the run. */
export async function expandRecommendationPaths(patterns: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (/[*?]/.test(pattern)) {
      const absolute = resolve(cwd, pattern).split(sep).join('/');
      const base = absolute.slice(0, absolute.search(/[*?]/)).replace(/[^/]*$/, '');
      const regexp = globToRegExp(absolute);
      const matches = (await walk(base).catch(() => [])).filter((file) => regexp.test(file.split(sep).join('/')));
      if (matches.length === 0) throw new InputError(`--recommendations ${pattern} matches no file`);
      files.push(...matches.sort());
      continue;
    }
    const path = resolve(cwd, pattern);
    const info = await stat(path).catch((error: unknown) => {
      throw new InputError(`cannot read recommendations ${pattern}: ${(error as Error).message}`, { cause: error });
    });
    files.push(...(info.isDirectory() ? (await walk(path)).sort() : [path]));
  }
  return files;
}

export async function loadRecommendationFiles(
  paths: readonly string[],
  repo: string,
): Promise<{ recommendations: RightsizingRecommendation[]; errors: PlanError[] }> {
  const recommendations: RightsizingRecommendation[] = [];
  const errors: PlanError[] = [];
  for (const path of paths) {
    const bytes = await readFile(path).catch((error: unknown) => {
      throw new InputError(`cannot read recommendations ${path}: ${(error as Error).message}`, { cause: error });
    });
    const shown = displayPath(repo, path);
    const text = decodeUtf8(shown, bytes, errors);
    if (text === undefined) continue;
    const scanned = parseFile(shown, text, errors);
    scanned.documents.forEach((doc, i) => {
      const object = doc as { apiVersion?: unknown; kind?: unknown } | null;
      const line = scanned.lines[i] ?? 1;
      const misspelt = misspeltKerfObject(String(object?.kind ?? ''), String(object?.apiVersion ?? ''));
      if (misspelt) errors.push({ code: misspelt.problem.code, file: shown, line, message: `${shown}:${line}: ${misspelt.problem.message}` });
      if (object?.kind !== 'RightsizingRecommendation' || object.apiVersion !== API_VERSION) return;
      const result = validateRecommendation(doc as Record<string, unknown>, { file: shown, line: scanned.lines[i] ?? 1, locate: documentLocator(text, i) });
      errors.push(...result.errors);
      if (result.recommendation) recommendations.push(result.recommendation);
    });
  }
  return { recommendations, errors };
}
