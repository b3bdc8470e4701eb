// The summary's Status section: the cluster's recommendations after the run, read again so the
// statuses the loop just wrote show, as `kerf-gitops status` reads them.
import type { ClusterSource } from '../cluster/cluster-reader.js';
import type { PlanError } from '../model/types.js';
import { workloadKey } from '../util/workload-key.js';
import type { ReconcileResult } from '../reconcile/change-set.js';
import { statusRows, type StatusRow } from '../reconcile/status-command.js';

/** The plan's error saying the cluster could not be read (the run went on with Git alone). */
export function unreachableCluster(error: PlanError): boolean {
  return error.code === 'ClusterUnreachable';
}

/**
 * The rows of the recommendations whose workloads this repo defines: the others are other repos'
 * business, left out of the plan and the loop as well.
 */
export async function clusterStatus(cluster: ClusterSource, result: ReconcileResult, now: Date): Promise<StatusRow[]> {
  const planned = new Set(result.plan.decisions.map(({ target }) => workloadKey(target)));
  return statusRows(await cluster.recommendations(), now).filter((row) => planned.has(`${row.namespace}/${row.target}`));
}
