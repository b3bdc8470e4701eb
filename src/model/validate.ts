// Validation of RightsizingPolicy, RightsizingRecommendation and `.kerf/config.yaml`: one pipeline
// that the Git side, the cluster side and the helper share. The shape (and every default) comes
// from the schemas (schema.ts); the meaning (names, quantities, selectors, safety switches) is
// checked here after it. Like Renovate's config validation every problem is collected, each with a
// stable code, file, line, column, object and field path, so one run reports them all.
import type {
  ContainerRecommendation,
  KerfConfig,
  HelmMapping,
  LabelSelector,
  PlanError,
  Pricing,
  RecommendationSource,
  RecommendationStatus,
  RightsizingPolicy,
  RightsizingRecommendation,
  SourceLocation,
  WindowSpec,
  Locator,
} from './types.js';
import { MODES, RESOURCE_NAMES, STRATEGIES } from './types.js';
import { fieldPath, type ProblemCode, type SchemaIssue, validateConfigShape, validatePolicyShape, validateRecommendationShape } from './schema.js';
import { parseQuantity, QuantityError, type Quantity } from '../rules/quantity.js';
import { compiledWindows } from '../rules/window-state.js';
import { isObject, type Json } from '../util/json.js';

/** `spec.apply.healthWatch.duration` as the CRD defaults it, for objects built without the pipeline. */
export const DEFAULT_HEALTH_WATCH = '30m';

type Path = readonly (string | number)[];

/** Where the object is read from: its file and line, and how to find a field's own line. */
export interface ValidationSource extends SourceLocation {
  locate?: Locator;
}

/** Collects the problems of one object. */
class ObjectProblems {
  readonly errors: PlanError[] = [];
  constructor(
    private readonly source: ValidationSource,
    private readonly owner: string,
  ) {}

  add(code: ProblemCode, path: Path, message: string, severity?: 'warning'): void {
    const field = fieldPath(path);
    // The schema and the meaning checks can both see one fault (a negative quantity breaks the pattern too): one problem each.
    if (this.errors.some((error) => error.code === code && error.field === (field || undefined))) return;
    const where = [this.source.file, this.owner, field].filter(Boolean).join(': ');
    const position = this.source.locate?.(path);
    const line = position?.line ?? this.source.line;
    this.errors.push({
      code,
      ...(severity && { severity }),
      file: this.source.file,
      ...(line !== undefined && { line }),
      ...(position && { column: position.column }),
      object: this.owner,
      ...(field && { field }),
      message: `${where}: ${message}`,
    });
  }

  issues(issues: readonly SchemaIssue[]): void {
    for (const issue of issues) this.add(issue.code, issue.path, issue.message);
  }

  /** The window rules' problems (W1–W3, Z3), at the window field's own line; they keep their rule-book meaning. */
  windows(specs: readonly WindowSpec[], path: Path, kind: 'maintenance' | 'freeze'): void {
    for (const error of compiledWindows(specs, kind).errors) {
      // The rule's message starts with its own list name; the field path replaces it.
      this.add(error.code, [...path, error.index, ...(error.field === undefined ? [] : [error.field])], error.message.slice(error.message.indexOf(': ') + 2));
    }
  }
}

