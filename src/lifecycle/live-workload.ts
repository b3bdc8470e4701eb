// Live apps/v1 objects as the rules core's Workload, through the same conversion the scan uses.
import type { Workload } from '../model/types.js';
import { workloadFromObject } from '../model/workload.js';
import type { KubeObject } from '../cluster/objects.js';

/** A live Deployment, StatefulSet or DaemonSet as a Workload; undefined for any other kind. */
export function liveWorkload(object: KubeObject): Workload | undefined {
  const namespace = object.metadata.namespace ?? 'default';
  const { name } = object.metadata;
  return workloadFromObject(object as unknown as Record<string, unknown>, { namespace, name }, { file: `cluster:${object.kind}/${namespace}/${name}`, document: 0, name });
}
