import { posix } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KustomizeWarning } from './kustomize-error.js';
import { WORKLOAD_KINDS } from '../model/types.js';
import { isObject } from '../util/json.js';

/** One YAML file of the repo as the scanner read it: `toJS()` of each document (the repo scan keeps no text). */
export interface ParsedYamlFile {
  text?: string;
  documents: unknown[];
}
/** Repo-relative POSIX path → parsed file. Kustomization files named `Kustomization` belong here too. */
export type ParsedFiles = ReadonlyMap<string, ParsedYamlFile>;

export const KUSTOMIZATION_FILE_NAMES: readonly string[] = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

export type PatchField = 'patchesStrategicMerge' | 'patches' | 'patchesJson6902';

/** `target:` of a patch; name and namespace are anchored regular expressions in kustomize. */
export interface PatchSelector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

export interface Json6902Operation {
  op: string;
  path: string;
  value?: unknown;
}

export type PatchContent =
  | { type: 'strategic-merge'; documents: Record<string, unknown>[] }
  | { type: 'json6902'; operations: Json6902Operation[] }
  /** A patch file that is not among the scanned YAML files (e.g. `.json`): its effect is unknown. */
  | { type: 'unknown' };

export interface PatchEntry {
  /** The kustomization file that lists the patch. */
  kustomization: string;
  field: PatchField;
  /** Index in that field's list. */
  index: number;
  /** The patch file when given by path; undefined for an inline patch. */
  file?: string;
  target?: PatchSelector;
  content: PatchContent;
}

export type ResourceEntry = { type: 'file'; path: string } | { type: 'kustomization'; dir: string };

/** A ConfigMap or Secret from `configMapGenerator` / `secretGenerator`; kustomize adds a hash suffix to its name. */
export interface GeneratedObject {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  namespace?: string;
  /** `create` adds an object; `merge` and `replace` change one that a base made. */
  behavior: 'create' | 'merge' | 'replace';
}

export type KustomizationKind = 'Kustomization' | 'Component';

export interface Kustomization {
  file: string;
  dir: string;
  kind: KustomizationKind;
  namespace?: string;
  namePrefix: string;
  nameSuffix: string;
  /** `resources:` then legacy `bases:`, as kustomize merges them. */
  resources: ResourceEntry[];
  components: string[];
  generated: GeneratedObject[];
  /** In the order kustomize applies them: `patchesStrategicMerge`, `patches`, then `patchesJson6902`. */
  patches: PatchEntry[];
}

const KUSTOMIZE_API_GROUP = 'kustomize.config.k8s.io/';
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|git@|git::|(?:github|gitlab)\.com\/|bitbucket\.org\/)|\?ref=/i;
// Transformer kinds that change names or namespaces; ignoring them would give wrong identities.
const RENAMING_TRANSFORMERS = new Set([
  'NamespaceTransformer',
  'PrefixSuffixTransformer',
  'PrefixTransformer',
  'SuffixTransformer',
  'ReplacementTransformer',
  'PatchTransformer',
  'PatchStrategicMergeTransformer',
  'PatchJson6902Transformer',
]);

export function isKustomizationPath(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(posix.basename(path));
}

