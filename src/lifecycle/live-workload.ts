// Live apps/v1 objects as the rules core's Workload, through the same conversion the scan uses.
import type { Workload } from '../model/types.js';
import { workloadFromObject as fromObject } from '../model/workload.js';
import type { KubeObject } from '../cluster/objects.js';

export { containerSpecs } from '../model/workload.js';

/** A live Deployment, StatefulSet or DaemonSet as a Workload; undefined for any other kind. */
export function workloadFromObject(object: KubeObject): Workload | undefined {
  const namespace = object.metadata.namespace ?? 'default';
  const { name } = object.metadata;
  return fromObject(object as unknown as Record<string, unknown>, { namespace, name }, { file: `cluster:${object.kind}/${namespace}/${name}`, document: 0, name });
}
