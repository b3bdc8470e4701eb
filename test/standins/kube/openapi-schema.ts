// Structural OpenAPI v3 schemas of CRDs, applied as the apiserver applies them to custom
// resources: prune unknown fields, fill defaults, then validate.
import type { StatusCause } from './api-error.js';
import { clone, isObject } from './patch.js';
import type { Json, JsonObject } from './patch.js';

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: Json[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  default?: Json;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

const ROOT_FIELDS = ['apiVersion', 'kind', 'metadata'];

/** Drops fields the schema does not declare, as the apiserver does for structural schemas. */
export function prune(value: Json, schema: Schema, root = false): Json {
  if (Array.isArray(value)) return schema.items ? value.map((item) => prune(item, schema.items!)) : value;
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const property = schema.properties?.[key];
    if (root && ROOT_FIELDS.includes(key)) result[key] = child;
    else if (property) result[key] = prune(child, property);
    else if (isObject(schema.additionalProperties)) result[key] = prune(child, schema.additionalProperties);
    else if (schema['x-kubernetes-preserve-unknown-fields'] || schema.additionalProperties === true) result[key] = child;
  }
  return result;
}

export function applyDefaults(value: Json, schema: Schema): Json {
  if (Array.isArray(value)) return schema.items ? value.map((item) => applyDefaults(item, schema.items!)) : value;
  if (!isObject(value)) return value;
  const result: JsonObject = { ...value };
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (result[key] === undefined && property.default !== undefined) result[key] = clone(property.default);
    if (result[key] !== undefined) result[key] = applyDefaults(result[key]!, property);
  }
  return result;
}

function typeOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: Json, schema: Schema): boolean {
  const actual = typeOf(value);
  // nullable applies to int-or-string fields too (a CRD's `limits.memory: null`).
  if (actual === 'null') return schema.nullable === true || (!schema.type && !schema['x-kubernetes-int-or-string']);
  if (schema['x-kubernetes-int-or-string']) return actual === 'integer' || actual === 'string';
  if (!schema.type) return true;
  return actual === schema.type || (schema.type === 'number' && actual === 'integer');
}

function shown(value: Json): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

/** Problems of `value` against `schema`, named by field path like the apiserver's causes. */
export function validateSchema(value: Json, schema: Schema, path = ''): StatusCause[] {
  const field = path || '<root>';
  if (!typeMatches(value, schema)) {
    return [{
      reason: 'FieldValueTypeInvalid',
      field,
      message: `Invalid value: ${shown(value)}: ${field} in body must be of type ${schema.type ?? 'int-or-string'}: "${typeOf(value)}"`,
    }];
  }
  const causes: StatusCause[] = [];
  if (value === null) return causes;
  if (schema.enum && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field,
      message: `Unsupported value: ${shown(value)}: supported values: ${schema.enum.map(shown).join(', ')}`,
    });
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body should match '${schema.pattern}'` });
    }
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
      causes.push({ reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${schema.maxLength} bytes` });
    }
    if (schema.minLength !== undefined && [...value].length < schema.minLength) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body should be at least ${schema.minLength} chars long` });
    }
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body must be of type date-time: ${shown(value)}` });
    }
  }
  if (typeof value === 'number') {
    const belowMin = schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum);
    const aboveMax = schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum);
    if (belowMin) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body should be greater than or equal to ${schema.minimum}` });
    if (aboveMax) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${field} in body should be less than or equal to ${schema.maximum}` });
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      causes.push({ reason: 'FieldValueTooMany', field, message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
    }
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value.length}: ${field} in body should have at least ${schema.minItems} items` });
    }
    if (schema.items) value.forEach((item, index) => causes.push(...validateSchema(item, schema.items!, `${path}[${index}]`)));
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    for (const required of schema.required ?? []) {
      if (value[required] === undefined) causes.push({ reason: 'FieldValueRequired', field: join(path, required), message: 'Required value' });
    }
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      causes.push({ reason: 'FieldValueTooMany', field, message: `Too many: ${keys.length}: must have at most ${schema.maxProperties} items` });
    }
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${keys.length}: ${field} in body should have at least ${schema.minProperties} properties` });
    }
    for (const [key, child] of Object.entries(value)) {
      const property = schema.properties?.[key] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (property && !(path === '' && key === 'metadata')) causes.push(...validateSchema(child, property, join(path, key)));
    }
  }
  causes.push(...combinators(value, schema, path, field));
  return causes;
}

function combinators(value: Json, schema: Schema, path: string, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const part of schema.allOf ?? []) causes.push(...validateSchema(value, part, path));
  if (schema.anyOf && !schema.anyOf.some((part) => validateSchema(value, part, path).length === 0)) {
    causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body must match at least one schema (anyOf)` });
  }
  if (schema.oneOf && schema.oneOf.filter((part) => validateSchema(value, part, path).length === 0).length !== 1) {
    causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body must match exactly one schema (oneOf)` });
  }
  if (schema.not && validateSchema(value, schema.not, path).length === 0) {
    causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body must not match the schema (not)` });
  }
  return causes;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
