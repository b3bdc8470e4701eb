// Helm-rendered workloads: the rendered Deployment is not in the repo, so each `helm:` entry of
// `.kerf/config.yaml` says where the values setting its containers' resources are. A mapped
// workload joins the index like a manifest one (its edits go to the values); a broken entry holds
// its workload with the reason, never a guess.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { parseDocument } from 'yaml';
import type { ContainerSpec, HelmMapping, HelmValuesSource, KerfConfig, PlanError, Workload, WorkloadKind } from '../../model/types.js';
import type { RepoIndex } from '../scan.js';
import { decodeUtf8, parseFile, type ScannedFile } from '../scanned-file.js';
import { workloadKey } from '../../util/workload-key.js';
import { PARSE_OPTIONS } from '../edit-yaml.js';
import { valueAt } from './values-edit.js';
import { findReleases, type HelmIndex } from './releases.js';
import { canonicalJson, isObject, nonEmptyText, type Json } from '../../util/json.js';



class MappingError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }
}

/** Adds the workloads of `config.helm` to the index (reading the files they name) and records the repo's releases. */
export async function addHelmWorkloads(index: RepoIndex, config: KerfConfig): Promise<void> {
  const helm: HelmIndex = { held: new Map(), releases: findReleases(index.files) };
  index.helm = helm;
  for (const mapping of config.helm ?? []) {
    const field = `helm[${mapping.index}]`;
    const workload = isObject(mapping.workload) ? mapping.workload : undefined;
    const key = workload && workloadKey({ namespace: String(workload.namespace), kind: String(workload.kind), name: String(workload.name) });
    // The schema already reported the entry; its workload is held with that reason.
    if (mapping.invalid !== undefined) {
      if (key) helm.held.set(key, { code: 'InvalidHelmMapping', object: key, field, message: `.kerf/config.yaml: ${field}: ${mapping.invalid}` });
      continue;
    }
    try {
      const built = await mappedWorkload(index, mapping);
      if (index.workloads.has(key as string)) throw new MappingError('DuplicateWorkload', `${key} is in the repo as a manifest too; map it or keep the manifest, not both`);
      // Manifests the index refused (several roots or files define them) are manifests too: the mapping must not hide that.
      const conflict = index.conflicts.get(key as string);
      if (conflict) throw new MappingError('DuplicateWorkload', `${key} is in the repo as a manifest too (${conflict.message}); map it or keep the manifests, not both`);
      index.workloads.set(key as string, built);
    } catch (error) {
      if (!(error instanceof MappingError)) throw error;
      const problem: PlanError = { code: error.code, ...(error.file !== undefined && { file: error.file }), object: key as string, field, message: `.kerf/config.yaml: ${field}: ${key}: ${error.message}; the workload is held` };
      index.errors.push(problem);
      helm.held.set(key as string, problem);
    }
  }
}

async function mappedWorkload(index: RepoIndex, mapping: HelmMapping): Promise<Workload> {
  const sources = (['helmRelease', 'application', 'valuesFile'] as const).filter((source) => mapping[source] !== undefined);
  if (sources.length !== 1) throw new MappingError('InvalidHelmMapping', `needs exactly one of helmRelease, application or valuesFile (has ${sources.join(', ') || 'none'})`);
  const source = await valuesSource(index, mapping);
  const values = readValues(index, source);
  const containers: ContainerSpec[] = Object.keys(source.containers).map((name) => {
    const keys = source.containers[name] as string[];
    const holder = valueAt(values, keys.slice(0, -1));
    if (keys.length > 1 && !isObject(holder)) throw new MappingError('HelmValuesPathNotFound', `container ${name}: ${source.owner} values have no mapping at ${keys.slice(0, -1).join('.')}`, source.file);
    const resources = valueAt(values, keys);
    if (resources !== undefined && resources !== null && !isObject(resources)) throw new MappingError('HelmValuesPathNotFound', `container ${name}: ${keys.join('.')} in the ${source.owner} values is not a mapping`, source.file);
    return { name, init: false, image: '', envNames: [], resizePolicy: [], requests: quantities(resources, 'requests'), limits: quantities(resources, 'limits') };
  });
  const replicas = mapping.replicas === undefined ? undefined : valueAt(values, mapping.replicas.split('.'));
  if (replicas !== undefined && typeof replicas !== 'number') throw new MappingError('HelmValuesPathNotFound', `replicas: ${mapping.replicas} in the ${source.owner} values is not a number`, source.file);
  const line = heldFile(index, source.file)?.lines[source.document];
  return {
    ref: { namespace: mapping.workload.namespace, kind: mapping.workload.kind as WorkloadKind, name: mapping.workload.name },
    labels: mapping.labels ?? {},
    annotations: {},
    ...(replicas !== undefined && { replicas }),
    templateLabels: mapping.labels ?? {},
    updateStrategy: {},
    containers,
    source: { file: source.file, ...(line !== undefined && { line }), document: source.document, name: mapping.workload.name },
    helm: source,
  };
}