/** The kustomization file of a directory, if the scan has one. */
export function kustomizationFileIn(dir: string, files: ParsedFiles): string | undefined {
  return KUSTOMIZATION_FILE_NAMES.map((name) => posix.join(dir, name)).find((path) => files.has(path));
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Parse one kustomization file; undefined when the file is not a kustomize Kustomization/Component. */
export function parseKustomization(file: string, files: ParsedFiles, warnings: KustomizeWarning[]): Kustomization | undefined {
  const doc = files.get(file)?.documents.find(isObject);
  if (doc === undefined) return undefined;
  const apiVersion = doc['apiVersion'];
  const kind = doc['kind'];
  if ((typeof apiVersion === 'string' && !apiVersion.startsWith(KUSTOMIZE_API_GROUP)) || (kind !== undefined && kind !== 'Kustomization' && kind !== 'Component')) {
    warnings.push({ code: 'not-a-kustomization', file, message: `${file}: apiVersion ${String(apiVersion)} kind ${String(kind)} is not a kustomize Kustomization; ignored` });
    return undefined;
  }
  const dir = posix.dirname(file);
  const ctx: EntryContext = { file, dir, files, warnings };
  if (doc['helmCharts'] !== undefined || doc['helmChartInflationGenerator'] !== undefined) {
    warnings.push({ code: 'helm-chart', file, message: `${file}: helmCharts are not rendered; workloads from charts are not seen` });
  }
  for (const transformer of stringList(doc['transformers'])) checkTransformer(transformer, ctx);
  listOf(doc['replacements']).forEach((entry, index) => checkReplacement(entry, index, ctx));
  const namespace = optionalString(doc['namespace']);
  return {
    file,
    dir,
    kind: kind === 'Component' ? 'Component' : 'Kustomization',
    ...(namespace === undefined ? {} : { namespace }),
    namePrefix: optionalString(doc['namePrefix']) ?? '',
    nameSuffix: optionalString(doc['nameSuffix']) ?? '',
    resources: [...stringList(doc['resources']), ...stringList(doc['bases'])].flatMap((entry) => resolveResource(entry, ctx)),
    components: stringList(doc['components']).flatMap((entry) => resolveComponent(entry, ctx)),
    generated: [
      ...listOf(doc['configMapGenerator']).flatMap((entry) => generatedObject(entry, 'ConfigMap')),
      ...listOf(doc['secretGenerator']).flatMap((entry) => generatedObject(entry, 'Secret')),
    ],
    patches: [
      ...listOf(doc['patchesStrategicMerge']).flatMap((entry, index) => legacyStrategicMerge(entry, index, ctx)),
      ...listOf(doc['patches']).flatMap((entry, index) => patchEntry(entry, 'patches', index, ctx)),
      ...listOf(doc['patchesJson6902']).flatMap((entry, index) => patchEntry(entry, 'patchesJson6902', index, ctx)),
    ],
  };
}

interface EntryContext {
  file: string;
  dir: string;
  files: ParsedFiles;
  warnings: KustomizeWarning[];
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Resolve a path entry against the kustomization's directory; undefined (with a warning) when unusable. */
function localPath(entry: string, field: string, ctx: EntryContext): string | undefined {
  if (REMOTE.test(entry)) {
    ctx.warnings.push({ code: 'remote-resource', file: ctx.file, message: `${ctx.file}: ${field} entry ${entry} is remote; not followed` });
    return undefined;
  }
  // kustomize takes `../base/`, `./base` and `base` for the same directory.
  const path = posix.normalize(posix.join(ctx.dir, entry)).replace(/(.)\/+$/, '$1');
  if (path === '..' || path.startsWith('../')) {
    ctx.warnings.push({ code: 'outside-repository', file: ctx.file, message: `${ctx.file}: ${field} entry ${entry} is outside the repository` });
    return undefined;
  }
  return path;
}

/** kustomize's default load restrictor refuses files outside the kustomization's directory. */
function warnIfOutsideRoot(entry: string, path: string, field: string, ctx: EntryContext): void {
  if (ctx.dir === '.' || path.startsWith(`${ctx.dir}/`)) return;
  ctx.warnings.push({ code: 'outside-kustomization-root', file: ctx.file, message: `${ctx.file}: ${field} file ${entry} is outside the kustomization's directory; kustomize needs --load-restrictor LoadRestrictionsNone` });
}

const FILE_LIKE = /\.(ya?ml|json)$/;

/** A file-like entry the scan did not hand over may just have been screened out (no workload in it). */
function missing(entry: string, field: string, ctx: EntryContext): [] {
  const code = FILE_LIKE.test(entry) ? 'unscanned-file' : 'missing-file';
  const what = code === 'missing-file' ? 'is not a directory with a kustomization' : 'is not among the scanned YAML files';
  ctx.warnings.push({ code, file: ctx.file, message: `${ctx.file}: ${field} entry ${entry} ${what}` });
  return [];
}

function resolveResource(entry: string, ctx: EntryContext): ResourceEntry[] {
  const path = localPath(entry, 'resources', ctx);
  if (path === undefined) return [];
  if (ctx.files.has(path)) {
    warnIfOutsideRoot(entry, path, 'resources', ctx);
    return [{ type: 'file', path }];
  }
  if (kustomizationFileIn(path, ctx.files) !== undefined) return [{ type: 'kustomization', dir: path }];
  return missing(entry, 'resources', ctx);
}

function resolveComponent(entry: string, ctx: EntryContext): string[] {
  const path = localPath(entry, 'components', ctx);
  if (path === undefined) return [];
  return kustomizationFileIn(path, ctx.files) === undefined ? missing(entry, 'components', ctx) : [path];
}

function generatedObject(entry: unknown, kind: GeneratedObject['kind']): GeneratedObject[] {
  if (!isObject(entry) || typeof entry['name'] !== 'string') return [];
  const behavior = entry['behavior'] === 'merge' || entry['behavior'] === 'replace' ? entry['behavior'] : 'create';
  const namespace = optionalString(entry['namespace']);
  return [{ kind, name: entry['name'], behavior, ...(namespace === undefined ? {} : { namespace }) }];
}

const WORKLOAD_KIND_NAMES = new Set<string>(WORKLOAD_KINDS);

/** A kind that names no workload kind (no kind means every kind). */
function notAWorkload(selector: unknown): boolean {
  return isObject(selector) && typeof selector['kind'] === 'string' && !WORKLOAD_KIND_NAMES.has(selector['kind']);
}

/**
 * Whether the transformer's config says it touches no workload: every `fieldSpecs` entry, or the
 * patch `target`, names another kind (a prefix for RoleBinding subjects renames no Deployment).
 */
function sparesWorkloads(config: Record<string, unknown>): boolean {
  const specs = config['fieldSpecs'];
  if (Array.isArray(specs)) return specs.length > 0 && specs.every(notAWorkload);
  if ('target' in config) return notAWorkload(config['target']);
  return false;
}

function checkTransformer(entry: string, ctx: EntryContext): void {
  const path = localPath(entry, 'transformers', ctx);
  const configs = path === undefined ? [] : (ctx.files.get(path)?.documents.filter(isObject) ?? []);
  for (const config of configs) {
    if (typeof config['kind'] === 'string' && RENAMING_TRANSFORMERS.has(config['kind']) && !sparesWorkloads(config)) {
      ctx.warnings.push({ code: 'unsupported-transformer', file: ctx.file, message: `${ctx.file}: transformer ${entry} (${config['kind']}) is not modelled; names, namespaces or resources may differ` });
    }
  }
}

// Field paths through which a replacement would change what kerf models: identity or container resources.
const MODELLED_FIELD = /^metadata\.(name|namespace)$|(^|\.)resources(\.|$)|(^|\.)containers(\.\[?[^.]*\]?)?$/;

/** `replacements` that write names, namespaces or resources are not modelled: reported by name. */
function checkReplacement(entry: unknown, index: number, ctx: EntryContext): void {
  const fromFile = isObject(entry) && typeof entry['path'] === 'string' ? localPath(entry['path'], 'replacements', ctx) : undefined;
  const replacements = fromFile === undefined ? [entry] : (ctx.files.get(fromFile)?.documents ?? []).flatMap((doc) => (Array.isArray(doc) ? doc : [doc]));
  const touched = replacements.flatMap((replacement) =>
    (isObject(replacement) ? listOf(replacement['targets']) : []).flatMap((target) => (isObject(target) ? stringList(target['fieldPaths']) : [])),
  ).filter((path) => MODELLED_FIELD.test(path));
  if (touched.length > 0) {
    ctx.warnings.push({ code: 'unsupported-transformer', file: ctx.file, message: `${ctx.file}: replacements[${index}] writes ${touched.join(', ')}, which kerf does not model; names, namespaces or resources may differ` });
  }
}

function parseInline(text: string, ctx: EntryContext, where: string): unknown[] | undefined {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((doc) => doc.errors.length > 0)) {
    ctx.warnings.push({ code: 'unparsed-patch', file: ctx.file, message: `${ctx.file}: ${where} inline patch does not parse as YAML; ignored` });
    return undefined;
  }
  return list.map((doc) => doc.toJS() as unknown);
}

/** kustomize tells a JSON6902 patch from a strategic-merge one by its shape: a list of operations. */
function contentOf(documents: unknown[], forceJson: boolean): PatchContent {
  const first = documents.find((doc) => doc !== null && doc !== undefined);
  if (forceJson || Array.isArray(first)) {
    const operations = (Array.isArray(first) ? first : []).filter(
      (op): op is Json6902Operation => isObject(op) && typeof op['op'] === 'string' && typeof op['path'] === 'string',
    );
    return { type: 'json6902', operations };
  }
  return { type: 'strategic-merge', documents: documents.filter(isObject) };
}

function patchFromFile(entry: string, field: PatchField, ctx: EntryContext): { file?: string; content: PatchContent } | undefined {
  const path = localPath(entry, field, ctx);
  if (path === undefined) return undefined;
  warnIfOutsideRoot(entry, path, field, ctx);
  const parsed = ctx.files.get(path);
  if (parsed === undefined) {
    ctx.warnings.push({ code: 'unscanned-patch', file: ctx.file, message: `${ctx.file}: ${field} file ${entry} is not among the scanned YAML files; its effect is unknown` });
    return { file: path, content: { type: 'unknown' } };
  }
  return { file: path, content: contentOf(parsed.documents, field === 'patchesJson6902') };
}

function legacyStrategicMerge(entry: unknown, index: number, ctx: EntryContext): PatchEntry[] {
  if (typeof entry !== 'string') return [];
  const base = { kustomization: ctx.file, field: 'patchesStrategicMerge' as const, index };
  // An entry is a file path unless it is multi-line YAML, as kustomize decides.
  if (!entry.includes('\n')) {
    const fromFile = patchFromFile(entry, 'patchesStrategicMerge', ctx);
    return fromFile === undefined ? [] : [{ ...base, ...fromFile }];
  }
  const docs = parseInline(entry, ctx, `patchesStrategicMerge[${index}]`);
  return docs === undefined ? [] : [{ ...base, content: contentOf(docs, false) }];
}

function selectorOf(value: unknown): PatchSelector | undefined {
  if (!isObject(value)) return undefined;
  const keys = ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector'] as const;
  return Object.fromEntries(keys.flatMap((key) => (typeof value[key] === 'string' ? [[key, value[key]]] : []))) as PatchSelector;
}

function patchEntry(entry: unknown, field: 'patches' | 'patchesJson6902', index: number, ctx: EntryContext): PatchEntry[] {
  if (!isObject(entry)) return [];
  const target = selectorOf(entry['target']);
  const base = { kustomization: ctx.file, field, index, ...(target === undefined ? {} : { target }) };
  if (typeof entry['path'] === 'string') {
    const fromFile = patchFromFile(entry['path'], field, ctx);
    return fromFile === undefined ? [] : [{ ...base, ...fromFile }];
  }
  if (typeof entry['patch'] === 'string') {
    const docs = parseInline(entry['patch'], ctx, `${field}[${index}]`);
    return docs === undefined ? [] : [{ ...base, content: contentOf(docs, field === 'patchesJson6902') }];
  }
  return [];
}
