// Walks a repo once, parses every YAML file once, and indexes what the rules need.
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type {
  HorizontalPodAutoscaler,
  PlanError,
  PodDisruptionBudget,
  RightsizingPolicy,
  RightsizingRecommendation,
  Workload,
} from '../model/types.js';
import { workloadFromObject } from '../model/workload.js';
import { API_GROUP, validatePolicy, validateRecommendation } from '../model/validate.js';
import type { KustomizeGraph } from './kustomize-graph.js';
import { screenDocuments } from './screen.js';

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
}

export interface RepoIndex {
  root: string;
  files: Map<string, ScannedFile>;
  workloads: Map<string, Workload>;
  pdbs: PodDisruptionBudget[];
  hpas: HorizontalPodAutoscaler[];
  policies: RightsizingPolicy[];
  recommendations: RightsizingRecommendation[];
  errors: PlanError[];
  /** Present when the repo has kustomizations: where each rendered value really comes from. */
  kustomize?: KustomizeGraph;
}

/** How kustomize renders a file: the namespaces and name affixes its objects get, or none. */
export interface Rendering {
  /** The kustomization directory that renders the file. */
  root?: string;
  namespace?: string | undefined;
  namePrefix?: string;
  nameSuffix?: string;
}
export interface RenderingView {
  /** Undefined when no kustomization includes the file (it is applied as written). */
  renderingsOf(file: string): readonly Rendering[] | undefined;
  /** Patch files describe changes to other objects, not objects of their own. */
  isPatch(file: string): boolean;
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);
const KUSTOMIZATION_NAMES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);

export function workloadKey(ref: { namespace: string; kind: string; name: string }): string {
  return `${ref.namespace}/${ref.kind}/${ref.name}`;
}

export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_NAMES.has(path.split('/').pop() ?? '');
}

async function listYamlFiles(root: string, dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) await listYamlFiles(root, join(dir, entry.name), out);
    } else if (entry.isFile() && (/\.ya?ml$/.test(entry.name) || entry.name === 'Kustomization')) {
      out.push(relative(root, join(dir, entry.name)).split(sep).join('/'));
    }
  }
}

/** Reads and parses the repo's YAML files (each once); `paths` narrows the walk. */
export async function readRepoFiles(
  root: string,
  paths: readonly string[] = [],
): Promise<{ files: Map<string, ScannedFile>; errors: PlanError[] }> {
  const names: string[] = [];
  for (const start of paths.length > 0 ? paths : ['.']) await listYamlFiles(root, join(root, start), names);
  names.sort();
  const files = new Map<string, ScannedFile>();
  const errors: PlanError[] = [];
  const kustomizations = new Map<string, string>();
  for (const name of names.filter(isKustomizationFile)) kustomizations.set(name, await readFile(join(root, name), 'utf8'));
  const included = namedByKustomizations(kustomizations);
  for (const name of names) {
    const text = kustomizations.get(name) ?? (await readFile(join(root, name), 'utf8'));
    // What kustomize may render is read whole: its Services and ConfigMaps are objects of the rendering too.
    const screened = kustomizations.has(name) || included.has(name) ? text : screenDocuments(text);
    if (screened === undefined) continue;
    const { documents, lines } = parseFile(name, screened, errors);
    files.set(name, { documents, lines });
  }
  return { files, errors };
}

/**
 * The repo paths kustomizations mention, each word of their text taken as a path from the
 * kustomization's directory: a superset of the files they include (resources, patches, components
 * are all named so).
 */
