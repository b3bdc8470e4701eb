// Which workload a pod belongs to, read from owner references and revision labels: shared by the
// helper's webhook and the cluster facts the reconciler reads.
import type { RightsizingRecommendation } from '../model/types.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { keyOf } from '../util/workload-key.js';

export interface RecommendationView {
  recommendation: RightsizingRecommendation;
  generation: number;
  /** status.observedGeneration: the generation whose values the helper released to pods. */
  observedGeneration?: number;
}

export const REVISION_LABELS = ['pod-template-hash', 'controller-revision-hash'] as const;

export function revisionOf(labels: Record<string, string> | undefined): string | undefined {
  return REVISION_LABELS.map((label) => labels?.[label]).find((value) => value !== undefined);
}

/** The workload a pod belongs to (pod → ReplicaSet → Deployment, or a StatefulSet/DaemonSet directly). */
export function podWorkload(pod: Pod, namespace: string, replicaSetOwners: ReadonlyMap<string, string>): { kind: string; name: string } | undefined {
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.controller);
  if (!owner) return undefined;
  if (owner.kind === 'ReplicaSet') {
    const deployment = replicaSetOwners.get(keyOf(namespace, owner.name));
    return deployment ? { kind: 'Deployment', name: deployment } : undefined;
  }
  return owner.kind === 'StatefulSet' || owner.kind === 'DaemonSet' ? { kind: owner.kind, name: owner.name } : undefined;
}

export function replicaSetOwnersOf(replicaSets: readonly KubeObject[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const replicaSet of replicaSets) {
    const owner = replicaSet.metadata.ownerReferences?.find((ref) => ref.controller && ref.kind === 'Deployment');
    if (owner) owners.set(keyOf(replicaSet.metadata.namespace, replicaSet.metadata.name), owner.name);
  }
  return owners;
}
