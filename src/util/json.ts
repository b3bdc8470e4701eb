// Plain data as parsed from YAML or JSON: one reading of "a mapping" and "a non-empty string" for every module.
export type Json = Record<string, unknown>;

/** A mapping (not null, not a list). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a non-empty string. */
export function nonEmptyText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The value when it is a mapping, else an empty one: for reading optional nested fields. */
export function objectOrEmpty(value: unknown): Json {
  return isObject(value) ? value : {};
}

/** A mapping's values as strings (labels, selectors); `{}` for anything else. */
export function stringMap(value: unknown): Record<string, string> {
  return isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : {};
}

/** An int-or-string field (`maxUnavailable: 1` or `25%`); undefined for anything else. */
export function intOrString(value: unknown): number | string | undefined {
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}

/** JSON with every mapping's keys sorted: the same data in another key order reads the same (an API server sorts them). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