function namedByKustomizations(kustomizations: ReadonlyMap<string, string>): Set<string> {
  const named = new Set<string>();
  for (const [file, text] of kustomizations) {
    const dir = posix.dirname(file);
    for (const token of text.split(/[\s"',[\]{}]+/)) if (token !== '') named.add(posix.join(dir, token));
  }
  return named;
}

export function parseFile(name: string, text: string, errors: PlanError[]): ScannedFile {
  const lineCounter = new LineCounter();
  const documents: unknown[] = [];
  const lines: number[] = [];
  for (const doc of parseAllDocuments(text, { lineCounter, uniqueKeys: false })) {
    const line = lineCounter.linePos(doc.range[0]).line;
    lines.push(line);
    const [error] = doc.errors;
    if (error) {
      const at = error.linePos?.[0];
      errors.push({ file: name, line: at?.line ?? line, message: `${name}:${at?.line ?? line}: ${error.message.split('\n')[0]}` });
      documents.push(null);
      continue;
    }
    documents.push(doc.toJS({ maxAliasCount: -1 }));
  }
  return { text, documents, lines };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringMap = (value: unknown): Record<string, string> =>
  isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : {};
const intOrString = (value: unknown): number | string | undefined =>
  typeof value === 'number' || typeof value === 'string' ? value : undefined;

function selectorOf(value: unknown): PodDisruptionBudget['selector'] {
  if (!isObject(value)) return {};
  return {
    ...(isObject(value.matchLabels) && { matchLabels: stringMap(value.matchLabels) }),
    ...(Array.isArray(value.matchExpressions) && { matchExpressions: value.matchExpressions as PodDisruptionBudget['selector']['matchExpressions'] }),
  };
}

/** Builds the index from parsed files; `renderings` tells what kustomize does to each file. */
export function indexRepo(root: string, files: Map<string, ScannedFile>, renderings: RenderingView, errors: PlanError[] = []): RepoIndex {
  const index: RepoIndex = { root, files, workloads: new Map(), pdbs: [], hpas: [], policies: [], recommendations: [], errors };
  for (const [file, scanned] of files) {
    if (isKustomizationFile(file) || renderings.isPatch(file)) continue;
    const rendered = renderings.renderingsOf(file);
    const views = rendered ?? [{}];
    scanned.documents.forEach((doc, document) => {
      if (!isObject(doc) || typeof doc.kind !== 'string') return;
      const meta = isObject(doc.metadata) ? doc.metadata : {};
      const line = scanned.lines[document] ?? 1;
      let indexed = false;
      for (const view of views) {
        const namespace = view.namespace ?? (typeof meta.namespace === 'string' ? meta.namespace : 'default');
        const name = `${view.namePrefix ?? ''}${String(meta.name ?? '')}${view.nameSuffix ?? ''}`;
        indexed = addObject(index, doc, { namespace, name, ...(view.root !== undefined && { root: view.root }) }, file, document, line) || indexed;
      }
      // Memory bounded by the fleet, not the repo's bytes: what the index now holds is not kept
      // twice. Kustomize resolves rendered files' documents again, so those stay.
      if (indexed && rendered === undefined) scanned.documents[document] = null;
    });
  }
  return index;
}

/** Adds a workload, PDB, HPA, policy or recommendation to the index; whether `doc` was one. */
function addObject(index: RepoIndex, doc: Json, ref: { namespace: string; name: string; root?: string }, file: string, document: number, line: number): boolean {
  const kind = doc.kind as string;
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const spec = isObject(doc.spec) ? doc.spec : {};
  const withRef = { ...doc, metadata: { ...(isObject(doc.metadata) ? doc.metadata : {}), namespace: ref.namespace, name: ref.name } };
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const workload = workloadFromObject(doc, ref, {
    file,
    line,
    document,
    name: String(meta.name ?? ref.name),
    ...(ref.root !== undefined && { root: ref.root }),
  });
  if (workload) {
    const key = workloadKey(workload.ref);
    const existing = index.workloads.get(key);
    if (existing) {
      index.errors.push({
        file,
        line,
        object: key,
        message: `${key} is defined twice: in ${existing.source.file} and in ${file}; narrow the scan with \`paths\` in .kerf/config.yaml`,
      });
      return true;
    }
    // A copy: strings cut from the parse can be slices that keep the whole file's text alive.
    index.workloads.set(key, structuredClone(workload));
  } else if (kind === 'PodDisruptionBudget') {
    const minAvailable = intOrString(spec.minAvailable);
    const maxUnavailable = intOrString(spec.maxUnavailable);
    index.pdbs.push({
      ref: { namespace: ref.namespace, kind, name: ref.name },
      selector: selectorOf(spec.selector),
      ...(minAvailable !== undefined && { minAvailable }),
      ...(maxUnavailable !== undefined && { maxUnavailable }),
    });
  } else if (kind === 'HorizontalPodAutoscaler') {
    const target = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
    index.hpas.push({
      ref: { namespace: ref.namespace, kind, name: ref.name },
      target: { kind: String(target.kind ?? ''), name: String(target.name ?? '') },
      ...(typeof spec.minReplicas === 'number' && { minReplicas: spec.minReplicas }),
    });
  } else if (kind === 'RightsizingPolicy' && apiVersion.startsWith(`${API_GROUP}/`)) {
    const { policy, errors } = validatePolicy(withRef, { file, line });
    index.errors.push(...errors);
    if (policy) index.policies.push(policy);
  } else if (kind === 'RightsizingRecommendation' && apiVersion.startsWith(`${API_GROUP}/`)) {
    const { recommendation, errors } = validateRecommendation(withRef, { file, line });
    index.errors.push(...errors);
    if (recommendation) index.recommendations.push(recommendation);
  } else return false;
  return true;
}
