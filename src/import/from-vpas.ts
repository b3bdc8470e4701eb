// VPAs read from the cluster or from files, as recommendations for the workloads the repo defines.
import { readFile } from 'node:fs/promises';
import type { ObjectRef, PlanError, RightsizingRecommendation } from '../model/types.js';
import type { ClusterSource } from '../cluster/cluster-reader.js';
import { ClusterError } from '../cluster/cluster-port.js';
import type { RepoIndex } from '../manifests/scan.js';
import { parseFile } from '../manifests/scanned-file.js';
import { InputError } from '../util/input-error.js';
import { awaitingData, repoValues, type Skip } from './resources.js';
import { fromVpa, vpasIn, type VpaImportOptions } from './vpa.js';

/** The `--recommendations` value that decides on the cluster's VPAs, without files. */
export const VPA_RECOMMENDATIONS = 'vpa';

export function wantsVpa(recommendations: readonly string[]): boolean {
  return recommendations.length === 1 && recommendations[0] === VPA_RECOMMENDATIONS;
}

export interface FromVpas {
  recommendations: RightsizingRecommendation[];
  skips: Skip[];
  /** Workloads whose VPA has no recommendation yet. */
  awaiting: ObjectRef[];
}

/** Every VPA's recommendation and skips, in the order of their targets (the output is stable). */
export function fromVpas(vpas: readonly object[], index: RepoIndex, options: VpaImportOptions): FromVpas {
  const current = repoValues(index);
  const results = vpas.map((vpa) => fromVpa(vpa, current, options));
  const recommendations = results.flatMap((result) => (result.recommendation ? [result.recommendation] : []));
  const key = (r: RightsizingRecommendation) => `${r.namespace}/${r.targetRef.kind}/${r.targetRef.name}`;
  recommendations.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const skips = results.flatMap((result) => result.skips).sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  return { recommendations, skips, awaiting: awaitingData(results) };
}

/**
 * Whether a skip is this repo's business: the cluster holds VPAs of every team's workloads, and
 * those another repo (or no Git at all) manages are left out of a plan rather than listed.
 */
export function aboutThisRepo(skip: Skip): boolean {
  return !(skip.reason === 'NotInRepo' && skip.container === undefined);
}

/** The cluster's VPAs, or the error saying why there are none to read (not installed, unreachable). */
export async function clusterVpas(source: ClusterSource): Promise<{ vpas: object[] } | { error: PlanError }> {
  try {
    return { vpas: await source.verticalPodAutoscalers() };
  } catch (error) {
    const notInstalled = error instanceof ClusterError && error.code === 'NotFound';
    return {
      error: {
        code: notInstalled ? 'VpaNotInstalled' : 'ClusterUnreachable',
        object: 'cluster',
        message: notInstalled
          ? `the cluster at ${source.server} serves no autoscaling.k8s.io/v1 VerticalPodAutoscalers: install the VPA recommender (its CRDs) first`
          : `cannot read VerticalPodAutoscalers from the cluster at ${source.server}: ${(error as Error).message}`,
      },
    };
  }
}

/**
 * VPAs from YAML or JSON files: single objects, several documents, or the List `kubectl get vpa -A
 * -o yaml` prints. A file that does not parse stops the import (its VPAs would look deleted).
 */
export async function fileVpas(paths: readonly string[]): Promise<object[]> {
  const vpas: object[] = [];
  for (const path of paths) {
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new InputError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
    });
    const errors: PlanError[] = [];
    const { documents } = parseFile(path, text, errors);
    if (errors.length > 0) throw new InputError(errors.map((error) => error.message).join('; '));
    vpas.push(...vpasIn(documents));
  }
  return vpas;
}