function quantities(resources: unknown, group: 'requests' | 'limits'): Record<string, string> {
  const values = isObject(resources) ? resources[group] : undefined;
  if (!isObject(values)) return {};
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined).map(([name, value]) => [name, String(value)]));
}

/** The plain values: the mapping at the path, or the YAML the embedded string holds. */
function readValues(index: RepoIndex, source: HelmValuesSource): unknown {
  const document = heldFile(index, source.file)?.documents[source.document];
  const at = valueAt(document, source.valuesPath);
  // kerf edits values, it does not create them: with no mapping to add `resources` to, the workload is held.
  if (!source.embedded) {
    if (!isObject(at)) throw new MappingError('HelmValuesPathNotFound', `${source.owner} has no values mapping${source.valuesPath.length > 0 ? ` at ${source.valuesPath.join('.')}` : ''}`, source.file);
    return at;
  }
  const inner = parseDocument(at as string, PARSE_OPTIONS);
  if (inner.errors.length > 0) throw new MappingError('InvalidHelmValues', `${source.valuesPath.join('.')} of ${source.owner} does not parse as YAML: ${inner.errors[0]?.message.split('\n')[0]}`, source.file);
  const values: unknown = inner.toJS();
  if (!isObject(values)) throw new MappingError('HelmValuesPathNotFound', `${source.valuesPath.join('.')} of ${source.owner} holds no mapping of values`, source.file);
  return values;
}

/** `sha256:<hex>` of a `helm:` entry as written (its place in the list aside). */
export function mappingFingerprint(mapping: HelmMapping): string {
  const { index: _index, invalid: _invalid, ...entry } = mapping;
  return `sha256:${createHash('sha256').update(canonicalJson(entry)).digest('hex')}`;
}

/** The namespace the object's file gives it, if any. */
function namespaceOf(object: Json): { namespace?: string } {
  const namespace = isObject(object.metadata) ? nonEmptyText(object.metadata.namespace) : undefined;
  return namespace === undefined ? {} : { namespace };
}

async function valuesSource(index: RepoIndex, mapping: HelmMapping): Promise<HelmValuesSource> {
  const containers = Object.fromEntries(Object.entries(mapping.containers).map(([name, path]) => [name, path.split('.')]));
  const identity = { entry: mapping.index, fingerprint: mappingFingerprint(mapping) };
  if (mapping.valuesFile !== undefined) {
    const file = await repoFile(index, mapping.valuesFile);
    const document = file.documents[0];
    if (document !== undefined && document !== null && !isObject(document)) throw new MappingError('InvalidHelmValues', `${mapping.valuesFile} is not a mapping of values`, mapping.valuesFile);
    return { owner: `values file ${mapping.valuesFile}`, file: mapping.valuesFile, document: 0, valuesPath: [], embedded: false, containers, ...identity };
  }
  if (mapping.helmRelease) {
    const { file, name, valuesFrom } = mapping.helmRelease;
    const { document, object } = await findObject(index, file, 'HelmRelease', name);
    const owner = `HelmRelease ${name}`;
    const spec = isObject(object.spec) ? object.spec : {};
    const release = { kind: 'HelmRelease' as const, ...namespaceOf(object), name };
    if (!valuesFrom) return { owner, file, document, valuesPath: ['spec', 'values'], embedded: false, containers, ...identity, release };
    const valuesKey = valuesFrom.valuesKey ?? 'values.yaml';
    const listed = (Array.isArray(spec.valuesFrom) ? spec.valuesFrom : []).find(
      (entry) => isObject(entry) && entry.kind === valuesFrom.kind && entry.name === valuesFrom.name && (entry.valuesKey ?? 'values.yaml') === valuesKey,
    );
    if (!isObject(listed)) throw new MappingError('HelmValuesNotFound', `${owner} in ${file} has no valuesFrom ${valuesFrom.kind} ${valuesFrom.name} key ${valuesKey}`, file);
    if (listed.targetPath !== undefined) throw new MappingError('UnsupportedHelmValues', `${owner} takes ${valuesFrom.kind} ${valuesFrom.name} into targetPath ${String(listed.targetPath)}, not as values`, file);
    refuseOverride(spec.values, containers, `${owner} spec.values`, file);
    const found = await findObject(index, valuesFrom.file, valuesFrom.kind, valuesFrom.name);
    const holder = valuesFrom.kind === 'Secret' ? 'stringData' : 'data';
    if (typeof valueAt(found.object, [holder, valuesKey]) !== 'string') {
      const encoded = valuesFrom.kind === 'Secret' && isObject(found.object.data) && valuesKey in found.object.data;
      throw new MappingError(encoded ? 'UnsupportedHelmValues' : 'HelmValuesNotFound', `${valuesFrom.kind} ${valuesFrom.name} has no ${holder}.${valuesKey}${encoded ? ' (only base64 data, which kerf does not rewrite)' : ''}`, valuesFrom.file);
    }
    return {
      owner: `${valuesFrom.kind} ${valuesFrom.name}`,
      file: valuesFrom.file,
      document: found.document,
      valuesPath: [holder, valuesKey],
      embedded: true,
      containers,
      ...identity,
      release,
      valuesFrom: { kind: valuesFrom.kind, name: valuesFrom.name },
    };
  }
  const { file, name, source, values } = mapping.application as NonNullable<HelmMapping['application']>;
  const { document, object } = await findObject(index, file, 'Application', name);
  const owner = `Application ${name}`;
  const sourcePath = source === undefined ? ['spec', 'source'] : ['spec', 'sources', String(source)];
  const helm = valueAt(object, [...sourcePath, 'helm']);
  if (!isObject(helm)) throw new MappingError('HelmValuesNotFound', `${owner} in ${file} has no ${sourcePath.join('.')}.helm`, file);
  const field = values ?? (helm.valuesObject !== undefined ? 'valuesObject' : 'values');
  if (field === 'values') {
    if (typeof helm.values !== 'string') throw new MappingError('HelmValuesNotFound', `${owner} in ${file} has no ${sourcePath.join('.')}.helm.values string`, file);
    // Argo CD lays valuesObject over values: a resources block there would win over the edit.
    refuseOverride(helm.valuesObject, containers, `${owner} helm.valuesObject`, file);
  } else if (!isObject(helm.valuesObject)) throw new MappingError('HelmValuesNotFound', `${owner} in ${file} has no ${sourcePath.join('.')}.helm.valuesObject mapping`, file);
  return { owner, file, document, valuesPath: [...sourcePath, 'helm', field], embedded: field === 'values', containers, ...identity, release: { kind: 'Application', ...namespaceOf(object), name } };
}

