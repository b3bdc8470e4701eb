// The informer snapshot read into what the rules core and the helper's plans take.
import type { HorizontalPodAutoscaler, KerfConfig, PlanError, PodDisruptionBudget, RightsizingPolicy, RightsizingRecommendation } from '../model/types.js';
import { validatePolicy, validateRecommendation } from '../model/validate.js';
import type { NodeFacts } from '../rules/decide.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { isObject, intOrString } from '../util/json.js';
import type { ClusterSnapshot } from '../cluster/snapshot.js';
import { isTerminating, nodeFacts } from './pod-state.js';
import type { RecommendationView } from './pod-owners.js';
import { podWorkload, replicaSetOwnersOf } from './pod-owners.js';
import { workloadKey } from '../util/workload-key.js';


function ref(object: KubeObject, kind: string) {
  return { namespace: object.metadata.namespace ?? 'default', kind, name: object.metadata.name };
}

export function pdbFacts(object: KubeObject): PodDisruptionBudget {
  const spec = object.spec ?? {};
  const minAvailable = intOrString(spec.minAvailable);
  const maxUnavailable = intOrString(spec.maxUnavailable);
  const allowed = object.status?.disruptionsAllowed;
  return {
    ref: ref(object, 'PodDisruptionBudget'),
    selector: (isObject(spec.selector) ? spec.selector : {}) as PodDisruptionBudget['selector'],
    ...(minAvailable !== undefined && { minAvailable }),
    ...(maxUnavailable !== undefined && { maxUnavailable }),
    ...(typeof allowed === 'number' && { disruptionsAllowed: allowed }),
  };
}

export function hpaFacts(object: KubeObject): HorizontalPodAutoscaler {
  const spec = object.spec ?? {};
  const target = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  const current = object.status?.currentReplicas;
  return {
    ref: ref(object, 'HorizontalPodAutoscaler'),
    target: { kind: String(target.kind ?? ''), name: String(target.name ?? '') },
    ...(typeof spec.minReplicas === 'number' && { minReplicas: spec.minReplicas }),
    ...(typeof current === 'number' && { currentReplicas: current }),
  };
}

export interface ReadProblem {
  code?: string;
  object: string;
  field?: string;
  message: string;
}

const problemOf = (error: PlanError, object: KubeObject): ReadProblem => ({
  ...(error.code !== undefined && { code: error.code }),
  object: error.object ?? object.metadata.name,
  ...(error.field !== undefined && { field: error.field }),
  message: error.message,
});

/** The snapshot indexed for one pass: validated CRs, workloads by key, pods by workload. */
export interface ClusterFacts {
  recommendations: (RecommendationView & { resourceVersion?: string; status: Record<string, unknown> })[];
  policiesByNamespace: Map<string, RightsizingPolicy[]>;
  workloads: Map<string, KubeObject>;
  /** Running, non-terminating pods per workload key. */
  pods: Map<string, Pod[]>;
  /** Every pod per workload key, terminating ones included (OD2 counts them). */
  allPods: Map<string, Pod[]>;
  nodes: Map<string, NodeFacts>;
  pdbs: PodDisruptionBudget[];
  hpas: HorizontalPodAutoscaler[];
  problems: ReadProblem[];
}

/** Adds to the key's list in place: a pass groups every pod in the cluster, and copying lists per pod was quadratic. */
function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function readClusterFacts(snapshot: ClusterSnapshot, config: KerfConfig): ClusterFacts {
  const problems: ReadProblem[] = [];
  const policiesByNamespace = new Map<string, RightsizingPolicy[]>();
  for (const object of snapshot.policies) {
    const { policy, errors } = validatePolicy(object as unknown as Record<string, unknown>, { file: 'cluster' });
    problems.push(...errors.map((e) => problemOf(e, object)));
    // An invalid policy is kept: it holds its workloads (InvalidPolicy) rather than leave them unmanaged.
    policiesByNamespace.set(policy.namespace, [...(policiesByNamespace.get(policy.namespace) ?? []), policy]);
  }
  const recommendations: ClusterFacts['recommendations'] = [];
  for (const object of snapshot.recommendations) {
    const { recommendation, errors } = validateRecommendation(object as unknown as Record<string, unknown>, { file: 'cluster' });
    problems.push(...errors.map((e) => problemOf(e, object)));
    if (!recommendation) continue;
    const status = object.status ?? {};
    recommendations.push({
      recommendation: recommendation as RightsizingRecommendation,
      generation: object.metadata.generation ?? 1,
      ...(typeof status.observedGeneration === 'number' && { observedGeneration: status.observedGeneration }),
      ...(object.metadata.resourceVersion && { resourceVersion: object.metadata.resourceVersion }),
      status,
    });
  }
  const workloads = new Map<string, KubeObject>();
  for (const [kind, list] of [['Deployment', snapshot.deployments], ['StatefulSet', snapshot.statefulSets], ['DaemonSet', snapshot.daemonSets]] as const) {
    for (const object of list) workloads.set(workloadKey({ namespace: object.metadata.namespace ?? 'default', kind, name: object.metadata.name }), { ...object, kind });
  }
  const owners = replicaSetOwnersOf(snapshot.replicaSets);
  const pods = new Map<string, Pod[]>();
  const allPods = new Map<string, Pod[]>();
  for (const pod of snapshot.pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    const owner = podWorkload(pod, namespace, owners);
    if (!owner) continue;
    const key = workloadKey({ namespace, kind: owner.kind, name: owner.name });
    append(allPods, key, pod);
    if (!isTerminating(pod) && pod.status?.phase === 'Running') append(pods, key, pod);
  }
  const nodes = new Map(snapshot.nodes.map((node) => [node.metadata.name, nodeFacts(node, config.unsupportedNodeSelectors)]));
  return {
    recommendations,
    policiesByNamespace,
    workloads,
    pods,
    allPods,
    nodes,
    pdbs: snapshot.pdbs.map(pdbFacts),
    hpas: snapshot.hpas.map(hpaFacts),
    problems,
  };
}
