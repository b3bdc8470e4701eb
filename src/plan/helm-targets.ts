// Why a recommendation's target that is not a manifest in the repo may still be Helm's: its
// `helm:` entry is broken (held), or a release renders it and no entry maps it.
import type { RightsizingRecommendation } from '../model/types.js';
import { type RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';
import { releaseOf, unmappedMessage } from '../manifests/helm/releases.js';

export function helmTargetProblem(index: RepoIndex, recommendation: RightsizingRecommendation): { code: string; message: string } | undefined {
  const workload = { namespace: recommendation.namespace, kind: recommendation.targetRef.kind, name: recommendation.targetRef.name };
  const held = index.helm?.held.get(workloadKey(workload));
  if (held) return { code: held.code ?? 'InvalidHelmMapping', message: `target ${workloadKey(workload)} is held: ${held.message}` };
  const release = releaseOf(index.helm?.releases ?? [], workload);
  if (!release) return undefined;
  return { code: 'HelmWorkloadNotMapped', message: unmappedMessage(release, workload, recommendation.containers.map((container) => container.name)) };
}
