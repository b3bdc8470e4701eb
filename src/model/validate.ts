// Validation of RightsizingPolicy, RightsizingRecommendation and `.kerf/config.yaml`.
// Like Renovate's config validation, every problem is collected with its path instead of
// throwing at the first, so one run reports them all.
import type {
  ContainerRecommendation,
  GroupBy,
  KerfConfig,
  LabelSelector,
  PlanError,
  RecommendationStatus,
  RightsizingPolicy,
  RightsizingRecommendation,
  SourceLocation,
  Strategy,
  WindowSpec,
} from './types.js';
import { MODES, PHASES, REASONS, STRATEGIES } from './types.js';

export const API_GROUP = 'kerf.getkerf.dev';
export const API_VERSION = `${API_GROUP}/v1alpha1`;
/** `spec.apply.healthWatch.duration` when the policy gives none. */
export const DEFAULT_HEALTH_WATCH = '30m';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects errors that all share one file and object. */
class Problems {
  readonly errors: PlanError[] = [];
  constructor(
    private readonly source: SourceLocation,
    private readonly owner: string,
  ) {}

  add(field: string, message: string): void {
    const where = [this.source.file, this.owner, field].filter(Boolean).join(': ');
    this.errors.push({
      file: this.source.file,
      ...(this.source.line !== undefined && { line: this.source.line }),
      object: this.owner,
      field,
      message: `${where}: ${message}`,
    });
  }

  string(obj: Json, key: string, path: string): string | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      this.add(path, `must be a string, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(obj: Json, key: string, path: string, allowed: readonly T[]): T | undefined {
    const value = this.string(obj, key, path);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      this.add(path, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value as T;
  }

  stringList(obj: Json, key: string, path: string): string[] {
    const value = obj[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.add(path, 'must be a list of strings');
      return [];
    }
    return value as string[];
  }

  positiveInteger(obj: Json, key: string, path: string): number | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      this.add(path, `must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  mapping(obj: Json, key: string, path: string): Json {
    const value = obj[key];
    if (value === undefined || value === null) return {};
    if (!isObject(value)) {
      this.add(path, 'must be a mapping');
      return {};
    }
    return value;
  }

  unknownKeys(obj: Json, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) {
        this.add(path ? `${path}.${key}` : key, `unknown key; allowed: ${allowed.join(', ')}`);
      }
    }
  }
}

function objectName(kind: string, meta: Json): string {
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : 'default';
  return `${kind} ${namespace}/${String(meta.name ?? '?')}`;
}

/**
 * Window entries are kept as written; their validity (cron, zone, duration, times) is judged by
 * the window rules, so an invalid window still counts (closed for maintenance, open for freeze).
 */
function windowList(problems: Problems, obj: Json, key: string, path: string): WindowSpec[] {
  const value = obj[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of windows');
    return [];
  }
  return value.map((item) => (isObject(item) ? (item as WindowSpec) : ({ invalid: item } as WindowSpec)));
}

function labelSelector(problems: Problems, obj: Json, key: string, path: string): LabelSelector {
  const selector = problems.mapping(obj, key, path);
  problems.unknownKeys(selector, ['matchLabels', 'matchExpressions'], path);
  const result: LabelSelector = {};
  const matchLabels = problems.mapping(selector, 'matchLabels', `${path}.matchLabels`);
  if (Object.values(matchLabels).some((v) => typeof v !== 'string')) {
    problems.add(`${path}.matchLabels`, 'values must be strings');
  } else if (Object.keys(matchLabels).length > 0) {
    result.matchLabels = matchLabels as Record<string, string>;
  }
  const expressions = selector.matchExpressions;
  if (expressions !== undefined && expressions !== null) {
    const operators = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
    if (!Array.isArray(expressions) || expressions.some((e) => !isObject(e) || typeof e.key !== 'string' || !operators.includes(String(e.operator)))) {
      problems.add(`${path}.matchExpressions`, `each entry needs a key and an operator (${operators.join(', ')})`);
    } else if (expressions.length > 0) {
      result.matchExpressions = expressions as LabelSelector['matchExpressions'];
    }
  }
  return result;
}

