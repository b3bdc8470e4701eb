// The shape half of validation: RightsizingPolicy and RightsizingRecommendation against the
// openAPIV3Schema of their CRDs in templates/crds/ (the schema the API server enforces, so Git and
// the cluster accept the same objects), `.kerf/config.yaml` against templates/kerf-config.schema.json.
// The Kubernetes dialect (nullable, x-kubernetes-*) is translated to JSON Schema and handed to ajv,
// which also applies the schemas' defaults: this is the one place defaults come from.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { embeddedTemplate } from '../embedded-templates.js';
import { didYouMean } from '../util/did-you-mean.js';

export type StructuralSchema = { [key: string]: unknown };

/** One shape problem: a stable code, the path of the offending value, and what is wrong. */
export interface SchemaIssue {
  code: ProblemCode;
  /** Path segments of the offending value (for an unknown or missing key, the key itself). */
  path: (string | number)[];
  message: string;
}

/** Stable problem codes; consumers switch on these, never on message text. The README lists them. */
export type ProblemCode =
  | 'UnknownField'
  | 'MissingField'
  | 'InvalidEnum'
  | 'WrongType'
  | 'InvalidQuantity'
  | 'InvalidDuration'
  | 'InvalidFormat'
  | 'OutOfRange'
  | 'InvalidValue'
  | 'InvalidName'
  | 'InvalidSelector'
  | 'RequestAboveLimit'
  | 'DuplicateContainer'
  | 'UnknownKind'
  | 'UnknownApiVersion'
  | 'InvalidWindow'
  | 'InvalidSchedule'
  | 'InvalidTimeZone'
  | 'InvalidTime'
  | 'TooManyWindows'
  | 'Yaml11Boolean'
  | 'YamlSyntax'
  | 'DuplicateKey'
  | 'AliasLimit'
  | 'NotUtf8'
  | 'UnparsableObject'
  | 'KustomizationCycle'
  | 'KustomizeError'
  | 'RemoteResource'
  | 'UnsupportedTransformer'
  | 'UnknownRoot'
  | 'UnknownPath'
  | 'PathOutsideRepo'
  | 'PathNotFound'
  | 'InvalidBranchPrefix'
  | 'DuplicateWorkload'
  | 'TargetNotFound'
  | 'UnsupportedTargetKind'
  | 'AmbiguousPolicy'
  | 'ClusterUnreachable'
  | 'EditRefused'
  | 'UnplaceableContainer';

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
  // either way a misspelt field never takes effect, so it is an error.
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

/** ajv set up for the Kubernetes formats; `useDefaults` fills in the schemas' defaults as it validates. */
export function newAjv(options: { useDefaults?: boolean } = {}): Ajv {
  // strictTypes off: Kubernetes puts `pattern` beside `anyOf: [integer, string]` (int-or-string).
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, verbose: true, useDefaults: options.useDefaults ?? false });
  ajv.addFormat('date-time', (value: string) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)));
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

/**
 * A file of templates/: beside src/ and lib/ (one module per file, two levels down) and beside
 * dist/ (the Action's bundle, one level down).
 */
