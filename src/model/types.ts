// The objects of DESIGN.md (contract): RightsizingPolicy, RightsizingRecommendation, the reconciler
// config, the workload as kerf sees it, and the decision that `plan --output json` prints.

/** kerf's own API: its group, version and kinds. */
export const API_GROUP = 'kerf.getkerf.dev';
export const API_VERSION = `${API_GROUP}/v1alpha1`;
export const KERF_KINDS = ['RightsizingPolicy', 'RightsizingRecommendation'] as const;

export type Strategy = 'in-place' | 'rollout' | 'deferred';
export const STRATEGIES: readonly Strategy[] = ['in-place', 'rollout', 'deferred'];

export type Mode = 'auto-patch' | 'recommend';
export const MODES: readonly Mode[] = ['auto-patch', 'recommend'];

export type Action = 'pull-request' | 'in-place' | 'wait' | 'blocked' | 'none';

export type Phase =
  | 'Proposed'
  | 'Deferred'
  | 'InPlace'
  | 'Blocked'
  | 'UpToDate'
  | 'Recommended'
  | 'Unmanaged'
  | 'Pending'
  | 'Resizing'
  | 'Applied'
  | 'RolledBack';
export const PHASES: readonly Phase[] = [
  'Proposed',
  'Deferred',
  'InPlace',
  'Blocked',
  'UpToDate',
  'Recommended',
  'Unmanaged',
  'Pending',
  'Resizing',
  'Applied',
  'RolledBack',
];

/** Why a change is held back. */
export type HoldReason =
  | 'Paused'
  | 'FreezeWindow'
  | 'UnsupportedNode'
  | 'SingleReplicaUnsafe'
  | 'PodDisruptionBudget'
  | 'OutsideMaintenanceWindow'
  /** The policy that covers the workload has an error outside its windows: nothing acts until it is fixed. */
  | 'InvalidPolicy'
  /** A merged and synced change of a Helm workload's values did not reach its pods: the `helm:` entry is wrong, and holds until it changes. */
  | 'HelmMappingMismatch';
/** Why the effective strategy differs from the configured one. */
export type StrategyReason = 'Fallback' | 'HPACoordination' | 'JVMMemory';
export type Reason = HoldReason | StrategyReason;
/** Precedence of hold reasons: the first that holds wins. */
export const HOLD_REASONS: readonly HoldReason[] = [
  'InvalidPolicy',
  'HelmMappingMismatch',
  'Paused',
  'FreezeWindow',
  'UnsupportedNode',
  'SingleReplicaUnsafe',
  'PodDisruptionBudget',
  'OutsideMaintenanceWindow',
];
export const REASONS: readonly Reason[] = [...HOLD_REASONS, 'Fallback', 'HPACoordination', 'JVMMemory'];

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';
export const WORKLOAD_KINDS: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'DaemonSet'];

export interface ObjectRef {
  namespace: string;
  kind: string;
  name: string;
}