export function validatePolicy(
  doc: Json,
  source: SourceLocation,
): { policy?: RightsizingPolicy; errors: PlanError[] } {
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const problems = new Problems(source, objectName('RightsizingPolicy', meta));
  const name = problems.string(meta, 'name', 'metadata.name');
  if (!name) problems.add('metadata.name', 'is required');
  const spec = problems.mapping(doc, 'spec', 'spec');
  const apply = problems.mapping(spec, 'apply', 'spec.apply');
  problems.unknownKeys(apply, ['strategy', 'fallbackAfter', 'maintenanceWindows', 'freezeWindows', 'onDelete', 'healthWatch'], 'spec.apply');
  const onDelete = problems.mapping(apply, 'onDelete', 'spec.apply.onDelete');
  const healthWatch = problems.mapping(apply, 'healthWatch', 'spec.apply.healthWatch');
  const policy: RightsizingPolicy = {
    name: name ?? '',
    namespace: typeof meta.namespace === 'string' ? meta.namespace : 'default',
    mode: problems.oneOf(spec, 'mode', 'spec.mode', MODES) ?? 'auto-patch',
    selector: labelSelector(problems, spec, 'selector', 'spec.selector'),
    apply: {
      strategy: problems.oneOf(apply, 'strategy', 'spec.apply.strategy', STRATEGIES) ?? 'in-place',
      fallbackAfter: problems.string(apply, 'fallbackAfter', 'spec.apply.fallbackAfter') ?? '10m',
      maintenanceWindows: windowList(problems, apply, 'maintenanceWindows', 'spec.apply.maintenanceWindows'),
      freezeWindows: windowList(problems, apply, 'freezeWindows', 'spec.apply.freezeWindows'),
      onDelete: {
        maxPodDeletesPerRun: problems.positiveInteger(onDelete, 'maxPodDeletesPerRun', 'spec.apply.onDelete.maxPodDeletesPerRun') ?? 1,
        settle: problems.string(onDelete, 'settle', 'spec.apply.onDelete.settle') ?? '30s',
      },
      healthWatch: { duration: problems.string(healthWatch, 'duration', 'spec.apply.healthWatch.duration') ?? DEFAULT_HEALTH_WATCH },
    },
    source,
  };
  return problems.errors.length > 0 && !name ? { errors: problems.errors } : { policy, errors: problems.errors };
}

function quantityMap(problems: Problems, obj: Json, key: string, path: string): ContainerRecommendation['requests'] {
  const map = problems.mapping(obj, key, path);
  const result: ContainerRecommendation['requests'] = {};
  for (const [resource, value] of Object.entries(map)) {
    if (resource !== 'cpu' && resource !== 'memory') {
      problems.add(`${path}.${resource}`, 'kerf recommends only cpu and memory');
      continue;
    }
    if (value === null) result[resource] = null;
    else if (typeof value === 'string' || typeof value === 'number') result[resource] = String(value);
    else problems.add(`${path}.${resource}`, `must be a quantity or null, got ${JSON.stringify(value)}`);
  }
  return result;
}

function recommendationStatus(problems: Problems, doc: Json): RecommendationStatus {
  const status = problems.mapping(doc, 'status', 'status');
  const result: RecommendationStatus = {};
  const phase = problems.oneOf(status, 'phase', 'status.phase', PHASES);
  if (phase) result.phase = phase;
  const strategy = problems.oneOf(status, 'strategy', 'status.strategy', STRATEGIES);
  if (strategy) result.strategy = strategy;
  const configured = problems.oneOf(status, 'configuredStrategy', 'status.configuredStrategy', STRATEGIES);
  if (configured) result.configuredStrategy = configured as Strategy;
  const reason = problems.oneOf(status, 'reason', 'status.reason', REASONS);
  if (reason) result.reason = reason;
  const nextWindow = problems.string(status, 'nextWindow', 'status.nextWindow');
  if (nextWindow) result.nextWindow = nextWindow;
  const pullRequest = status.pullRequest;
  if (isObject(pullRequest) && typeof pullRequest.number === 'number' && typeof pullRequest.url === 'string') {
    result.pullRequest = { number: pullRequest.number, url: pullRequest.url };
  }
  if (Array.isArray(status.conditions)) result.conditions = status.conditions;
  return result;
}

export function validateRecommendation(
  doc: Json,
  source: SourceLocation,
): { recommendation?: RightsizingRecommendation; errors: PlanError[] } {
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const problems = new Problems(source, objectName('RightsizingRecommendation', meta));
  const name = problems.string(meta, 'name', 'metadata.name');
  if (!name) problems.add('metadata.name', 'is required');
  const spec = problems.mapping(doc, 'spec', 'spec');
  const targetRef = problems.mapping(spec, 'targetRef', 'spec.targetRef');
  const kind = problems.string(targetRef, 'kind', 'spec.targetRef.kind');
  const targetName = problems.string(targetRef, 'name', 'spec.targetRef.name');
  if (!kind) problems.add('spec.targetRef.kind', 'is required');
  if (!targetName) problems.add('spec.targetRef.name', 'is required');
  const containers: ContainerRecommendation[] = [];
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) {
    problems.add('spec.containers', 'must list at least one container');
  } else {
    spec.containers.forEach((entry, index) => {
      const path = `spec.containers[${index}]`;
      if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
        problems.add(`${path}.name`, 'is required');
        return;
      }
      containers.push({
        name: entry.name,
        requests: quantityMap(problems, entry, 'requests', `${path}.requests`),
        limits: quantityMap(problems, entry, 'limits', `${path}.limits`),
      });
    });
  }
  const status = recommendationStatus(problems, doc);
  if (!name || !kind || !targetName) return { errors: problems.errors };
  const apiVersion = problems.string(targetRef, 'apiVersion', 'spec.targetRef.apiVersion');
  return {
    recommendation: {
      name,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : 'default',
      targetRef: { ...(apiVersion && { apiVersion }), kind, name: targetName },
      containers,
      status,
      source,
    },
    errors: problems.errors,
  };
}