function objectName(kind: string, meta: Json): string {
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : 'default';
  return `${kind} ${namespace}/${String(meta.name ?? '?')}`;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes object names are DNS-1123 subdomains (≤ 253), namespaces DNS-1123 labels (≤ 63). */
export function nameProblem(name: string, what: 'name' | 'namespace'): string | undefined {
  const [pattern, max] = what === 'namespace' ? [DNS_LABEL, 63] : [DNS_SUBDOMAIN, 253];
  if (name.length <= max && pattern.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a valid Kubernetes ${what}: lower-case letters, digits and '-'${what === 'name' ? " and '.'" : ''}, starting and ending with a letter or digit, at most ${max} characters`;
}

function checkMetadata(problems: ObjectProblems, doc: Json): void {
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '') problems.add('MissingField', ['metadata', 'name'], 'is required');
  else {
    const problem = nameProblem(meta.name, 'name');
    if (problem) problems.add('InvalidName', ['metadata', 'name'], problem);
  }
  if (typeof meta.namespace === 'string') {
    const problem = nameProblem(meta.namespace, 'namespace');
    if (problem) problems.add('InvalidName', ['metadata', 'namespace'], problem);
  }
}

function checkSelector(problems: ObjectProblems, selector: unknown, path: Path): void {
  if (!isObject(selector) || !Array.isArray(selector.matchExpressions)) return;
  selector.matchExpressions.forEach((expression: unknown, index) => {
    if (!isObject(expression)) return;
    const values = Array.isArray(expression.values) ? expression.values : [];
    const needsValues = expression.operator === 'In' || expression.operator === 'NotIn';
    if (needsValues && values.length === 0) problems.add('InvalidSelector', [...path, 'matchExpressions', index, 'values'], `operator ${String(expression.operator)} needs at least one value`);
    if (!needsValues && values.length > 0) problems.add('InvalidSelector', [...path, 'matchExpressions', index, 'values'], `operator ${String(expression.operator)} takes no values`);
  });
}

const WINDOW_LISTS = ['maintenanceWindows', 'freezeWindows'] as const;

/**
 * A policy's window lists as the window rules judge them (W3: an invalid maintenance window is
 * closed; Z3: an invalid freeze window is open): entries as written. A freeze list that is not a
 * list at all counts as one invalid, so open, window: fail closed.
 */
function windowLists(apply: Json): Record<(typeof WINDOW_LISTS)[number], WindowSpec[]> {
  const lists = {} as Record<(typeof WINDOW_LISTS)[number], WindowSpec[]>;
  for (const list of WINDOW_LISTS) lists[list] = windowList(apply[list], list === 'freezeWindows');
  return lists;
}

function windowList(value: unknown, failClosed: boolean): WindowSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return failClosed ? [value as WindowSpec] : [];
  return value as WindowSpec[];
}

/** Entries of a window list (and its length, W2) are judged by the window rules, which report them with their own codes. */
const isWindowEntryIssue = (issue: SchemaIssue, listAt: number): boolean =>
  issue.path.length > listAt + 1 || (issue.path.length === listAt + 1 && issue.code === 'OutOfRange');

/**
 * A policy is always returned when it can be placed in a namespace: with an error outside its
 * windows it is `invalid` and holds every workload it may cover (reason InvalidPolicy), so a typo
 * never acts and never silently leaves workloads unmanaged.
 */
export function validatePolicy(doc: Json, source: ValidationSource): { policy: RightsizingPolicy; errors: PlanError[] } {
  const value = structuredClone(doc);
  const meta = isObject(value.metadata) ? value.metadata : {};
  const problems = new ObjectProblems(source, objectName('RightsizingPolicy', meta));
  const issues = validatePolicyShape(value);
  // Problems inside a window are the window rules' to judge (they are reported there, with W/Z meaning).
  problems.issues(issues.filter((issue) => !(issue.path[1] === 'apply' && (WINDOW_LISTS as readonly unknown[]).includes(issue.path[2]) && isWindowEntryIssue(issue, 2))));
  checkMetadata(problems, value);
  const spec = isObject(value.spec) ? value.spec : {};
  checkSelector(problems, spec.selector, ['spec', 'selector']);
  const apply = isObject(spec.apply) ? spec.apply : {};
  const onDelete = isObject(apply.onDelete) ? apply.onDelete : {};
  const healthWatch = isObject(apply.healthWatch) ? apply.healthWatch : {};
  // A freeze list of the wrong type is fail-closed below, not an invalid policy.
  const invalid = problems.errors.filter((error) => !/^spec\.apply\.freezeWindows$/.test(error.field ?? ''));
  const mode = MODES.find((m) => m === spec.mode);
  const strategy = STRATEGIES.find((s) => s === apply.strategy);
  const policy: RightsizingPolicy = {
    name: typeof meta.name === 'string' ? meta.name : '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : 'default',
    // Only read when the policy is valid: an invalid one holds before mode or strategy matter.
    mode: mode ?? 'recommend',
    // A broken selector covers the whole namespace, so what it meant to cover is held too.
    selector: isObject(spec.selector) && !problems.errors.some((e) => e.field?.startsWith('spec.selector')) ? (spec.selector as LabelSelector) : {},
    apply: {
      strategy: strategy ?? 'deferred',
      fallbackAfter: String(apply.fallbackAfter),
      ...windowLists(apply),
      onDelete: { maxPodDeletesPerRun: Number(onDelete.maxPodDeletesPerRun), settle: String(onDelete.settle) },
      healthWatch: { duration: String(healthWatch.duration) },
    },
    source: { file: source.file, ...(source.line !== undefined && { line: source.line }) },
    ...(invalid[0] && { invalid: invalid[0].message }),
  };
  for (const list of WINDOW_LISTS) problems.windows(policy.apply[list], ['spec', 'apply', list], list === 'freezeWindows' ? 'freeze' : 'maintenance');
  return { policy, errors: problems.errors };
}


/** Quantities mean something: parseable, finite, not negative; a request not above its own limit. */
function checkQuantities(problems: ObjectProblems, containers: readonly Json[]): void {
  const seen = new Set<string>();
  containers.forEach((container, index) => {
    const path = ['spec', 'containers', index];
    if (typeof container.name === 'string') {
      if (seen.has(container.name)) problems.add('DuplicateContainer', [...path, 'name'], `container ${JSON.stringify(container.name)} is listed twice`);
      seen.add(container.name);
    }
    const parsed: Partial<Record<string, Quantity>> = {};
    for (const group of ['requests', 'limits'] as const) {
      const values = isObject(container[group]) ? container[group] : {};
      for (const resource of RESOURCE_NAMES) {
        const raw = values[resource];
        if (typeof raw !== 'string' && typeof raw !== 'number') continue;
        try {
          if (typeof raw === 'number' && !Number.isSafeInteger(raw)) throw new QuantityError('InvalidQuantity', `${raw} is not a whole number a quantity can hold`);
          const quantity = parseQuantity(String(raw));
          if (quantity.compare(parseQuantity('0')) < 0) throw new QuantityError('InvalidQuantity', `${String(raw)} is negative`);
          parsed[`${group}.${resource}`] = quantity;
        } catch (error) {
          if (!(error instanceof QuantityError)) throw error;
          problems.add('InvalidQuantity', [...path, group, resource], error.message);
        }
      }
    }
    for (const resource of RESOURCE_NAMES) {
      const [request, limit] = [parsed[`requests.${resource}`], parsed[`limits.${resource}`]];
      if (request && limit && request.compare(limit) > 0) {
        problems.add('RequestAboveLimit', [...path, 'requests', resource], `container ${JSON.stringify(container.name)}: request ${String(request)} is above limit ${String(limit)}`);
      }
    }
  });
}

function quantities(value: unknown): ContainerRecommendation['requests'] {
  const map = isObject(value) ? value : {};
  const result: ContainerRecommendation['requests'] = {};
  for (const resource of RESOURCE_NAMES) {
    if (!(resource in map)) continue;
    const quantity = map[resource];
    result[resource] = quantity === null ? null : String(quantity);
  }
  return result;
}

function recommendationStatus(status: Json): RecommendationStatus {
  const result: RecommendationStatus = {};
  for (const key of ['phase', 'strategy', 'configuredStrategy', 'reason', 'nextWindow', 'message'] as const) {
    if (typeof status[key] === 'string' && status[key] !== '') Object.assign(result, { [key]: status[key] });
  }
  const pullRequest = status.pullRequest;
  if (isObject(pullRequest) && typeof pullRequest.number === 'number' && typeof pullRequest.url === 'string') {
    result.pullRequest = { number: pullRequest.number, url: pullRequest.url };
  }
  if (Array.isArray(status.conditions)) result.conditions = status.conditions;
  return result;
}

/** A Go duration as `time.ParseDuration` reads it (`168h`, `1h30m`, `90s`). */
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
/** RFC 3339 date-time, the CRD's `format: date-time`. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Refused whole on any problem: nothing of an invalid recommendation is written, planned or resized. */
export function validateRecommendation(
  doc: Json,
  source: ValidationSource,
): { recommendation?: RightsizingRecommendation; errors: PlanError[] } {
  const value = structuredClone(doc);
  const meta = isObject(value.metadata) ? value.metadata : {};
  const problems = new ObjectProblems(source, objectName('RightsizingRecommendation', meta));
  problems.issues(validateRecommendationShape(value));
  checkMetadata(problems, value);
  const spec = isObject(value.spec) ? value.spec : {};
  const targetRef = isObject(spec.targetRef) ? spec.targetRef : {};
  if (typeof targetRef.name === 'string' && targetRef.name !== '') {
    const problem = nameProblem(targetRef.name, 'name');
    if (problem) problems.add('InvalidName', ['spec', 'targetRef', 'name'], problem);
  }
  const containers = (Array.isArray(spec.containers) ? spec.containers : []).filter(isObject);
  checkQuantities(problems, containers);
  const sampleWindow = isObject(spec.source) ? spec.source.sampleWindow : undefined;
  if (typeof sampleWindow === 'string' && !GO_DURATION.test(sampleWindow)) {
    problems.add('InvalidDuration', ['spec', 'source', 'sampleWindow'], `must be a Go duration such as 168h, got ${JSON.stringify(sampleWindow)}`);
  }
  if (problems.errors.length > 0) return { errors: problems.errors };
  const provenance = isObject(spec.source) ? (spec.source as unknown as RecommendationSource) : undefined;
  return {
    recommendation: {
      name: String(meta.name),
      namespace: typeof meta.namespace === 'string' ? meta.namespace : 'default',
      targetRef: {
        ...(typeof targetRef.apiVersion === 'string' && { apiVersion: targetRef.apiVersion }),
        kind: String(targetRef.kind),
        name: String(targetRef.name),
      },
      containers: containers.map((container) => ({
        name: String(container.name),
        requests: quantities(container.requests),
        limits: quantities(container.limits),
      })),
      ...(provenance && { provenance }),
      status: recommendationStatus(isObject(value.status) ? value.status : {}),
      source: { file: source.file, ...(source.line !== undefined && { line: source.line }) },
    },
    errors: [],
  };
}

function configFromDefaults(): KerfConfig {
  const defaults: Json = {};
  validateConfigShape(defaults);
  // `namespaces` is a map with no schema default.
  return { namespaces: {}, ...defaults } as unknown as KerfConfig;
}

/** The config of an empty file: the schema's defaults. */
export const CONFIG_DEFAULTS: KerfConfig = Object.freeze(configFromDefaults());

/** YAML 1.1 spells booleans yes/no/on/off; in a safety switch kerf reads them so, with a warning. */
const YAML11_BOOLEANS: Record<string, boolean> = { yes: true, y: true, on: true, no: false, n: false, off: false };

/** The safety switches: present but invalid counts as paused or frozen. */
const SAFETY_SWITCHES: readonly (readonly string[])[] = [['pause'], ['freeze', 'now']];

/** `namespaces: {<path>: <namespace>}`: a value that is not a namespace name is an error naming its path, and that entry is dropped. */
function namespaceMap(problems: ObjectProblems, value: unknown): Record<string, string> {
  const namespaces: Record<string, string> = {};
  for (const [path, namespace] of Object.entries(isObject(value) ? value : {})) {
    if (typeof namespace !== 'string') continue; // the schema reports it
    const problem = nameProblem(namespace, 'namespace');
    if (problem) problems.add('InvalidName', ['namespaces', path], problem);
    else namespaces[path] = namespace;
  }
  return namespaces;
}

/** A ref name component git accepts (git check-ref-format), so a bad prefix fails here, not at push. */
export function branchPrefixProblem(prefix: string): string | undefined {
  if (
    prefix === '' ||
    /[\s~^:?*[\\\x00-\x1f\x7f]/.test(prefix) ||
    prefix.includes('..') ||
    prefix.includes('@{') ||
    prefix.includes('//') ||
    prefix.startsWith('/') ||
    prefix.startsWith('-') ||
    prefix.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))
  ) {
    return `${JSON.stringify(prefix)} cannot start a git branch name (no spaces, ~ ^ : ? * [ \\, "..", "@{", "//", leading "/", "-" or ".", or ".lock")`;
  }
  return undefined;
}

/** `helm:` entries, each with its index; one the schema refuses stays, marked invalid, so its workload is held rather than left to a guess. */
function helmMappings(list: unknown, issues: readonly { path: Path; message: string }[]): HelmMapping[] {
  if (!Array.isArray(list)) return [];
  return list.map((entry, index) => {
    const own = issues.filter((issue) => issue.path[0] === 'helm' && issue.path[1] === index).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
    const mapping = { ...(isObject(entry) ? entry : {}), index } as unknown as HelmMapping;
    return own.length > 0 ? { ...mapping, invalid: own.join('; ') } : mapping;
  });
}

/**
 * Validates the parsed `.kerf/config.yaml`. Unknown keys are errors naming the key. A field with
 * a problem keeps its default, except the safety switches: a `pause` or `freeze` that is present
 * but invalid counts as paused or frozen (fail closed), with the error.
 */
export function validateConfig(doc: unknown, source: string | ValidationSource): { config: KerfConfig; errors: PlanError[] } {
  const where: ValidationSource = typeof source === 'string' ? { file: source } : source;
  const problems = new ObjectProblems(where, 'config');
  if (doc === null || doc === undefined) return { config: CONFIG_DEFAULTS, errors: [] };
  if (!isObject(doc)) {
    problems.add('WrongType', [], 'must be a mapping; counts as paused until it is one');
    return { config: { ...CONFIG_DEFAULTS, pause: true }, errors: problems.errors };
  }
  const value = structuredClone(doc);
  for (const [first, second] of SAFETY_SWITCHES) {
    const owner = second === undefined ? value : value[first as string];
    const key = second ?? (first as string);
    if (!isObject(owner) || typeof owner[key] !== 'string') continue;
    const read = YAML11_BOOLEANS[(owner[key] as string).toLowerCase()];
    if (read === undefined) continue;
    problems.add('Yaml11Boolean', second === undefined ? [key] : [first as string, key], `${JSON.stringify(owner[key])} is a YAML 1.1 boolean; read as ${read}; write ${read} to say so`, 'warning');
    owner[key] = read;
  }
  const issues = validateConfigShape(value).filter((issue) => !(issue.path[0] === 'freeze' && issue.path[1] === 'windows' && isWindowEntryIssue(issue, 1)));
  const broken = (path: Path) => issues.some((issue) => path.every((segment, i) => issue.path[i] === segment));
  const paused = broken(['pause']);
  const frozen = broken(['freeze']);
  for (const issue of issues) {
    const safety = issue.path[0] === 'pause' ? 'paused' : issue.path[0] === 'freeze' ? 'frozen' : undefined;
    problems.add(issue.code, issue.path, safety ? `${issue.message}; counts as ${safety} until it is fixed` : issue.message);
  }
  const freeze = isObject(value.freeze) ? value.freeze : {};
  const take = <K extends keyof KerfConfig>(key: K): KerfConfig[K] => (broken([key]) || value[key] === undefined ? CONFIG_DEFAULTS[key] : (value[key] as KerfConfig[K]));
  if (typeof value.branchPrefix === 'string' && !broken(['branchPrefix'])) {
    const problem = branchPrefixProblem(value.branchPrefix);
    if (problem) problems.add('InvalidBranchPrefix', ['branchPrefix'], problem);
  }
  (Array.isArray(value.unsupportedNodeSelectors) ? value.unsupportedNodeSelectors : []).forEach((selector, index) =>
    checkSelector(problems, selector, ['unsupportedNodeSelectors', index]),
  );
  const freezeWindows = windowList(freeze.windows, true);
  problems.windows(freezeWindows, ['freeze', 'windows'], 'freeze');
  const author = isObject(value.author) && !broken(['author']) ? (value.author as KerfConfig['author']) : undefined;
  const config: KerfConfig = {
    ...(typeof value.cluster === 'string' && { cluster: value.cluster }),
    groupBy: take('groupBy'),
    labels: take('labels'),
    reviewers: take('reviewers'),
    teamReviewers: take('teamReviewers'),
    branchPrefix: broken(['branchPrefix']) || problems.errors.some((e) => e.code === 'InvalidBranchPrefix') ? CONFIG_DEFAULTS.branchPrefix : take('branchPrefix'),
    ...(author && { author }),
    prHourlyLimit: take('prHourlyLimit'),
    prConcurrentLimit: take('prConcurrentLimit'),
    paths: take('paths'),
    roots: take('roots'),
    namespaces: namespaceMap(problems, value.namespaces),
    freeze: { now: frozen || freeze.now === true, windows: freezeWindows },
    pause: paused || value.pause === true,
    unsupportedNodeSelectors: take('unsupportedNodeSelectors'),
    ...(isObject(value.pricing) && !broken(['pricing']) && { pricing: value.pricing as unknown as Pricing }),
    ...(typeof value.autoMerge === 'boolean' && { autoMerge: value.autoMerge }),
    ...(typeof value.dashboard === 'boolean' && { dashboard: value.dashboard }),
    helm: helmMappings(value.helm, issues),
  };
  return { config, errors: problems.errors };
}
