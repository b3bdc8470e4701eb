// Single-replica safety (SR1–SR5): pure functions over the workload as written and the facts known.
import type { HorizontalPodAutoscaler, PodDisruptionBudget, RollingUpdate, Workload } from '../model/types.js';
import { matchesSelector } from './selector.js';

export const ALLOW_DISRUPTION_ANNOTATION = 'kerf.getkerf.dev/allow-disruption';

export class IntOrPercentError extends Error {
  readonly code = 'InvalidIntOrPercent';
}

/**
 * apimachinery's GetScaledValueFromIntOrPercent: an integer as is, a percentage of `total`
 * rounded up or down as the caller's controller does.
 */
export function scaledValue(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value.trim());
  if (!match) throw new IntOrPercentError(`invalid value ${JSON.stringify(value)}: must be an integer or a percentage`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

export interface ResolvedRollingUpdate {
  maxSurge: number;
  maxUnavailable: number;
}

/**
 * Resolves maxSurge/maxUnavailable as the controllers do. Deployment (ResolveFenceposts): defaults
 * 25%/25%, surge rounds up, unavailable rounds down, and both 0 means unavailable 1. DaemonSet:
 * defaults surge 0 / unavailable 1, both round up, resolved against 1 (the node count is unknown in Git).
 */
export function resolveRollingUpdate(workload: Workload, replicas: number): ResolvedRollingUpdate | undefined {
  const { kind } = workload.ref;
  const { type, rollingUpdate = {} as RollingUpdate } = workload.updateStrategy;
  if (kind === 'Deployment') {
    if (type === 'Recreate') return undefined;
    const maxSurge = scaledValue(rollingUpdate.maxSurge ?? '25%', replicas, true);
    let maxUnavailable = scaledValue(rollingUpdate.maxUnavailable ?? '25%', replicas, false);
    if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    return { maxSurge, maxUnavailable };
  }
  if (kind === 'DaemonSet') {
    if (type === 'OnDelete') return undefined;
    const maxSurge = scaledValue(rollingUpdate.maxSurge ?? 0, 1, true);
    let maxUnavailable = scaledValue(rollingUpdate.maxUnavailable ?? 1, 1, true);
    if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    return { maxSurge, maxUnavailable };
  }
  return undefined;
}

/** SR4: a rollout keeps a single replica serving only with surge ≥ 1 and nothing unavailable. */
export function rolloutIsSafe(workload: Workload, replicas: number): boolean {
  const resolved = resolveRollingUpdate(workload, replicas);
  return resolved !== undefined && resolved.maxSurge >= 1 && resolved.maxUnavailable === 0;
}

export function hpaFor(workload: Workload, hpas: readonly HorizontalPodAutoscaler[]): HorizontalPodAutoscaler | undefined {
  return hpas.find(
    (hpa) =>
      hpa.ref.namespace === workload.ref.namespace &&
      hpa.target.kind === workload.ref.kind &&
      hpa.target.name === workload.ref.name,
  );
}

/** Replicas as Git states them (absent means 1); with an HPA, its live count or its minReplicas. */
export function desiredReplicas(workload: Workload, hpa: HorizontalPodAutoscaler | undefined): number {
  if (workload.ref.kind === 'DaemonSet') return 1;
  if (hpa) return hpa.currentReplicas ?? hpa.minReplicas ?? 1;
  return workload.replicas ?? 1;
}

export function pdbsFor(workload: Workload, pdbs: readonly PodDisruptionBudget[]): PodDisruptionBudget[] {
  return pdbs.filter(
    (pdb) => pdb.ref.namespace === workload.ref.namespace && matchesSelector(workload.templateLabels, pdb.selector),
  );
}

/** Whether a PDB lets no pod of a workload with `replicas` pods be disrupted (SR1). */
export function pdbAllowsNoDisruption(pdb: PodDisruptionBudget, replicas: number): boolean {
  if (pdb.disruptionsAllowed !== undefined) return pdb.disruptionsAllowed <= 0;
  if (pdb.maxUnavailable !== undefined) return scaledValue(pdb.maxUnavailable, replicas, true) <= 0;
  if (pdb.minAvailable !== undefined) return scaledValue(pdb.minAvailable, replicas, true) >= replicas;
  return false;
}

/** SR1: one replica of a Deployment or StatefulSet, or a PDB that allows no disruption. */
export function isSingleReplica(
  workload: Workload,
  replicas: number,
  matchingPdbs: readonly PodDisruptionBudget[],
): boolean {
  if (workload.ref.kind !== 'DaemonSet' && replicas <= 1) return true;
  return matchingPdbs.some((pdb) => pdbAllowsNoDisruption(pdb, replicas));
}

export function allowsDisruption(workload: Workload): boolean {
  return workload.annotations[ALLOW_DISRUPTION_ANNOTATION] === 'true';
}
