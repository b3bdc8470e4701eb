// The resources editor's model of a change on plain objects (`toJS()` output): what the edited
// document must read like. Used to refuse a request above its limit before editing, and to
// confirm the edited text afterwards.
import type { ResourceField, ResourceName } from '../model/types.js';
import { isObject, type Json } from '../util/json.js';

export type ResourceGroup = 'requests' | 'limits';

export interface FieldChange {
  container: string;
  field: ResourceField;
  to: string | null;
}

export function splitField(field: ResourceField): [ResourceGroup, ResourceName] {
  return field.split('.') as [ResourceGroup, ResourceName];
}

/**
 * A deep copy that gives every occurrence its own object. `toJS()` returns one shared object for
 * an anchor and its aliases, and an edit of one container must not show up in another.
 */
export function cloneTree<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneTree(item)) as T;
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cloneTree(item)])) as T;
  return value;
}

/** The pod template's container (or init container) named `name`, as the editor finds it. */
export function findContainerJs(document: unknown, name: string): Json | undefined {
  const spec = [document, 'spec', 'template', 'spec'].reduce((node, key) => (isObject(node) ? node[key as string] : undefined));
  if (!isObject(spec)) return undefined;
  for (const list of [spec['containers'], spec['initContainers']]) {
    const found = Array.isArray(list) ? list.find((item) => isObject(item) && item['name'] === name) : undefined;
    if (isObject(found)) return found;
  }
  return undefined;
}

/** The field's value as text (`2` and `"2"` read alike), or undefined when absent. */
export function readField(container: Json, field: ResourceField): string | undefined {
  const [group, name] = splitField(field);
  const resources = container['resources'];
  const values = isObject(resources) ? resources[group] : undefined;
  const value = isObject(values) ? values[name] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

/** Applies changes in order (a later one for the same field wins), dropping mappings left empty. */
export function applyChangesJs(container: Json, changes: readonly FieldChange[]): void {
  for (const { field, to } of changes) {
    const [group, name] = splitField(field);
    if (to === null) {
      const values = isObject(container['resources']) ? container['resources'][group] : undefined;
      if (isObject(values)) delete values[name];
      continue;
    }
    if (!isObject(container['resources'])) container['resources'] = {};
    const resources = container['resources'] as Json;
    if (!isObject(resources[group])) resources[group] = {};
    (resources[group] as Json)[name] = to;
  }
  pruneEmpty(container);
}

/**
 * Drops empty `requests`/`limits` and an empty or null `resources`. The editor removes what it
 * empties; applied to both sides of a comparison it makes `resources: {}` and no key alike.
 */
export function pruneEmpty(container: Json): void {
  const resources = container['resources'];
  if (isObject(resources)) {
    for (const group of ['requests', 'limits'] as const) {
      const values = resources[group];
      if (isObject(values) && Object.keys(values).length === 0) delete resources[group];
    }
    if (Object.keys(resources).length === 0) delete container['resources'];
  } else if (resources === null) {
    delete container['resources'];
  }
}

/** Writes each changed field back as text, so `cpu: 2` compares equal to the string `'2'`. */
export function stringifyFields(container: Json, fields: readonly ResourceField[]): void {
  for (const field of fields) {
    const [group, name] = splitField(field);
    const resources = container['resources'];
    const values = isObject(resources) ? resources[group] : undefined;
    if (isObject(values) && values[name] !== undefined && values[name] !== null) values[name] = String(values[name]);
  }
}
