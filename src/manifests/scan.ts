// Walks a repo once, parses every YAML file once, and indexes what the rules need.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type {
  HorizontalPodAutoscaler,
  PlanError,
  PodDisruptionBudget,
  RightsizingPolicy,
  RightsizingRecommendation,
  ContainerSpec,
  Workload,
} from '../model/types.js';
import { workloadFromObject } from '../model/workload.js';
import { API_GROUP, validatePolicy, validateRecommendation } from '../model/validate.js';
import type { KustomizeGraph } from './kustomize-graph.js';

export interface ScannedFile {
  text: string;
  /** toJS() of each YAML document, in order; null for a document that did not parse. */
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
  /** Identities kerf will not target because several roots or files define them: the reason, naming them all. */
  conflicts: Map<string, string>;
  /** Present when the repo has kustomizations: where each rendered value really comes from. */
  kustomize?: KustomizeGraph;
}

/** An object as a kustomize root renders it: the identity it gets there and the document it comes from. */
export interface RenderedSource {
  root: string;
  file: string;
  document: number;
  /** Undefined when neither the tree nor a GitOps object gives it one. */
  namespace: string | undefined;
  name: string;
  /** Containers a patch adds, as that patch writes them (their values are resolved later). */
  addedContainers: ContainerSpec[];
  /** Why kerf cannot know this rendering (a construct it does not model); such workloads are refused. */
  unmodelled?: string;
}

/** What the scan indexes: the plain files as written, and the objects of this cluster's kustomize roots. */
export interface RenderingView {
  /** True for a file whose objects are applied as written and that this cluster's selection takes. */
  asWritten(file: string): boolean;
  /** The namespace objects of a plain file get when they name none (Argo CD, Flux, `namespaces:`). */
  namespaceOf(file: string): { namespace: string; force: boolean } | undefined;
  objects: readonly RenderedSource[];
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);
const KUSTOMIZATION_NAMES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
/** Cheap screening: a file that names none of these kinds cannot matter to the plan. */
const INTERESTING = /\bkind:\s*["']?(Deployment|StatefulSet|DaemonSet|PodDisruptionBudget|HorizontalPodAutoscaler|RightsizingPolicy|RightsizingRecommendation|Kustomization|Component|Application|ApplicationSet|AppProject)\b/;

/** A JSON 6902 patch file names no kind, yet can change a workload's identity or resources. */
const JSON6902_PATCH = /^\s*-\s*\{?\s*["']?op["']?\s*:/m;

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

/** Reads and parses the repo's YAML files (each once); `paths` selects among them later (see targeting.ts). */
export async function readRepoFiles(root: string): Promise<{ files: Map<string, ScannedFile>; errors: PlanError[] }> {
  const names: string[] = [];
  await listYamlFiles(root, root, names);
  names.sort();
  const files = new Map<string, ScannedFile>();
  const errors: PlanError[] = [];
  for (const name of names) {
    const text = await readFile(join(root, name), 'utf8');
    if (!isKustomizationFile(name) && !INTERESTING.test(text) && !JSON6902_PATCH.test(text)) continue;
    files.set(name, parseFile(name, text, errors));
  }
  return { files, errors };
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

interface Definition {
  where: string;
  root?: string;
  file: string;
  line: number;
  workload: Workload;
}

/** "a", "a and b", "a, b and c" */
export function listOfNames(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Builds the index from parsed files; `view` says which files are plain and what kustomize renders. */
export function indexRepo(root: string, files: Map<string, ScannedFile>, view: RenderingView, errors: PlanError[] = []): RepoIndex {
  const index: RepoIndex = { root, files, workloads: new Map(), pdbs: [], hpas: [], policies: [], recommendations: [], errors, conflicts: new Map() };
  const definitions = new Map<string, Definition[]>();
  const define = (workload: Workload, definition: Omit<Definition, 'workload'>): void => {
    const key = workloadKey(workload.ref);
    definitions.set(key, [...(definitions.get(key) ?? []), { ...definition, workload }]);
  };
  for (const [file, scanned] of files) {
    if (isKustomizationFile(file) || !view.asWritten(file)) continue;
    scanned.documents.forEach((doc, document) => {
      if (!isObject(doc) || typeof doc.kind !== 'string') return;
      const meta = isObject(doc.metadata) ? doc.metadata : {};
      const own = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
      const at = view.namespaceOf(file);
      const namespace = at !== undefined && (at.force || own === undefined) ? at.namespace : (own ?? 'default');
      const line = scanned.lines[document] ?? 1;
      const workload = addObject(index, doc, { namespace, name: String(meta.name ?? '') }, file, document, line);
      if (workload) define(workload, { where: file, file, line });
    });
  }
  for (const object of view.objects) {
    const scanned = files.get(object.file);
    const doc = scanned?.documents[object.document];
    if (!isObject(doc)) continue;
    const line = scanned?.lines[object.document] ?? 1;
    const ref = { namespace: object.namespace ?? 'default', name: object.name, root: object.root };
    const workload = addObject(index, doc, ref, object.file, object.document, line);
    if (!workload) continue;
    workload.containers.push(...object.addedContainers.filter((added) => !workload.containers.some((c) => c.name === added.name)));
    if (object.unmodelled !== undefined) {
      const { ref } = workload;
      index.conflicts.set(workloadKey(ref), `${ref.kind} ${ref.namespace}/${ref.name} is rendered by ${object.root}, where ${object.unmodelled}; kerf leaves it alone rather than guess`);
      continue;
    }
    define(workload, { where: object.root, root: object.root, file: object.file, line });
  }
  for (const [key, found] of definitions) {
    const [first] = found;
    if (first === undefined) continue;
    if (found.length === 1) {
      if (!index.conflicts.has(key)) index.workloads.set(key, first.workload);
      continue;
    }
    const roots = [...new Set(found.flatMap((d) => (d.root === undefined ? [] : [d.root])))].sort();
    const plain = [...new Set(found.flatMap((d) => (d.root === undefined ? [d.file] : [])))].sort();
    const by = [roots.length > 0 && `rendered by ${listOfNames(roots)}`, plain.length > 0 && `defined in ${listOfNames(plain)}`].filter(Boolean).join(' and ');
    const sameRootTwice = roots.length === 1 && plain.length === 0;
    const files = [...new Set(found.map((d) => d.file))].sort();
    const { ref } = first.workload;
    const label = `${ref.kind} ${ref.namespace}/${ref.name}`;
    const message = sameRootTwice
        ? `${label} is defined twice in root ${roots[0]} (in ${listOfNames(files)}); kustomize refuses such a tree`
        : `${label} is ${by}; select this cluster's with \`roots\` or \`paths\` in .kerf/config.yaml`;
    if (!index.conflicts.has(key)) index.conflicts.set(key, message);
    // Several roots rendering one identity is normal (a base for many clusters): an error only when targeted.
    if (plain.length > 0 || sameRootTwice) index.errors.push({ code: 'DuplicateIdentity', file: first.file, line: first.line, object: key, message });
  }
  return index;
}

function addObject(index: RepoIndex, doc: Json, ref: { namespace: string; name: string; root?: string }, file: string, document: number, line: number): Workload | undefined {
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
  if (workload) return workload;
  if (kind === 'PodDisruptionBudget') {
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
  }
  return undefined;
}
