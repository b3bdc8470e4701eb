// A compact server-side apply: the applied configuration is merged (strategic merge semantics),
// each Apply manager's field set is kept in metadata.managedFields (FieldsV1), fields a manager
// stops applying are removed unless another manager owns them, and overlapping ownership with
// a different value is a 409 conflict unless forced. Update (non-apply) managers are not tracked.
import { ApiError } from './api-error.js';
import type { KubeObject } from './object-store.js';
import { applyStrategicMergePatch, canonicalJson, isObject, MERGE_KEYS } from './patch.js';
import type { Json, JsonObject } from './patch.js';
import type { ResourceType } from './resources.js';

/** A field path as FieldsV1 tokens: `f:name`, `k:{"name":"app"}`, or `.` for a list item itself. */
type FieldPath = string[];

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface ApplyOptions {
  manager: string;
  force: boolean;
  apiVersion: string;
  time: string;
  type: ResourceType;
}

function fieldSet(value: Json, prefix: FieldPath = [], out: FieldPath[] = []): FieldPath[] {
  if (!isObject(value) || Object.keys(value).length === 0) {
    out.push(prefix);
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, `f:${key}`];
    const mergeKey = MERGE_KEYS[key];
    if (Array.isArray(child) && mergeKey && child.every(isObject)) {
      for (const item of child as JsonObject[]) {
        const itemPath = [...path, `k:${JSON.stringify({ [mergeKey]: item[mergeKey] ?? null })}`];
        out.push([...itemPath, '.']);
        fieldSet(item, itemPath, out);
      }
    } else {
      fieldSet(child, path, out);
    }
  }
  return out;
}

/** Fields an apply configuration sets; of metadata only labels and annotations are owned. */
function appliedFields(config: KubeObject): FieldPath[] {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = config;
  const owned: JsonObject = { ...(rest as JsonObject) };
  const meta: JsonObject = {};
  if (metadata.labels) meta.labels = metadata.labels;
  if (metadata.annotations) meta.annotations = metadata.annotations;
  if (Object.keys(meta).length > 0) owned.metadata = meta;
  return Object.keys(owned).length === 0 ? [] : fieldSet(owned);
}

function toFieldsV1(paths: FieldPath[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const token of path) {
      node[token] ??= {};
      node = node[token] as JsonObject;
    }
  }
  return root;
}

function fromFieldsV1(trie: JsonObject, prefix: FieldPath = [], out: FieldPath[] = []): FieldPath[] {
  const entries = Object.entries(trie);
  if (entries.length === 0 && prefix.length > 0) out.push(prefix);
  for (const [token, child] of entries) fromFieldsV1(isObject(child) ? child : {}, [...prefix, token], out);
  return out;
}

function step(value: Json | undefined, token: string): Json | undefined {
  if (token.startsWith('f:')) return isObject(value) ? value[token.slice(2)] : undefined;
  if (token.startsWith('k:') && Array.isArray(value)) {
    const keys = JSON.parse(token.slice(2)) as JsonObject;
    return value.find((item) => isObject(item) && Object.entries(keys).every(([key, wanted]) => item[key] === wanted));
  }
  return value;
}

function valueAt(object: Json, path: FieldPath): Json | undefined {
  return path.reduce<Json | undefined>((current, token) => step(current, token), object);
}

function removeAt(object: Json, path: FieldPath): void {
  const last = path[path.length - 1];
  const itemRemoval = last === '.';
  const parentPath = itemRemoval ? path.slice(0, -2) : path.slice(0, -1);
  const container = valueAt(object, parentPath);
  if (itemRemoval && Array.isArray(container)) {
    const item = step(container, path[path.length - 2]!);
    if (item !== undefined) container.splice(container.indexOf(item), 1);
  } else if (isObject(container) && last?.startsWith('f:')) {
    delete container[last.slice(2)];
  }
}

const key = (path: FieldPath): string => JSON.stringify(path);

export function applyServerSide(existing: KubeObject | undefined, config: KubeObject, options: ApplyOptions): KubeObject {
  const entries = ((existing?.metadata.managedFields ?? []) as ManagedFieldsEntry[]).filter((entry) => entry.fieldsType === 'FieldsV1');
  const mine = entries.find((entry) => entry.manager === options.manager && entry.operation === 'Apply');
  let others = entries.filter((entry) => entry !== mine);
  const applied = appliedFields(config);
  const appliedKeys = new Set(applied.map(key));

  if (existing) {
    const conflicts: string[] = [];
    for (const other of others.filter((entry) => entry.operation === 'Apply')) {
      for (const path of fromFieldsV1(other.fieldsV1)) {
        if (!appliedKeys.has(key(path)) || path[path.length - 1] === '.') continue;
        if (canonicalJson(valueAt(existing as unknown as Json, path)) !== canonicalJson(valueAt(config as unknown as Json, path))) {
          conflicts.push(`conflict with "${other.manager}" using ${other.apiVersion}: .${path.map((token) => token.replace(/^f:/, '')).join('.')}`);
        }
      }
    }
    if (conflicts.length > 0 && !options.force) {
      throw new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? 's' : ''}: ${conflicts.join('\n')}`, {
        name: existing.metadata.name ?? '',
        group: options.type.group,
        kind: options.type.kind,
        causes: conflicts.map((message) => ({ reason: 'FieldManagerConflict', message })),
      });
    }
    // Forcing takes the conflicting fields away from their previous owners.
    others = others.map((entry) => ({ ...entry, fieldsV1: toFieldsV1(fromFieldsV1(entry.fieldsV1).filter((path) => !appliedKeys.has(key(path)))) }));
  }

  const { metadata: configMeta, ...configRest } = config;
  const merged = existing
    ? (applyStrategicMergePatch(existing as unknown as Json, { ...(configRest as JsonObject), metadata: { labels: configMeta.labels ?? {}, annotations: configMeta.annotations ?? {} } } as Json) as unknown as KubeObject)
    : structuredClone(config);

  const ownedByOthers = new Set(others.flatMap((entry) => fromFieldsV1(entry.fieldsV1)).map(key));
  for (const path of mine ? fromFieldsV1(mine.fieldsV1) : []) {
    if (!appliedKeys.has(key(path)) && !ownedByOthers.has(key(path))) removeAt(merged as unknown as Json, path);
  }

  const entry: ManagedFieldsEntry = { manager: options.manager, operation: 'Apply', apiVersion: options.apiVersion, time: options.time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(applied) };
  merged.metadata.managedFields = [...others.filter((other) => Object.keys(other.fieldsV1).length > 0), ...(applied.length > 0 ? [entry] : [])];
  return merged;
}
