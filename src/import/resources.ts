// What every recommender's import shares: the options, the rounding, the tolerance that keeps
// noise out of pull requests, and the reasons a workload or container is skipped. Pure.
import { RESOURCE_NAMES, type ContainerRecommendation, type ObjectRef, type RecommendationSource, type ResourceName, type RightsizingRecommendation } from '../model/types.js';
import { Quantity, QuantityError } from '../rules/quantity.js';
import { type RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';


/** Why something a recommender said was not turned into a recommendation. */
export type SkipReason =
  /** The recommender has nothing yet (VPA without `status.recommendation`, krr's `?`). */
  | 'NoRecommendation'
  /** Every recommended value is within the tolerance of the current one: no PR for noise. */
  | 'WithinTolerance'
  /** The VPA applies its own recommendations (`updateMode` other than `Off`); applying them twice fights it. */
  | 'UpdatingMode'
  /** The VPA's container policy says `mode: Off`. */
  | 'ContainerOff'
  /** A target kerf does not rightsize (kerf edits Deployments, StatefulSets and DaemonSets). */
  | 'UnsupportedKind'
  /** The workload, or the container, is not in this repo's manifests. */
  | 'NotInRepo'
  /** A value that is no Kubernetes quantity. */
  | 'InvalidRecommendation';

export interface Skip {
  /** `namespace/Kind/name` of the workload. */
  target: string;
  /** The workload, for the files of an import. */
  ref: ObjectRef;
  container?: string;
  reason: SkipReason;
  message: string;
}

/** A container's resources as the repo's manifests write them today. */
export interface CurrentContainer {
  name: string;
  requests: Record<string, string>;
  limits: Record<string, string>;
}

/** The containers of a workload in the repo, or undefined when the repo does not define it. */
export type CurrentValues = (target: ObjectRef) => readonly CurrentContainer[] | undefined;

/** The current values as the repo's manifests write them (kustomize's rendering included). */
export function repoValues(index: RepoIndex): CurrentValues {
  return (target) => index.workloads.get(workloadKey(target))?.containers;
}

export interface ImportOptions {
  /** A change of this many percent or less is noise (default 5). */
  tolerancePercent: number;
  /** Values round up to a multiple of these (default 1m of CPU, 1Mi of memory). */
  round: Record<ResourceName, Quantity>;
}

export const DEFAULT_IMPORT_OPTIONS: ImportOptions = {
  tolerancePercent: 5,
  round: { cpu: Quantity.parse('1m'), memory: Quantity.parse('1Mi') },
};

/** One workload's import: the recommendation, if anything is left to recommend, and what was skipped. */
export interface Imported {
  recommendation?: RightsizingRecommendation;
  skips: Skip[];
}

/** Skips as lines for people, under a heading. */
export function skipLines(heading: string, skips: readonly Skip[]): string[] {
  return skips.length === 0 ? [] : ['', `${heading} (${skips.length}):`, ...skips.map((skip) => `  - ${skip.reason}: ${skip.message}`)];
}

/** A skip of a workload, or of one of its containers; the message starts with the workload. */
export function skipOf(ref: ObjectRef, reason: SkipReason, message: string, container?: string): Skip {
  const target = workloadKey(ref);
  return { target, ref: { namespace: ref.namespace, kind: ref.kind, name: ref.name }, ...(container !== undefined && { container }), reason, message: `${target}: ${message}` };
}

/** A quantity, or undefined for text Kubernetes would not accept. */
export function quantityOf(value: unknown): Quantity | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return Quantity.parse(String(value));
  } catch (error) {
    if (error instanceof QuantityError) return undefined;
    throw error;
  }
}

/** Up to the next multiple of `step`, printed in the step's format (`1Mi` steps print as Mi, Gi). */
export function roundUp(value: Quantity, step: Quantity): Quantity {
  const unit = step.toMilli();
  const milli = value.toMilli();
  const steps = (milli + unit - 1n) / unit;
  return Quantity.fromMilli(steps * unit, step.format);
}

/** Whether `next` differs from `current` by at most `percent` of `current`, exactly. */
export function withinTolerance(current: Quantity, next: Quantity, percent: number): boolean {
  const basisPoints = BigInt(Math.round(percent * 100));
  const from = current.toMilli();
  const difference = next.toMilli() - from;
  const magnitude = difference < 0n ? -difference : difference;
  return magnitude * 10000n <= basisPoints * from;
}

/**
 * The fields of a container that would really change: a value within the tolerance of the
 * current one is dropped (left alone), and so is a removal of something that is not there.
 */
export function withoutNoise(container: ContainerRecommendation, current: CurrentContainer, percent: number): ContainerRecommendation {
  const keep = (proposed: ContainerRecommendation['requests'], now: Record<string, string>): ContainerRecommendation['requests'] => {
    const kept: ContainerRecommendation['requests'] = {};
    for (const resource of RESOURCE_NAMES) {
      const value = proposed[resource];
      if (value === undefined) continue;
      const existing = quantityOf(now[resource]);
      if (value === null ? existing === undefined : existing !== undefined && withinTolerance(existing, Quantity.parse(value), percent)) continue;
      kept[resource] = value;
    }
    return kept;
  };
  return { name: container.name, requests: keep(container.requests, current.requests), limits: keep(container.limits, current.limits) };
}

/**
 * The workloads whose recommender has nothing for them yet (and nothing else): an import leaves
 * their earlier files standing rather than deleting a recommendation for want of data.
 */
export function awaitingData(imported: readonly Imported[]): ObjectRef[] {
  return imported.filter((one) => !one.recommendation && one.skips.length > 0 && one.skips.every((skip) => skip.reason === 'NoRecommendation')).map((one) => one.skips[0]?.ref as ObjectRef);
}

export function isEmpty(container: ContainerRecommendation): boolean {
  return Object.keys(container.requests).length === 0 && Object.keys(container.limits).length === 0;
}

/**
 * The recommendation of one workload from its containers' proposals: containers sorted by name
 * (recommenders list them in no stable order, and the file must be byte-stable), noise removed,
 * and the workload skipped when nothing is left.
 */
export function assemble(
  target: ObjectRef & { apiVersion?: string },
  proposals: readonly ContainerRecommendation[],
  current: readonly CurrentContainer[],
  provenance: RecommendationSource,
  options: ImportOptions,
  skips: Skip[],
): Imported {
  const containers: ContainerRecommendation[] = [];
  for (const proposal of [...proposals].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const now = current.find((container) => container.name === proposal.name);
    if (!now) {
      skips.push(skipOf(target, 'NotInRepo', `the repo's manifests have no container ${proposal.name}`, proposal.name));
      continue;
    }
    const kept = withoutNoise(proposal, now, options.tolerancePercent);
    if (isEmpty(kept)) {
      if (!isEmpty(proposal)) skips.push(skipOf(target, 'WithinTolerance', `container ${proposal.name} is within ${options.tolerancePercent}% of its current values`, proposal.name));
      continue;
    }
    containers.push(kept);
  }
  if (containers.length === 0) return { skips };
  return {
    recommendation: {
      name: target.name,
      namespace: target.namespace,
      targetRef: { ...(target.apiVersion && { apiVersion: target.apiVersion }), kind: target.kind, name: target.name },
      containers,
      provenance,
      status: {},
    },
    skips,
  };
}
