// The three patch formats of the apiserver: RFC 6902 JSON Patch, RFC 7386 JSON Merge Patch and
// Kubernetes strategic merge patch (lists of named items merge by key instead of being replaced).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class PatchError extends Error {}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

export interface JsonPatchOperation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(array: Json[], token: string, forInsert: boolean): number {
  if (forInsert && token === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index "${token}"`);
  const index = Number(token);
  if (index > array.length || (!forInsert && index === array.length)) {
    throw new PatchError(`array index ${index} out of bounds`);
  }
  return index;
}

function parentOf(document: Json, tokens: string[], path: string): { parent: Json; last: string } {
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(current)
      ? current[arrayIndex(current, token, false)]
      : isObject(current)
        ? current[token]
        : undefined;
    if (next === undefined) throw new PatchError(`path "${path}" does not exist`);
    current = next;
  }
  return { parent: current, last: tokens[tokens.length - 1]! };
}

function getAt(document: Json, path: string): Json {
  let current = document;
  for (const token of pointer(path)) {
    const next: Json | undefined = Array.isArray(current)
      ? current[arrayIndex(current, token, false)]
      : isObject(current)
        ? current[token]
        : undefined;
    if (next === undefined) throw new PatchError(`path "${path}" does not exist`);
    current = next;
  }
  return current;
}

function removeAt(document: Json, path: string): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  const { parent, last } = parentOf(document, tokens, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, false), 1)[0]!;
  if (isObject(parent) && last in parent) {
    const removed = parent[last]!;
    delete parent[last];
    return removed;
  }
  throw new PatchError(`path "${path}" does not exist`);
}

function addAt(document: Json, path: string, value: Json, replace: boolean): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(document, tokens, path);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, !replace);
    parent.splice(index, replace ? 1 : 0, value);
  } else if (isObject(parent)) {
    if (replace && !(last in parent)) throw new PatchError(`path "${path}" does not exist`);
    parent[last] = value;
  } else {
    throw new PatchError(`path "${path}" has no parent object`);
  }
  return document;
}

export function applyJsonPatch(document: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw new PatchError('a JSON patch must be an array of operations');
  let result = clone(document);
  for (const operation of operations as JsonPatchOperation[]) {
    switch (operation.op) {
      case 'add':
        result = addAt(result, operation.path, clone(operation.value ?? null), false);
        break;
      case 'replace':
        result = addAt(result, operation.path, clone(operation.value ?? null), true);
        break;
      case 'remove':
        removeAt(result, operation.path);
        break;
      case 'move': {
        const moved = removeAt(result, operation.from ?? '');
        result = addAt(result, operation.path, moved, false);
        break;
      }
      case 'copy':
        result = addAt(result, operation.path, clone(getAt(result, operation.from ?? '')), false);
        break;
      case 'test':
        if (canonicalJson(getAt(result, operation.path)) !== canonicalJson(operation.value)) {
          throw new PatchError(`testing value ${operation.path} failed`);
        }
        break;
      default:
        throw new PatchError(`unexpected operation "${String(operation.op)}"`);
    }
  }
  return result;
}

export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key] ?? null, value);
  }
  return result;
}

/**
 * Merge keys of the list fields kerf and its tests touch, as declared by `patchMergeKey` in the
 * Kubernetes Go types. Lists not named here are replaced whole, as strategic merge does for lists
 * without a merge key.
 */
export const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  resizePolicy: 'resourceName',
  conditions: 'type',
  containerStatuses: 'name',
  initContainerStatuses: 'name',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  // Mutating/ValidatingWebhookConfiguration: a caBundle written by another manager survives an apply.
  webhooks: 'name',
};

const DIRECTIVE_PREFIXES = ['$setElementOrder/', '$retainKeys', '$deleteFromPrimitiveList/'];

function mergeList(field: string, target: Json[], patch: Json[]): Json[] {
  const key = MERGE_KEYS[field];
  if (!key) return clone(patch.filter((item) => !(isObject(item) && item.$patch !== undefined)));
  if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
    return clone(patch.filter((item) => !(isObject(item) && item.$patch === 'replace')));
  }
  const result = clone(target);
  for (const item of patch) {
    if (!isObject(item)) throw new PatchError(`list "${field}" items must be objects with a "${key}"`);
    const index = result.findIndex((existing) => isObject(existing) && existing[key] === item[key]);
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = applyStrategicMergePatch(result[index]!, item);
    } else {
      result.push(applyStrategicMergePatch({}, item));
    }
  }
  return result;
}

function removeFromPrimitiveList(target: Json | undefined, remove: Json | undefined): Json[] {
  const values = Array.isArray(remove) ? remove.map((value) => JSON.stringify(value)) : [];
  return (Array.isArray(target) ? target : []).filter((value) => !values.includes(JSON.stringify(value)));
}

export function applyStrategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return applyStrategicMergePatch({}, rest);
  }
  if (patch.$patch === 'delete') return null;
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      result[field] = removeFromPrimitiveList(result[field], value);
      continue;
    }
    // kubectl sends ordering and retain-keys directives; order is not observable here.
    if (DIRECTIVE_PREFIXES.some((prefix) => key.startsWith(prefix))) continue;
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      const current = result[key];
      result[key] = mergeList(key, Array.isArray(current) ? current : [], value);
    } else if (isObject(value)) {
      const merged = applyStrategicMergePatch(result[key] ?? null, value);
      if (merged === null) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  return result;
}

/** JSON with object keys sorted: equal for equal values whatever order a client serialised keys in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}
