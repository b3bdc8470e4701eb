// Walks a repo once, parses every YAML file once, and indexes what the rules need.
import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import {
  API_GROUP,
  API_VERSION,
  KERF_KINDS,
  type HorizontalPodAutoscaler,
  type PlanError,
  type PodDisruptionBudget,
  type RightsizingPolicy,
  type RightsizingRecommendation,
  type ContainerSpec,
  type Locator,
  type Workload,
} from '../model/types.js';
import { workloadFromObject } from '../model/workload.js';
import { nameProblem, validatePolicy, validateRecommendation } from '../model/validate.js';
import { didYouMean } from '../util/did-you-mean.js';
import { documentLocator } from './yaml-locate.js';
import type { HelmIndex } from './helm/releases.js';
import { decodeUtf8, type ScannedFile } from './scanned-file.js';
import { scanFile, type FileScan, type FileScanResult } from './scan-file.js';
import type { KustomizeGraph } from './kustomize-graph.js';
import { isKustomizationPath, KUSTOMIZATION_FILE_NAMES } from './kustomize-kustomization.js';
import { isObject, intOrString, stringMap, type Json } from '../util/json.js';
import { StringPool } from '../util/string-pool.js';
import { workloadKey } from '../util/workload-key.js';
import { SCAN_JOB, workerEntry } from '../util/worker-entry.js';
import { machineWorkers, mapInWorkers } from '../util/worker-pool.js';

export interface RepoIndex {
  root: string;
  files: Map<string, ScannedFile>;
  workloads: Map<string, Workload>;
  pdbs: PodDisruptionBudget[];
  hpas: HorizontalPodAutoscaler[];
  policies: RightsizingPolicy[];
  recommendations: RightsizingRecommendation[];
  errors: PlanError[];
  /**
   * Identities kerf will not target: several roots or files define them (DuplicateWorkload), or a
   * root renders them through a construct kerf does not model (UnsupportedTransformer); the reason names them all.
   */
  conflicts: Map<string, { code: 'DuplicateWorkload' | 'UnsupportedTransformer'; message: string }>;
  /** Workloads that may be in a document that does not parse, with its error, by workload key. */
  unreadable?: Map<string, PlanError>;
  /** Present when the repo has kustomizations: where each rendered value really comes from. */
  kustomize?: KustomizeGraph;
  /** Helm releases in the repo and `helm:` entries that hold their workload. */
  helm?: HelmIndex;
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
  /** The namespaces a rendered file's objects get in this cluster's roots (undefined: none given); empty when none renders it. */
  renderedNamespaces(file: string): (string | undefined)[];
  objects: readonly RenderedSource[];
}

const SKIP_DIRS = new Set(['.git', 'node_modules']);
/** An HPA's CPU utilisation target, from autoscaling/v2 `metrics` or v1 `targetCPUUtilizationPercentage`. */
function cpuTarget(spec: Record<string, unknown>): { cpuTargetUtilization?: number } {
  if (typeof spec.targetCPUUtilizationPercentage === 'number') return { cpuTargetUtilization: spec.targetCPUUtilizationPercentage };
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  for (const metric of metrics) {
    const resource = isObject(metric) && metric.type === 'Resource' && isObject(metric.resource) ? metric.resource : undefined;
    const target = resource?.name === 'cpu' && isObject(resource.target) ? resource.target : undefined;
    if (target?.type === 'Utilization' && typeof target.averageUtilization === 'number') return { cpuTargetUtilization: target.averageUtilization };
  }
  return {};
}

async function listYamlFiles(root: string, dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) await listYamlFiles(root, join(dir, entry.name), out);
    } else if (entry.isFile() && (/\.ya?ml$/.test(entry.name) || KUSTOMIZATION_FILE_NAMES.includes(entry.name))) {
      out.push(relative(root, join(dir, entry.name)).split(sep).join('/'));
    }
  }
}

/**
 * Below this much YAML the workers cost more than they save: each starts cold (its own module loads
 * and JIT warm-up), and on two cores parsing in parallel gains ~1.5x, not 2x (the threads' garbage
 * collections share the cores). Measured on two cores: a 13 MB repo scans in 2.5 s instead of 3.7 s,
 * a 6 MB one breaks even, and kubeflow/manifests (5 MB in 700 files) takes 0.8 s instead of 0.6 s.
 */