/** Values laid over the edited ones must not set the same resources, or the edit would not take. */
function refuseOverride(over: unknown, containers: Record<string, string[]>, where: string, file: string): void {
  for (const [name, keys] of Object.entries(containers)) {
    if (valueAt(over, keys) !== undefined) throw new MappingError('HelmValuesOverridden', `container ${name}: ${where} sets ${keys.join('.')} too and wins over the mapped values`, file);
  }
}

async function findObject(index: RepoIndex, path: string, kind: string, name: string): Promise<{ document: number; object: Json }> {
  const file = await repoFile(index, path);
  const document = file.documents.findIndex((doc) => isObject(doc) && doc.kind === kind && isObject(doc.metadata) && doc.metadata.name === name);
  if (document < 0) throw new MappingError('HelmValuesNotFound', `${path} has no ${kind} ${name}`, path);
  return { document, object: file.documents[document] as Json };
}

/**
 * Files read again whole for Helm, by index: the scan drops file texts and screens out documents of
 * kinds it has no use for (a ConfigMap or Secret a HelmRelease takes values from), so its entry may
 * lack the document wanted. Kept beside the scan's entries, which others rely on as they are.
 */
const wholeFiles = new WeakMap<RepoIndex, Map<string, ScannedFile>>();

/** The file as Helm reads it: read again whole when it was, else the scan's entry. */
function heldFile(index: RepoIndex, path: string): ScannedFile | undefined {
  return wholeFiles.get(index)?.get(path) ?? index.files.get(path);
}

/** A file of the repo, read once whole: the scan skips values files and screens out documents it has no use for. */
async function repoFile(index: RepoIndex, path: string): Promise<ScannedFile> {
  let whole = wholeFiles.get(index);
  if (!whole) wholeFiles.set(index, (whole = new Map()));
  const cached = whole.get(path);
  if (cached) return refuseBroken(cached, path);
  const known = index.files.get(path);
  // A document that did not parse stays broken whole; an index built in memory keeps the text it has.
  if (known && (known.broken !== undefined || known.text !== undefined)) return refuseBroken(known, path);
  if (isAbsolute(path) || normalize(path).split(/[\\/]/)[0] === '..') throw new MappingError('HelmValuesNotFound', `${path} is outside the repo`);
  const bytes = await readFile(join(index.root, path)).catch(() => undefined);
  if (!bytes) {
    if (known) return refuseBroken(known, path);
    throw new MappingError('HelmValuesNotFound', `${path} is not a file of the repo`, path);
  }
  const errors: PlanError[] = [];
  const text = decodeUtf8(path, bytes, errors);
  if (text === undefined) throw new MappingError('InvalidHelmValues', errors[0]?.message ?? `${path} is not UTF-8`, path);
  const scanned = parseFile(path, text, errors);
  whole.set(path, scanned);
  // A file the scan skipped joins the index (edits read the files it lists); a known entry stays as the scan made it.
  if (!known) index.files.set(path, scanned);
  return refuseBroken(scanned, path);
}

function refuseBroken(file: ScannedFile, path: string): ScannedFile {
  const problem = file.broken?.values().next().value;
  if (problem) throw new MappingError('InvalidHelmValues', `${path} does not parse: ${problem.message}`, path);
  return file;
}
