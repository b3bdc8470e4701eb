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
