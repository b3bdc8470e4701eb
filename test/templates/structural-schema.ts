// Validates objects against a CRD's openAPIV3Schema the way the API server would, closely enough for tests:
// the Kubernetes dialect (nullable, x-kubernetes-*) is translated to JSON Schema and handed to ajv.
// ajv is not a direct dependency: it comes with kubernetes-models (@kubernetes-models/validate).
import { Ajv } from 'ajv';
import type { ErrorObject } from 'ajv';

export type StructuralSchema = { [key: string]: unknown };

export interface SchemaProblem {
  /** JSON pointer of the offending value, e.g. `/spec/apply/maintenanceWindows`. */
  path: string;
  message: string;
}

const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SUBSCHEMAS = new Set(['items', 'not', 'additionalProperties', 'additionalItems']);

function isSchema(value: unknown): value is StructuralSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The Kubernetes structural schema as plain JSON Schema (draft 7). */
export function toJsonSchema(schema: StructuralSchema): StructuralSchema {
  const out: StructuralSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'nullable') continue;
    if (SUBSCHEMA_MAPS.has(key) && isSchema(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? toJsonSchema(sub) : sub]),
      );
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub: unknown) => (isSchema(sub) ? toJsonSchema(sub) : sub));
    } else if (SUBSCHEMAS.has(key) && isSchema(value)) {
      out[key] = toJsonSchema(value);
    } else {
      out[key] = value;
    }
  }
  // The API server prunes unknown fields, and kubectl's default (strict) field validation refuses them:
  // either way a misspelt field never takes effect, so the tests treat it as an error.
  if (
    isSchema(schema.properties) &&
    schema.additionalProperties === undefined &&
    schema['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    out.additionalProperties = false;
  }
  // kube-openapi validates null only against `type`/`nullable` and a top-level `enum`, and an enum never
  // matches null; so nullable admits null only where the schema has no top-level enum.
  if (schema.nullable === true && schema.enum === undefined) {
    return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function newAjv(): Ajv {
  // strictTypes off: Kubernetes puts `pattern` beside `anyOf: [integer, string]` (int-or-string).
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  ajv.addFormat('date-time', (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)));
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

function problems(errors: ErrorObject[] | null | undefined): SchemaProblem[] {
  return (errors ?? [])
    .filter((error) => error.keyword !== 'anyOf') // the branch errors below it say what is wrong
    .map((error) => ({
      path: error.instancePath || '/',
      message:
        error.keyword === 'additionalProperties'
          ? `unknown field ${String((error.params as { additionalProperty?: unknown }).additionalProperty)}`
          : (error.message ?? error.keyword),
    }));
}

/** A validator for one CRD version's openAPIV3Schema; it returns every problem, empty when valid. */
export function structuralValidator(schema: StructuralSchema): (value: unknown) => SchemaProblem[] {
  const validate = newAjv().compile(toJsonSchema(schema));
  return (value) => (validate(value) ? [] : problems(validate.errors));
}
