/**
 * The subset of OpenAPI 3.0 schema keywords GitHub's descriptions of the
 * endpoints we serve rely on. Annotations (description, example, format, …)
 * are ignored, as are numeric and length bounds.
 */
export interface JsonSchema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export type ResolveRef = (ref: string) => JsonSchema;

/** Every violation of `schema` by `value`, each as `<json path>: <problem>`; empty when it conforms. */
export function validateSchema(schema: JsonSchema, value: unknown, resolveRef: ResolveRef, at = '$'): string[] {
  if (schema.$ref) return validateSchema(resolveRef(schema.$ref), value, resolveRef, at);
  if (value === null && schema.nullable) return [];
  if (schema.enum && !schema.enum.includes(value)) {
    return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  }
  if (schema.type && !hasType(value, schema.type)) {
    return [`${at}: expected ${schema.type}${schema.nullable ? ' or null' : ''}, got ${describe(value)}`];
  }
  const problems: string[] = [];
  for (const part of schema.allOf ?? []) problems.push(...validateSchema(part, value, resolveRef, at));
  // GitHub's oneOf alternatives overlap (e.g. three nullable alternatives of a
  // validation error's `value`), so "exactly one" would reject real answers: at least one must match.
  for (const alternatives of [schema.anyOf, schema.oneOf]) {
    if (!alternatives) continue;
    const failures = alternatives.map((alternative) => validateSchema(alternative, value, resolveRef, at));
    if (failures.every((failure) => failure.length > 0)) {
      problems.push(`${at}: matches none of ${alternatives.length} alternatives (${failures.map((f) => f[0]).join(' | ')})`);
    }
  }
  if (isObject(value)) problems.push(...validateObject(schema, value, resolveRef, at));
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => problems.push(...validateSchema(schema.items!, item, resolveRef, `${at}[${index}]`)));
  }
  return problems;
}

function validateObject(schema: JsonSchema, value: Record<string, unknown>, resolveRef: ResolveRef, at: string): string[] {
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (!(name in value)) problems.push(`${at}: missing required property "${name}"`);
  }
  for (const [name, property] of Object.entries(value)) {
    const declared = schema.properties?.[name];
    if (declared) {
      problems.push(...validateSchema(declared, property, resolveRef, `${at}.${name}`));
    } else if (schema.additionalProperties === false) {
      problems.push(`${at}: unexpected property "${name}"`);
    } else if (typeof schema.additionalProperties === 'object') {
      problems.push(...validateSchema(schema.additionalProperties, property, resolveRef, `${at}.${name}`));
    }
  }
  return problems;
}

function hasType(value: unknown, type: NonNullable<JsonSchema['type']>): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
    case 'boolean':
      return typeof value === type;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