/** A window as written in a policy or the config (W1). Both forms share one shape. */
export interface WindowSpec {
  schedule?: string;
  duration?: string;
  timeZone?: string;
  start?: string;
  end?: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface RightsizingPolicy {
  name: string;
  namespace: string;
  mode: Mode;
  selector: LabelSelector;
  apply: {
    strategy: Strategy;
    fallbackAfter: string;
    maintenanceWindows: WindowSpec[];
    freezeWindows: WindowSpec[];
    onDelete: { maxPodDeletesPerRun: number; settle: string };
    /** How long an applied change is watched for a breach (default 30m); optional so older builders still type. */
    healthWatch?: { duration: string };
  };
  /** Where it was read from, for errors. */
  source?: SourceLocation;
  /** The first error outside its windows: the policy holds every workload it may cover (InvalidPolicy). */
  invalid?: string;
}

export type ResourceName = 'cpu' | 'memory';
export const RESOURCE_NAMES: readonly ResourceName[] = ['cpu', 'memory'];
export type ResourceField = 'requests.cpu' | 'requests.memory' | 'limits.cpu' | 'limits.memory';
export const RESOURCE_FIELDS: readonly ResourceField[] = ['requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** Recommended values of one container; `null` means remove (N4), absent means leave alone. */
export interface ContainerRecommendation {
  name: string;
  requests: Partial<Record<ResourceName, string | null>>;
  limits: Partial<Record<ResourceName, string | null>>;
}

export interface RecommendationStatus {
  phase?: Phase;
  strategy?: Strategy;
  configuredStrategy?: Strategy;
  nextWindow?: string | null;
  reason?: Reason | null;
  pullRequest?: { number: number; url: string };
  message?: string;
  conditions?: unknown[];
}

/** Provenance of a recommendation (`spec.source`), shown on the PR. */
export interface RecommendationSource {
  recommender: string;
  bound?: string;
  percentile?: number;
  sampleWindow?: string;
  generatedAt?: string;
}

export interface RightsizingRecommendation {
  name: string;
  namespace: string;
  targetRef: { apiVersion?: string; kind: string; name: string };
  containers: ContainerRecommendation[];
  /** `spec.source`: which recommender made it; `source` above is where it is written. */
  provenance?: RecommendationSource;
  status: RecommendationStatus;
  source?: SourceLocation;
}

export type GroupBy = 'per-workload' | 'per-namespace' | 'single';

export interface KerfConfig {
  cluster?: string;
  groupBy: GroupBy;
  labels: string[];
  reviewers: string[];
  teamReviewers: string[];
  branchPrefix: string;
  author?: { name: string; email: string };
  prHourlyLimit: number;
  prConcurrentLimit: number;
  paths: string[];
  /** The kustomize roots this cluster deploys; empty: every root (within `paths`). */
  roots: string[];
  /** Namespace of objects that name none, by the path they are deployed from; wins over Argo CD/Flux objects. */
  namespaces: Record<string, string>;
  freeze: { now: boolean; windows: WindowSpec[] };
  pause: boolean;
  unsupportedNodeSelectors: LabelSelector[];
  /** Prices of requested capacity, for the monthly cost difference of a change. */
  pricing?: Pricing;
  /** kerf enables GitHub auto-merge on its PRs, so a deferred change merges when `kerf/window` turns green. Default false. */
  autoMerge?: boolean;
  /** One dashboard issue per repo listing every change kerf holds, proposes or has applied. Default true. */
  dashboard?: boolean;
  /** Workloads a Helm chart renders: where the values that set their resources live. */
  helm?: HelmMapping[];
}

/** One `helm:` entry of `.kerf/config.yaml`; exactly one of `helmRelease`, `application`, `valuesFile`. */
export interface HelmMapping {
  /** The workload as it runs in the cluster. */
  workload: { namespace: string; kind: string; name: string };
  /** A Flux HelmRelease: `spec.values`, or the ConfigMap/Secret of one of its `valuesFrom`. */
  helmRelease?: { file: string; name: string; valuesFrom?: { file: string; kind: 'ConfigMap' | 'Secret'; name: string; valuesKey?: string } };
  /** An Argo CD Application: `helm.valuesObject` or the `helm.values` string of `spec.source` (or `spec.sources[source]`). */
  application?: { file: string; name: string; source?: number; values?: 'valuesObject' | 'values' };
  /** A plain values file in the repo (e.g. an Application's `valueFiles` entry). */
  valuesFile?: string;
  /** Per container name: the dotted key path of its `resources` block in the values. */
  containers: Record<string, string>;
  /** The dotted key path of the replica count in the values, when the chart has one. */
  replicas?: string;
  /** The rendered workload's labels, for policy selectors. */
  labels?: Record<string, string>;
  /** Index of the entry in `helm:`, for error fields. */
  index: number;
  /** Why the entry cannot be used (the schema's problems); the workload is held. */
  invalid?: string;
}

/** Where a Helm-rendered workload's values are, resolved from its `helm:` entry. */
export interface HelmValuesSource {
  /** The object whose values these are, e.g. `HelmRelease apps/podinfo`, for messages. */
  owner: string;
  file: string;
  document: number;
  /** Keys from the document root to the values mapping (`[]` for a values file), or to the YAML string holding them when `embedded`. */
  valuesPath: string[];
  embedded: boolean;
  /** Per container: keys from the values root to its `resources`. */
  containers: Record<string, string[]>;
  /** The index of the `helm:` entry, for messages. */
  entry: number;
  /** A hash of the `helm:` entry: a mapping found wrong after a sync holds until it changes (HelmMappingMismatch). */
  fingerprint: string;
  /** The HelmRelease or Argo CD Application that renders the workload (none for a plain values file); no namespace where its file names none (a kustomization sets it). */
  release?: { kind: 'HelmRelease' | 'Application'; namespace?: string; name: string };
  /** The ConfigMap or Secret (in the HelmRelease's namespace) a HelmRelease's `valuesFrom` reads, when the values are there. */
  valuesFrom?: { kind: 'ConfigMap' | 'Secret'; name: string };
}

export interface Pricing {
  cpuCoreHour: number;
  memoryGiBHour: number;
  /** Shown beside amounts, e.g. `USD` or `€`; none when absent. */
  currency?: string;
}

export interface SourceLocation {
  file: string;
  /** 1-based line of the object (or field) in the file, when known. */
  line?: number;
}

export interface ResizePolicy {
  resourceName: string;
  restartPolicy: string;
}

export interface ContainerSpec {
  name: string;
  /** Native sidecar or plain init container. */
  init: boolean;
  image: string;
  envNames: string[];
  resizePolicy: ResizePolicy[];
  requests: Record<string, string>;
  limits: Record<string, string>;
  /** Under kustomize: the file kerf edits for each CPU/memory field, when it is not the workload's own. */
  sources?: Partial<Record<ResourceField, string>>;
}

export interface RollingUpdate {
  maxSurge?: number | string;
  maxUnavailable?: number | string;
}

/** A workload as found in the repo (Deployment, StatefulSet, DaemonSet). */
export interface Workload {
  ref: ObjectRef & { kind: WorkloadKind };
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `spec.replicas` as written; undefined when absent. */
  replicas?: number;
  templateLabels: Record<string, string>;
  /** Deployment `strategy.type` / StatefulSet and DaemonSet `updateStrategy.type`. */
  updateStrategy: { type?: string; rollingUpdate?: RollingUpdate };
  containers: ContainerSpec[];
  /** Where it is written: file, line, document index and the name as written (before kustomize affixes). */
  source: SourceLocation & { document: number; name: string; root?: string };
  /** Set when a Helm chart renders it: kerf edits these values, not a manifest. */
  helm?: HelmValuesSource;
}

export interface PodDisruptionBudget {
  ref: ObjectRef;
  selector: LabelSelector;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  /** Live `status.disruptionsAllowed`, when known from the cluster. */
  disruptionsAllowed?: number;
}

export interface HorizontalPodAutoscaler {
  ref: ObjectRef;
  target: { kind: string; name: string };
  minReplicas?: number;
  /** Live `status.currentReplicas`, when known from the cluster. */
  currentReplicas?: number;
  /** The CPU `averageUtilization` target (autoscaling/v2) or `targetCPUUtilizationPercentage` (v1), when it scales on CPU. */
  cpuTargetUtilization?: number;
}

export interface Change {
  container: string;
  field: ResourceField;
  from: string | null;
  to: string | null;
  file: string;
}

export interface Decision {
  target: ObjectRef;
  configuredStrategy: Strategy | null;
  strategy: Strategy | null;
  action: Action;
  phase: Phase;
  reason: Reason | null;
  nextWindow: string | null;
  /** With `nextWindow`: when that stretch of the window closes (or a freeze opens) and the window's time zone, for people. */
  nextWindowSpan?: { end: string; timeZone: string };
  changes: Change[];
  /** Why it is held when the reason alone does not say (InvalidPolicy: the policy's error). */
  message?: string;
}

export interface PlanError {
  /** Stable problem code (PascalCase, e.g. UnknownField); consumers switch on it, never on the message. */
  code?: string;
  /** A warning is reported but does not fail the run (exit codes count errors only). */
  severity?: 'warning';
  file?: string;
  line?: number;
  /** 1-based column of the field, when known. */
  column?: number;
  object?: string;
  field?: string;
  message: string;
}

/** Where a field is written in its file (1-based). */
export interface Position {
  line: number;
  column: number;
}

/** Position of a path (a key's own position for the last segment), or of the deepest part found. */
export type Locator = (path: readonly (string | number)[]) => Position | undefined;