export const CONFIG_DEFAULTS: KerfConfig = {
  groupBy: 'per-workload',
  labels: [],
  reviewers: [],
  teamReviewers: [],
  branchPrefix: 'kerf/',
  prHourlyLimit: 4,
  prConcurrentLimit: 20,
  paths: [],
  roots: [],
  namespaces: {},
  freeze: { now: false, windows: [] },
  pause: false,
  unsupportedNodeSelectors: [],
};

const CONFIG_KEYS = [
  'cluster',
  'groupBy',
  'labels',
  'reviewers',
  'teamReviewers',
  'branchPrefix',
  'author',
  'prHourlyLimit',
  'prConcurrentLimit',
  'paths',
  'roots',
  'namespaces',
  'freeze',
  'pause',
  'unsupportedNodeSelectors',
] as const;
const GROUP_BY: readonly GroupBy[] = ['per-workload', 'per-namespace', 'single'];

/** `namespaces: {<path>: <namespace>}`; a value that is not a namespace name is an error naming its path. */
function namespaceMap(problems: Problems, doc: Json): Record<string, string> {
  const map = problems.mapping(doc, 'namespaces', 'namespaces');
  const namespaces: Record<string, string> = {};
  for (const [path, namespace] of Object.entries(map)) {
    if (typeof namespace === 'string' && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) && namespace.length <= 63) namespaces[path] = namespace;
    else problems.add(`namespaces.${path}`, `must be a namespace name, got ${JSON.stringify(namespace)}`);
  }
  return namespaces;
}

/** Validates the parsed `.kerf/config.yaml`; unknown keys are errors naming the key. */
export function validateConfig(doc: unknown, file: string): { config: KerfConfig; errors: PlanError[] } {
  const problems = new Problems({ file }, 'config');
  if (doc === null || doc === undefined) return { config: CONFIG_DEFAULTS, errors: [] };
  if (!isObject(doc)) {
    problems.add('', 'must be a mapping');
    return { config: CONFIG_DEFAULTS, errors: problems.errors };
  }
  problems.unknownKeys(doc, CONFIG_KEYS, '');
  const freeze = problems.mapping(doc, 'freeze', 'freeze');
  problems.unknownKeys(freeze, ['now', 'windows'], 'freeze');
  const boolean = (obj: Json, key: string, path: string): boolean => {
    const value = obj[key];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') problems.add(path, `must be true or false, got ${JSON.stringify(value)}`);
    return value === true;
  };
  const author = problems.mapping(doc, 'author', 'author');
  const authorName = problems.string(author, 'name', 'author.name');
  const authorEmail = problems.string(author, 'email', 'author.email');
  if ((authorName === undefined) !== (authorEmail === undefined)) problems.add('author', 'needs both name and email');
  const selectors = doc.unsupportedNodeSelectors;
  const unsupportedNodeSelectors: LabelSelector[] = [];
  if (Array.isArray(selectors)) {
    selectors.forEach((_, index) => {
      unsupportedNodeSelectors.push(labelSelector(problems, selectors as unknown as Json, String(index), `unsupportedNodeSelectors[${index}]`));
    });
  } else if (selectors !== undefined && selectors !== null) {
    problems.add('unsupportedNodeSelectors', 'must be a list of label selectors');
  }
  const cluster = problems.string(doc, 'cluster', 'cluster');
  const config: KerfConfig = {
    ...(cluster !== undefined && { cluster }),
    groupBy: problems.oneOf(doc, 'groupBy', 'groupBy', GROUP_BY) ?? CONFIG_DEFAULTS.groupBy,
    labels: problems.stringList(doc, 'labels', 'labels'),
    reviewers: problems.stringList(doc, 'reviewers', 'reviewers'),
    teamReviewers: problems.stringList(doc, 'teamReviewers', 'teamReviewers'),
    branchPrefix: problems.string(doc, 'branchPrefix', 'branchPrefix') ?? CONFIG_DEFAULTS.branchPrefix,
    ...(authorName !== undefined && authorEmail !== undefined && { author: { name: authorName, email: authorEmail } }),
    prHourlyLimit: problems.positiveInteger(doc, 'prHourlyLimit', 'prHourlyLimit') ?? CONFIG_DEFAULTS.prHourlyLimit,
    prConcurrentLimit: problems.positiveInteger(doc, 'prConcurrentLimit', 'prConcurrentLimit') ?? CONFIG_DEFAULTS.prConcurrentLimit,
    paths: problems.stringList(doc, 'paths', 'paths'),
    roots: problems.stringList(doc, 'roots', 'roots'),
    namespaces: namespaceMap(problems, doc),
    freeze: { now: boolean(freeze, 'now', 'freeze.now'), windows: windowList(problems, freeze, 'windows', 'freeze.windows') },
    pause: boolean(doc, 'pause', 'pause'),
    unsupportedNodeSelectors,
  };
  return { config, errors: problems.errors };
}