const POOL_MIN_BYTES = 8 << 20;

/** Workers for this scan: none for a small repo, or on one core. */
function scanWorkers(root: string, scans: readonly FileScan[]): number {
  const workers = machineWorkers();
  if (workers === 0) return 0;
  let bytes = 0;
  for (const { name } of scans) {
    bytes += statSync(join(root, name), { throwIfNoEntry: false })?.size ?? 0;
    if (bytes >= POOL_MIN_BYTES) return workers;
  }
  return 0;
}

/**
 * Reads and parses the repo's YAML files (each once); `paths` selects among them later (see targeting.ts).
 * A big repo's files are scanned on worker threads when an entry module registered one to start them
 * from; `workers` forces their number (0: in this thread). The result is the same either way.
 */
export async function readRepoFiles(root: string, options: { workers?: number } = {}): Promise<{ files: Map<string, ScannedFile>; errors: PlanError[] }> {
  const names: string[] = [];
  await listYamlFiles(root, root, names);
  names.sort();
  const errors: PlanError[] = [];
  const kustomizations = new Map<string, string>();
  for (const name of names.filter(isKustomizationPath)) {
    const text = decodeUtf8(name, readFileSync(join(root, name)), errors);
    if (text !== undefined) kustomizations.set(name, text);
  }
  const included = namedByKustomizations(kustomizations);
  const scans: FileScan[] = names
    // A kustomization that is not UTF-8 was reported above.
    .filter((name) => !isKustomizationPath(name) || kustomizations.has(name))
    .map((name) => {
      const kustomizationText = kustomizations.get(name);
      return { name, whole: kustomizationText !== undefined || included.has(name), ...(kustomizationText !== undefined && { kustomizationText }) };
    });
  const entry = workerEntry();
  const workers = entry === undefined ? 0 : (options.workers ?? scanWorkers(root, scans));
  const results =
    entry !== undefined && workers > 0
      ? await mapInWorkers<{ root: string } & FileScan, FileScanResult>(
          scans.map((scan) => ({ root, ...scan })),
          { entry, job: SCAN_JOB, workers },
        )
      : scans.map((scan) => scanFile(root, scan));
  const files = new Map<string, ScannedFile>();
  results.forEach((result, i) => {
    errors.push(...result.errors);
    if (result.scanned) files.set(scans[i]!.name, result.scanned);
  });
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

/**
 * Builds the index from parsed files; `view` says which files are plain and what kustomize renders.
 * The workloads and recommendations hold `pool`'s strings (see addObject).
 */
export function indexRepo(root: string, files: Map<string, ScannedFile>, view: RenderingView, errors: PlanError[] = [], pool = new StringPool()): RepoIndex {
  const index: RepoIndex = { root, files, workloads: new Map(), pdbs: [], hpas: [], policies: [], recommendations: [], errors, conflicts: new Map() };
  const definitions = new Map<string, Definition[]>();
  const define = (workload: Workload, definition: Omit<Definition, 'workload'>): void => {
    const key = workloadKey(workload.ref);
    definitions.set(key, [...(definitions.get(key) ?? []), { ...definition, workload }]);
  };
  for (const [file, scanned] of files) {
    if (isKustomizationPath(file)) continue;
    if (!view.asWritten(file)) {
      // A document of a rendered file that does not parse: held in each namespace this cluster's roots give it.
      for (const [document, problem] of scanned.broken ?? []) {
        for (const namespace of view.renderedNamespaces(file)) holdUnparsable(index, scanned, document, problem, namespace === undefined ? undefined : { namespace, force: true });
      }
      continue;
    }
    scanned.documents.forEach((doc, document) => {
      const problem = scanned.broken?.get(document);
      if (problem) {
        holdUnparsable(index, scanned, document, problem, view.namespaceOf(file));
        return;
      }
      if (!isObject(doc) || typeof doc.kind !== 'string') return;
      const meta = isObject(doc.metadata) ? doc.metadata : {};
      const own = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
      const at = view.namespaceOf(file);
      const namespace = at !== undefined && (at.force || own === undefined) ? at.namespace : (own ?? 'default');
      const line = scanned.lines[document] ?? 1;
      const added = addObject(index, pool, doc, { namespace, name: String(meta.name ?? '') }, file, document, line);
      if (typeof added === 'object') define(added, { where: file, file, line });
      // Memory bounded by the fleet, not the repo's bytes: what the index now holds is not kept
      // twice. Kustomize resolves the documents of files a kustomization names again, so those stay.
      if (added !== undefined && !scanned.named && view.renderedNamespaces(file).length === 0) scanned.documents[document] = null;
    });
  }
  for (const object of view.objects) {
    const scanned = files.get(object.file);
    const doc = scanned?.documents[object.document];
    if (!isObject(doc)) continue;
    const line = scanned?.lines[object.document] ?? 1;
    const ref = { namespace: object.namespace ?? 'default', name: object.name, root: object.root };
    const workload = addObject(index, pool, doc, ref, object.file, object.document, line);
    if (typeof workload !== 'object') continue;
    workload.containers.push(...object.addedContainers.filter((added) => !workload.containers.some((c) => c.name === added.name)));
    if (object.unmodelled !== undefined) {
      const { ref } = workload;
      index.conflicts.set(workloadKey(ref), { code: 'UnsupportedTransformer', message: `${ref.kind} ${ref.namespace}/${ref.name} is rendered by ${object.root}, where ${object.unmodelled}; kerf leaves it alone rather than guess` });
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
    if (!index.conflicts.has(key)) index.conflicts.set(key, { code: 'DuplicateWorkload', message });
    // Several roots rendering one identity is normal (a base for many clusters): an error only when targeted.
    if (plain.length > 0 || sameRootTwice) index.errors.push({ code: 'DuplicateWorkload', file: first.file, line: first.line, object: key, message });
  }
  return index;
}

/** The text of one document, for a guess at what a document that does not parse holds. */
function documentText(scanned: ScannedFile, document: number): string {
  const starts = scanned.lines;
  const all = (scanned.text ?? '').split('\n');
  return all.slice((starts[document] ?? 1) - 1, (starts[document + 1] ?? all.length + 1) - 1).join('\n');
}

/**
 * A document that does not parse and may hold a policy (or kerf's group) holds every workload of
 * its namespace, as an invalid policy, with the parse error: a broken policy file must not turn
 * its workloads Unmanaged, let alone let another policy act on them.
 */
function holdUnparsable(index: RepoIndex, scanned: ScannedFile, document: number, problem: PlanError, at: { namespace: string; force: boolean } | undefined): void {
  const text = documentText(scanned, document);
  const own = /\bnamespace:\s*["']?([^\s"'#,}]+)/.exec(text)?.[1];
  const namespace = at?.force ? at.namespace : (own ?? at?.namespace ?? 'default');
  if (/RightsizingPolicy|kerf\.getkerf\.dev/.test(text)) index.policies.push(unreadablePolicy(namespace, problem));
  // A workload that may be in it: its recommendation is refused naming the parse error, not "not in the repo".
  const kind = /^\s*kind:\s*["']?(Deployment|StatefulSet|DaemonSet)\b/m.exec(text)?.[1];
  const name = /\bname:\s*["']?([^\s"'#,}]+)/.exec(text)?.[1];
  if (kind && name) (index.unreadable ??= new Map()).set(workloadKey({ namespace, kind, name }), problem);
}

function unreadablePolicy(namespace: string, problem: PlanError): RightsizingPolicy {
  return {
    name: '',
    namespace,
    mode: 'recommend',
    selector: {},
    apply: { strategy: 'deferred', fallbackAfter: '10m', maintenanceWindows: [], freezeWindows: [], onDelete: { maxPodDeletesPerRun: 1, settle: '30s' } },
    source: { file: problem.file ?? '', ...(problem.line !== undefined && { line: problem.line }) },
    invalid: problem.message,
  };
}

/**
 * Where a field of a kerf object is written, for its problems. The scan keeps no file texts, so
 * the file is read again, only when there is a problem to place (screening keeps documents and
 * lines where they are, so the original text has the same documents at the same lines).
 */
function fileLocator(index: RepoIndex, file: string, document: number): Locator {
  let locate: Locator | undefined;
  return (path) => {
    if (!locate) {
      let text = index.files.get(file)?.text;
      if (text === undefined) {
        try {
          text = readFileSync(join(index.root, file), 'utf8');
        } catch {
          text = '';
        }
      }
      locate = documentLocator(text, document);
    }
    return locate(path);
  };
}

type MisspeltKerfObject = { kind: (typeof KERF_KINDS)[number]; problem: { code: string; message: string } };
const misspeltSeen = new Map<string, MisspeltKerfObject | undefined>();

/**
 * A kind or apiVersion of kerf's spelt wrong: an error (did you mean …), and a would-be policy
 * holds its namespace like an invalid one. Undefined when the object is not near kerf's at all.
 */
export function misspeltKerfObject(kind: string, apiVersion: string): MisspeltKerfObject | undefined {
  // Every object is asked, and a repo has few distinct kinds and apiVersions: edit distances once each.
  const key = `${kind}\u0000${apiVersion}`;
  if (!misspeltSeen.has(key)) misspeltSeen.set(key, judgeKerfObject(kind, apiVersion));
  return misspeltSeen.get(key);
}

function judgeKerfObject(kind: string, apiVersion: string): MisspeltKerfObject | undefined {
  const exactKind = KERF_KINDS.find((k) => k === kind);
  const nearKind = exactKind ?? (didYouMean(kind, KERF_KINDS) as (typeof KERF_KINDS)[number] | undefined);
  const inGroup = apiVersion.startsWith(`${API_GROUP}/`);
  const nearGroup = inGroup || didYouMean(apiVersion, [API_VERSION]) !== undefined || didYouMean(apiVersion.split('/')[0] ?? '', [API_GROUP]) !== undefined;
  if (!nearKind || !nearGroup) return undefined;
  if (!exactKind) return { kind: nearKind, problem: { code: 'UnknownKind', message: `unknown kind ${JSON.stringify(kind)} in ${API_GROUP}; did you mean "${nearKind}"?` } };
  if (apiVersion !== API_VERSION) return { kind: nearKind, problem: { code: 'UnknownApiVersion', message: `unknown apiVersion ${JSON.stringify(apiVersion)} for ${kind}; did you mean "${API_VERSION}"?` } };
  return undefined;
}

/**
 * Adds a PDB, HPA, policy or recommendation to the index, or returns a workload for indexRepo,
 * which sees every definition; 'indexed' when `doc` was one of the others or was reported,
 * undefined when none. Workloads and recommendations hold `pool`'s strings: strings cut from the
 * parse can be slices that keep the whole file's text alive, and a fleet's repeat most of theirs.
 */
function addObject(index: RepoIndex, pool: StringPool, doc: Json, ref: { namespace: string; name: string; root?: string }, file: string, document: number, line: number): Workload | 'indexed' | undefined {
  const kind = doc.kind as string;
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const misspelt = misspeltKerfObject(kind, apiVersion);
  if (misspelt) {
    const problem: PlanError = { code: misspelt.problem.code, file, line, object: `${kind} ${ref.namespace}/${ref.name}`, field: misspelt.problem.code === 'UnknownKind' ? 'kind' : 'apiVersion', message: `${file}:${line}: ${misspelt.problem.message}` };
    index.errors.push(problem);
    if (misspelt.kind === 'RightsizingPolicy') index.policies.push(unreadablePolicy(ref.namespace, problem));
    return 'indexed';
  }
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
    const badName = nameProblem(workload.ref.name, 'name') ?? nameProblem(workload.ref.namespace, 'namespace');
    if (badName) {
      index.errors.push({ code: 'InvalidName', file, line, object: key, field: 'metadata.name', message: `${file}:${line}: ${key}: ${badName}; the workload is not read` });
      return 'indexed';
    }
    // Whether it is defined twice is for indexRepo, which sees every definition.
    return pool.share(workload);
  }
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
      ...cpuTarget(spec),
    });
  } else if (kind === 'RightsizingPolicy' && apiVersion === API_VERSION) {
    const { policy, errors } = validatePolicy(withRef, { file, line, locate: fileLocator(index, file, document) });
    index.errors.push(...errors);
    index.policies.push(policy);
  } else if (kind === 'RightsizingRecommendation' && apiVersion === API_VERSION) {
    const { recommendation, errors } = validateRecommendation(withRef, { file, line, locate: fileLocator(index, file, document) });
    index.errors.push(...errors);
    if (recommendation) index.recommendations.push(pool.share(recommendation));
  } else return undefined;
  return 'indexed';
}
