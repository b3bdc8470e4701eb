// What `Applied` means, for both writers: the pods run the values. Every desired replica exists,
// none is Pending or Terminating, each is Ready at the workload's current template revision, has
// the values in its spec and reports them (observedGeneration, container status resources). Pure.
import type { ContainerRecommendation } from '../model/types.js';
import { computeChanges } from '../rules/changes.js';
import type { KubeObject, Pod } from '../cluster/objects.js';
import { liveWorkload } from './live-workload.js';
import { containerSpecs } from '../model/workload.js';
import { isTerminating, readySince, resizeProgress, resourcesReached } from './pod-state.js';

export type PodsProgress = { done: true } | { done: false; waitingFor: string };

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Replicas the workload's controller is to run, and how many it reports at the current template. */
function replicasOf(workload: KubeObject): { desired: number; updated: number | undefined } {
  const spec = workload.spec ?? {};
  const status = workload.status ?? {};
  if (workload.kind === 'DaemonSet') return { desired: num(status.desiredNumberScheduled) ?? 0, updated: num(status.updatedNumberScheduled) };
  return { desired: num(spec.replicas) ?? 1, updated: num(status.updatedReplicas) };
}

/** Why a pod does not yet count, or undefined when it runs the values. */
function podLag(pod: Pod, workload: KubeObject, containers: readonly ContainerRecommendation[]): string | undefined {
  const name = pod.metadata.name;
  if (isTerminating(pod)) return `pod ${name} is terminating`;
  if (pod.status?.phase !== 'Running') return `pod ${name} is ${pod.status?.phase ?? 'Pending'}`;
  if (!readySince(pod)) return `pod ${name} is not Ready`;
  const updateRevision = workload.status?.updateRevision;
  if (workload.kind === 'StatefulSet' && typeof updateRevision === 'string' && pod.metadata.labels?.['controller-revision-hash'] !== updateRevision) {
    return `pod ${name} is not at the update revision ${updateRevision}`;
  }
  const live = liveWorkload(workload);
  if (live && computeChanges({ ...live, containers: containerSpecs(pod.spec) }, containers).length > 0) return `pod ${name} does not have the values yet`;
  if (resizeProgress(pod).state !== 'settled' || !resourcesReached(pod)) return `pod ${name} does not report the values yet`;
  return undefined;
}

/** Whether the workload's pods run `containers` (as the recommendation sets them), or what is still missing. */
export function podsRunValues(workload: KubeObject, pods: readonly Pod[], containers: readonly ContainerRecommendation[]): PodsProgress {
  const generation = workload.metadata.generation ?? 1;
  const observed = num(workload.status?.observedGeneration);
  if (observed === undefined || observed < generation) return { done: false, waitingFor: `its controller has not observed generation ${generation}` };
  for (const pod of pods) {
    const lag = podLag(pod, workload, containers);
    if (lag) return { done: false, waitingFor: lag };
  }
  const { desired, updated } = replicasOf(workload);
  const running = pods.filter((pod) => !isTerminating(pod)).length;
  if (running < desired) return { done: false, waitingFor: `${running} of ${desired} pods exist` };
  if (updated !== undefined && updated < desired) return { done: false, waitingFor: `${updated} of ${desired} pods are at the current template` };
  return { done: true };
}
