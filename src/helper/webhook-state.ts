// What the pod webhook knows: which Deployment owns a ReplicaSet, and the values already applied in
// place per workload. Built from the informer caches whenever they change, so admission is lookups.
import type { ContainerRecommendation } from '../model/types.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { resizableContainers } from '../lifecycle/pod-state.js';
import { podWorkload, replicaSetOwnersOf, revisionOf, type RecommendationView } from '../lifecycle/pod-owners.js';
import { workloadKey } from '../util/workload-key.js';

export interface AppliedValues {
  /** The released recommendation (removals included, N4); undefined when none is released now. */
  released?: readonly ContainerRecommendation[];
  /** Per revision hash, what running pods of that revision already carry (values applied by an earlier generation). */
  byRevision: ReadonlyMap<string, readonly ContainerRecommendation[]>;
}

export interface WebhookState {
  /** namespace/ReplicaSet name → owning Deployment name. */
  replicaSetOwners: ReadonlyMap<string, string>;
  /** namespace/Kind/name of in-place workloads → their applied values. */
  applied: ReadonlyMap<string, AppliedValues>;
}

function carried(pod: Pod): ContainerRecommendation[] {
  return resizableContainers(pod).map((container) => ({
    name: container.name,
    requests: pick(container.resources?.requests),
    limits: pick(container.resources?.limits),
  }));
}

/** cpu and memory as the pod has them; an absent one is carried as a removal. */
function pick(list: Partial<Record<string, string>> | undefined): ContainerRecommendation['requests'] {
  return { cpu: list?.cpu ?? null, memory: list?.memory ?? null };
}

/**
 * A workload is in the webhook's care once the helper has released a generation of its
 * recommendation in place (status.observedGeneration) and no fallback took it to rollout. While a
 * newer generation is held (frozen, blocked), new pods get what their running siblings carry.
 */
export function buildWebhookState(input: {
  recommendations: readonly RecommendationView[];
  replicaSets: readonly KubeObject[];
  pods: readonly Pod[];
}): WebhookState {
  const replicaSetOwners = replicaSetOwnersOf(input.replicaSets);
  const applied = new Map<string, AppliedValues>();
  // Per workload and revision, its first pod by name: a stable pick when pods of one revision
  // differ. Found in one pass: sorting every pod of the cluster cost more than the rest of the
  // rebuild, and a rebuild follows any change in the caches, on the next admission's path.
  const firstPods = new Map<string, Map<string, Pod>>();
  for (const pod of input.pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    const owner = podWorkload(pod, namespace, replicaSetOwners);
    const revision = revisionOf(pod.metadata.labels);
    if (!owner || !revision || pod.metadata.deletionTimestamp) continue;
    const key = workloadKey({ namespace, kind: owner.kind, name: owner.name });
    const revisions = firstPods.get(key) ?? new Map<string, Pod>();
    const first = revisions.get(revision);
    if (!first || pod.metadata.name.localeCompare(first.metadata.name) < 0) revisions.set(revision, pod);
    firstPods.set(key, revisions);
  }
  for (const { recommendation, generation, observedGeneration } of input.recommendations) {
    if (observedGeneration === undefined || recommendation.status.strategy !== 'in-place') continue;
    const key = workloadKey({ namespace: recommendation.namespace, ...recommendation.targetRef });
    applied.set(key, {
      ...(observedGeneration === generation && { released: recommendation.containers }),
      byRevision: new Map([...(firstPods.get(key) ?? [])].map(([revision, pod]) => [revision, carried(pod)])),
    });
  }
  return { replicaSetOwners, applied };
}