export function templateText(name: string): string {
  const embedded = embeddedTemplate(name);
  if (embedded !== undefined) return embedded;
  const candidates = [new URL(`../../templates/${name}`, import.meta.url), new URL(`../templates/${name}`, import.meta.url)];
  for (const url of candidates) {
    try {
      return readFileSync(url, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error(`templates/${name} not found beside ${import.meta.url}`);
}

/** The served version's openAPIV3Schema of one of kerf's CRDs. */
export function crdSchema(file: 'rightsizingpolicies.yaml' | 'rightsizingrecommendations.yaml'): StructuralSchema {
  const crd = parseYaml(templateText(`crds/${file}`)) as { spec: { versions: { served: boolean; schema: { openAPIV3Schema: StructuralSchema } }[] } };
  const served = crd.spec.versions.find((version) => version.served);
  if (!served) throw new Error(`templates/crds/${file} serves no version`);
  return served.schema.openAPIV3Schema;
}

const DURATION_PATTERN = '^(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';

const suggestion = (word: string, candidates: readonly string[]): string => {
  const near = didYouMean(word, candidates);
  return near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`;
};

function pathOf(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

const isQuantityPath = (path: readonly (string | number)[]): boolean =>
  path.length >= 2 && ['requests', 'limits'].includes(String(path[path.length - 2])) && ['cpu', 'memory'].includes(String(path[path.length - 1]));

function issueOf(error: ErrorObject): SchemaIssue | undefined {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return { code: 'UnknownField', path: [...path, key], message: `unknown field ${JSON.stringify(key)}${suggestion(key, known)}${known.length > 0 ? ` (allowed: ${known.join(', ')})` : ''}` };
    }
    case 'required':
      return { code: 'MissingField', path: [...path, String(params.missingProperty)], message: 'is required' };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      return { code: 'InvalidEnum', path, message: `must be one of ${allowed.join(', ')}, got ${JSON.stringify(error.data)}${suggestion(String(error.data), allowed)}` };
    }
    case 'type':
      // A nullable value's `null` branch fails for every non-null value; the other branch says what is wrong.
      if (error.schema === 'null') return undefined;
      if (isQuantityPath(path)) return { code: 'InvalidQuantity', path, message: `must be a quantity such as 250m or 1Gi, got ${describe(error.data)}` };
      return { code: 'WrongType', path, message: `must be ${String(error.schema)}, got ${describe(error.data)}` };
    case 'pattern':
      if (isQuantityPath(path)) return { code: 'InvalidQuantity', path, message: `must be a non-negative quantity such as 250m or 1Gi, got ${JSON.stringify(error.data)}` };
      if (error.schema === DURATION_PATTERN) return { code: 'InvalidDuration', path, message: `must be a Go duration such as 90s, 10m or 1h30m (no d), got ${JSON.stringify(error.data)}` };
      return { code: 'InvalidFormat', path, message: `${error.message ?? 'does not match its pattern'}, got ${JSON.stringify(error.data)}` };
    case 'format':
      return { code: 'InvalidFormat', path, message: `must be a ${String(error.schema)}, got ${JSON.stringify(error.data)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'maxLength':
      return { code: 'OutOfRange', path, message: `${error.message ?? error.keyword}, got ${describe(error.data)}` };
    case 'anyOf':
    case 'oneOf':
      return undefined; // the branch errors say what is wrong
    default:
      return { code: 'InvalidValue', path, message: error.message ?? error.keyword };
  }
}

function describe(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (a number too large to represent)`;
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

/** One issue per path and code: int-or-string fails both branches, which is one problem. */
function issuesOf(errors: ErrorObject[] | null | undefined): SchemaIssue[] {
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const error of errors ?? []) {
    const issue = issueOf(error);
    if (!issue) continue;
    const key = `${issue.code} ${issue.path.join('.')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

export type ShapeValidator = (value: unknown) => SchemaIssue[];

/** A validator of one schema; it fills in defaults in the value it is given. */
export function shapeValidator(schema: StructuralSchema, options: { useDefaults?: boolean; kubernetes?: boolean } = {}): ShapeValidator {
  let validate: ValidateFunction | undefined;
  return (value) => {
    validate ??= newAjv(options).compile(options.kubernetes === false ? schema : toJsonSchema(schema));
    return validate(value) ? [] : issuesOf(validate.errors);
  };
}

export const validatePolicyShape = shapeValidator(crdSchema('rightsizingpolicies.yaml'), { useDefaults: true });
export const validateRecommendationShape = shapeValidator(crdSchema('rightsizingrecommendations.yaml'), { useDefaults: true });
export const validateConfigShape = shapeValidator(JSON.parse(templateText('kerf-config.schema.json')) as StructuralSchema, { kubernetes: false, useDefaults: true });

/** `spec.apply.maintenanceWindows[0].duration`: the field path as errors show it. */
export function fieldPath(path: readonly (string | number)[]): string {
  return path.reduce<string>((out, segment) => (typeof segment === 'number' ? `${out}[${segment}]` : out ? `${out}.${segment}` : segment), '');
}
