// Reads what a run needs from disk: the repo index, the config and the recommendations.
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { KerfConfig, PlanError, RightsizingRecommendation } from '../model/types.js';
import { CONFIG_DEFAULTS, validateConfig, API_GROUP, validateRecommendation } from '../model/validate.js';
import { indexRepo, parseFile, readRepoFiles, type RepoIndex } from '../manifests/scan.js';
import { applyKustomizeValues, buildGraph, kustomizeErrors } from '../manifests/kustomize-values.js';
import { repoView } from '../manifests/targeting.js';

/** Input that stops the run (exit 2): a missing repo, an unreadable recommendations path. */
export class InputError extends Error {
  readonly code = 'InvalidInput';
}

export const DEFAULT_CONFIG_PATH = '.kerf/config.yaml';

export async function loadConfig(repo: string, file: string | undefined): Promise<{ config: KerfConfig; file?: string; errors: PlanError[] }> {
  const path = file ?? join(repo, DEFAULT_CONFIG_PATH);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return { config: CONFIG_DEFAULTS, errors: [] };
    throw new InputError(`cannot read config ${path}: ${(error as Error).message}`, { cause: error });
  }
  const shown = displayPath(repo, path);
  const errors: PlanError[] = [];
  const [doc] = parseFile(shown, text, errors).documents;
  const validated = validateConfig(doc ?? null, shown);
  return { config: validated.config, file: shown, errors: [...errors, ...validated.errors] };
}

function displayPath(repo: string, path: string): string {
  const inside = relative(repo, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside.split(sep).join('/');
}

export async function scanRepo(repo: string, config: KerfConfig): Promise<RepoIndex> {
  try {
    if (!(await stat(repo)).isDirectory()) throw new InputError(`repo ${repo} is not a directory`);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`no such repo: ${repo}`, { cause: error });
  }
  // The whole tree is read even when `paths` narrows the targets: kustomize bases live outside them.
  const { files, errors } = await readRepoFiles(repo);
  const graph = buildGraph(files);
  const { view, errors: targetingErrors } = repoView(files, graph, config);
  const index = indexRepo(repo, files, view, [...errors, ...targetingErrors, ...(graph ? kustomizeErrors(graph) : [])]);
  if (graph) {
    applyKustomizeValues(index, graph);
    index.kustomize = graph;
  }
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
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new InputError(`cannot read recommendations ${path}: ${(error as Error).message}`, { cause: error });
    });
    const shown = displayPath(repo, path);
    const scanned = parseFile(shown, text, errors);
    scanned.documents.forEach((doc, i) => {
      const object = doc as { apiVersion?: unknown; kind?: unknown } | null;
      if (object?.kind !== 'RightsizingRecommendation' || !String(object.apiVersion).startsWith(`${API_GROUP}/`)) return;
      const result = validateRecommendation(doc as Record<string, unknown>, { file: shown, line: scanned.lines[i] ?? 1 });
      errors.push(...result.errors);
      if (result.recommendation) recommendations.push(result.recommendation);
    });
  }
  return { recommendations, errors };
}
