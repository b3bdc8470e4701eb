// Merged and synced (G5): a merged kerf PR has reached the cluster when the workload's live
// template carries the values, its controller has observed that generation, and the Argo CD
// Application or Flux Kustomization that manages it (if any) synced a revision holding the merge.
import type { RightsizingRecommendation } from '../model/types.js';
import { computeChanges } from '../rules/changes.js';
import type { ClusterState } from '../cluster/cluster-reader.js';
import type { KubeObject } from '../cluster/objects.js';
import { isObject } from '../util/json.js';
import { liveWorkload } from './live-workload.js';
import type { PullRequestState } from '../github/github.js';
import type { RevisionPort } from '../git/git-history.js';

/** Reads one pull request's merge state. */
export interface PullRequestReader {
  getPull(number: number): Promise<PullRequestState>;
}

/** The GitOps tool that applies the workload, and the Git revision it last synced. */
export interface SyncManager {
  /** e.g. `Argo CD Application argocd/shop`. */
  name: string;
  revision: string | null;
}

/** Flux writes `main@sha1:<sha>` (older versions `main/<sha>`); the commit is the hex at the end. */
function fluxRevision(value: unknown): string | null {
  return typeof value === 'string' ? (/([0-9a-f]{40,64})$/.exec(value)?.[1] ?? null) : null;
}

/** The Argo CD Application whose `status.resources` lists the workload. */
export function applicationOf(state: Pick<ClusterState, 'applications'>, workload: { namespace: string; kind: string; name: string }): KubeObject | undefined {
  const { namespace, kind, name } = workload;
  return state.applications.find((app) => {
    const resources = Array.isArray(app.status?.resources) ? app.status.resources.filter(isObject) : [];
    return resources.some((r) => r.group === 'apps' && r.kind === kind && r.namespace === namespace && r.name === name);
  });
}

/** The Flux Kustomization whose inventory holds the object of `id` (`<namespace>_<name>_<group>_<kind>`), with its applied revision. */
export function kustomizationOf(state: Pick<ClusterState, 'kustomizations'>, id: string): SyncManager | undefined {
  for (const kustomization of state.kustomizations) {
    const status = kustomization.status ?? {};
    const inventory = isObject(status.inventory) && Array.isArray(status.inventory.entries) ? status.inventory.entries.filter(isObject) : [];
    if (!inventory.some((entry) => entry.id === id)) continue;
    return { name: `Flux Kustomization ${kustomization.metadata.namespace ?? 'default'}/${kustomization.metadata.name}`, revision: fluxRevision(status.lastAppliedRevision) };
  }
  return undefined;
}

/** The Argo CD Application (by `status.resources`) or Flux Kustomization (by its inventory) that manages the workload. */
export function syncManagerOf(state: Pick<ClusterState, 'applications' | 'kustomizations'>, workload: { namespace: string; kind: string; name: string }): SyncManager | undefined {
  const app = applicationOf(state, workload);
  if (app) {
    const sync = isObject(app.status?.sync) ? app.status.sync : {};
    return { name: `Argo CD Application ${app.metadata.namespace ?? 'default'}/${app.metadata.name}`, revision: typeof sync.revision === 'string' ? sync.revision : null };
  }
  return kustomizationOf(state, `${workload.namespace}_${workload.name}_apps_${workload.kind}`);
}

/** Whether `revision` is the merge commit or holds it. */
export async function holdsMerge(revision: string | null, mergeCommit: string, revisions: RevisionPort): Promise<boolean> {
  return revision !== null && (revision === mergeCommit || (await revisions.contains(revision, mergeCommit)));
}

/** How the live template differs from the recommendation, or null when it carries the values. */
export function templateDifference(workload: KubeObject, recommendation: RightsizingRecommendation): string | null {
  const live = liveWorkload(workload);
  if (!live) return `${workload.kind} ${workload.metadata.name} is not a workload kerf rightsizes`;
  const differences = computeChanges(live, recommendation.containers);
  return differences.length > 0 ? `the live template still has ${differences.map((c) => `${c.container} ${c.field} ${c.from ?? 'unset'}`).join(', ')}` : null;
}

/**
 * Why the live workload does not run the recommendation yet (its template differs, or its
 * controller has not observed the template's generation), or null when it does.
 */
export function liveTemplateLag(workload: KubeObject, recommendation: RightsizingRecommendation): string | null {
  const difference = templateDifference(workload, recommendation);
  if (difference) return difference;
  const generation = workload.metadata.generation ?? 1;
  const observed = workload.status?.observedGeneration;
  if (typeof observed !== 'number' || observed < generation) {
    return `its controller has observed generation ${typeof observed === 'number' ? observed : 'none'} of ${generation}`;
  }
  return null;
}

/** Whether the merge has reached the cluster, or what it still waits for. */
export async function mergeReached(input: {
  workload: KubeObject;
  recommendation: RightsizingRecommendation;
  manager: SyncManager | undefined;
  mergeCommit: string;
  revisions: RevisionPort;
}): Promise<{ reached: true } | { reached: false; waitingFor: string }> {
  const lag = liveTemplateLag(input.workload, input.recommendation);
  if (lag) return { reached: false, waitingFor: lag };
  const { manager, mergeCommit } = input;
  if (!manager) return { reached: true };
  if (await holdsMerge(manager.revision, mergeCommit, input.revisions)) return { reached: true };
  return { reached: false, waitingFor: notSynced(manager, mergeCommit) };
}

export function notSynced(manager: SyncManager, mergeCommit: string): string {
  return `${manager.name} synced ${manager.revision ?? 'no revision'}, which does not contain the merge commit ${mergeCommit}`;
}
