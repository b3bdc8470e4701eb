// `--recommendations cluster`: a recommendation for a live workload that is not in the repo is
// another repo's business, unless Helm renders it from a release this repo declares (told by the
// labels and annotations Helm, Flux and Argo CD put on what they apply). Then it is refused with the
// release named, instead of being left out in silence.
import type { ClusterState } from '../cluster/cluster-reader.js';
import type { KubeObject } from '../cluster/objects.js';
import type { PlanError, RightsizingRecommendation } from '../model/types.js';
import { type RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';
import { unmappedMessage, type HelmRelease } from '../manifests/helm/releases.js';

const LIVE_LISTS = { Deployment: 'deployments', StatefulSet: 'statefulSets', DaemonSet: 'daemonSets' } as const;

/** Whether the live object was applied from `release`: Helm's own annotations, Flux's labels, or Argo CD's tracking. */
export function appliedBy(object: KubeObject, release: HelmRelease): boolean {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  if (release.kind === 'HelmRelease') {
    if (labels['helm.toolkit.fluxcd.io/name'] !== undefined) return labels['helm.toolkit.fluxcd.io/name'] === release.name && (labels['helm.toolkit.fluxcd.io/namespace'] ?? release.objectNamespace) === release.objectNamespace;
    const named = annotations['meta.helm.sh/release-name'] ?? (labels['app.kubernetes.io/managed-by'] === 'Helm' ? labels['app.kubernetes.io/instance'] : undefined);
    return named === release.release && (annotations['meta.helm.sh/release-namespace'] ?? release.namespace) === release.namespace;
  }
  // Argo CD renders with `helm template`: no Helm annotations, its tracking id or instance label instead.
  const tracked = annotations['argocd.argoproj.io/tracking-id']?.split(':')[0] ?? labels['app.kubernetes.io/instance'];
  return tracked === release.name;
}

/** Errors for the cluster's recommendations of Helm-rendered workloads of this repo's releases that no `helm:` entry serves. */
export function unmappedLiveHelm(state: ClusterState, index: RepoIndex, recommendations: readonly RightsizingRecommendation[]): PlanError[] {
  const releases = index.helm?.releases ?? [];
  return recommendations.flatMap((recommendation): PlanError[] => {
    const target = { namespace: recommendation.namespace, kind: recommendation.targetRef.kind, name: recommendation.targetRef.name };
    const key = workloadKey(target);
    if (index.workloads.has(key)) return [];
    const list = LIVE_LISTS[target.kind as keyof typeof LIVE_LISTS] as (typeof LIVE_LISTS)[keyof typeof LIVE_LISTS] | undefined;
    const live = list && state[list].find((object) => object.metadata.namespace === target.namespace && object.metadata.name === target.name);
    const release = live && releases.find((candidate) => candidate.namespace === target.namespace && appliedBy(live, candidate));
    if (!release) return [];
    const object = `RightsizingRecommendation ${recommendation.namespace}/${recommendation.name}`;
    const held = index.helm?.held.get(key);
    const message = held ? `target ${key} is held: ${held.message}` : unmappedMessage(release, target, recommendation.containers.map((container) => container.name));
    return [{ code: held?.code ?? 'HelmWorkloadNotMapped', file: release.file, object, field: 'spec.targetRef', message: `${object}: spec.targetRef: ${message}` }];
  });
}
