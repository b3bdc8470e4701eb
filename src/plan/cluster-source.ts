// `--recommendations cluster`: RightsizingRecommendations with their status (F3 sticks), and the
// live facts that sharpen decisions, read from the cluster once per run. Pure apart from read().
import type { Decision, KerfConfig, PlanError, RightsizingPolicy } from '../model/types.js';
import type { RepoIndex } from '../manifests/scan.js';
import { workloadKey } from '../util/workload-key.js';
import type { ClusterSource, ClusterState } from '../cluster/cluster-reader.js';
import { readClusterFacts, type ClusterFacts } from '../lifecycle/cluster-facts.js';

/** The `--recommendations` value that reads them from the cluster. */
export const CLUSTER_RECOMMENDATIONS = 'cluster';

export function wantsCluster(recommendations: readonly string[]): boolean {
  return recommendations.length === 1 && recommendations[0] === CLUSTER_RECOMMENDATIONS;
}

/** What a run knows from the cluster. */
export interface ClusterView {
  state: ClusterState;
  facts: ClusterFacts;
}

export type ClusterRecommendation = ClusterFacts['recommendations'][number];

/**
 * The cluster as this run sees it, or one error entry saying it cannot be reached (the run goes on
 * with what Git alone can decide).
 */
export async function readCluster(source: ClusterSource, config: KerfConfig): Promise<{ view: ClusterView; errors: PlanError[] } | { error: PlanError }> {
  let state: ClusterState;
  try {
    state = await source.read();
  } catch (error) {
    return {
      error: {
        code: 'ClusterUnreachable',
        object: 'cluster',
        message: `cannot read the cluster at ${source.server}: ${(error as Error).message}; deciding from Git alone (recommendations from the repo, no live facts)`,
      },
    };
  }
  const facts = readClusterFacts(state, config);
  const errors: PlanError[] = facts.problems.map((problem) => ({ ...problem }));
  return { view: { state, facts }, errors };
}

/**
 * The cluster's recommendations of workloads this repo defines. The cluster holds one for every
 * workload, including those other repos (or no Git at all) manage: theirs are not this run's
 * business, so they are left out rather than reported as targets missing from the repo.
 */
export function recommendationsInRepo(view: ClusterView, index: RepoIndex): ClusterRecommendation[] {
  return view.facts.recommendations.filter(({ recommendation: r }) => index.workloads.has(workloadKey({ namespace: r.namespace, ...r.targetRef })));
}

/** The cluster recommendation whose target a decision is about. */
export function recommendationOf(view: ClusterView, target: Decision['target']): ClusterRecommendation | undefined {
  const key = workloadKey(target);
  return view.facts.recommendations.find(({ recommendation: r }) => workloadKey({ namespace: r.namespace, ...r.targetRef }) === key);
}

/**
 * The repo's index with the cluster's live facts: PodDisruptionBudgets and HPAs as they run
 * (`disruptionsAllowed`, `currentReplicas`) in place of their Git copies, and the cluster's
 * policies for namespaces whose policies are not in Git.
 */
export function withClusterFacts(index: RepoIndex, view: ClusterView): RepoIndex {
  const live = <T extends { ref: { namespace: string; name: string } }>(git: readonly T[], cluster: readonly T[]): T[] => {
    const running = new Set(cluster.map((item) => `${item.ref.namespace}/${item.ref.name}`));
    return [...git.filter((item) => !running.has(`${item.ref.namespace}/${item.ref.name}`)), ...cluster];
  };
  const inGit = new Set(index.policies.map((policy) => policy.namespace));
  const clusterPolicies: RightsizingPolicy[] = [...view.facts.policiesByNamespace]
    .filter(([namespace]) => !inGit.has(namespace))
    .flatMap(([, policies]) => policies);
  return {
    ...index,
    policies: [...index.policies, ...clusterPolicies],
    pdbs: live(index.pdbs, view.facts.pdbs),
    hpas: live(index.hpas, view.facts.hpas),
  };
}

/** status.rolledBackGeneration: the generation a breach rolled back. */
export function rolledBackGeneration(status: Record<string, unknown>): number | undefined {
  return typeof status.rolledBackGeneration === 'number' ? status.rolledBackGeneration : undefined;
}

/**
 * What only the cluster knows, laid over Git's decisions: an in-place change the helper found
 * blocked (N1, N2, SR3 on the nodes it runs on) is blocked, a change rolled back after a breach is
 * not proposed again until its recommendation's spec changes (no flapping), and a Helm workload
 * whose `helm:` entry a synced merge proved wrong is held until that entry changes.
 */
export function withClusterRecords(decisions: readonly Decision[], view: ClusterView, index: RepoIndex): Decision[] {
  return decisions.map((decision) => {
    const found = recommendationOf(view, decision.target);
    if (!found) return decision;
    const { status, generation } = found;
    if (status.phase === 'RolledBack' && rolledBackGeneration(status) === generation) {
      return { ...decision, action: 'none', phase: 'RolledBack', reason: null, nextWindow: null };
    }
    const helm = index.workloads.get(workloadKey(decision.target))?.helm;
    // Only what kerf would write to Git is held: no policy, report-only and in-place changes stay as decided.
    if (helm && status.helmMappingMismatch === helm.fingerprint && decision.configuredStrategy !== null && decision.strategy !== 'in-place' && decision.phase !== 'Recommended') {
      const { nextWindowSpan: _span, ...held } = decision;
      const message =
        status.reason === 'HelmMappingMismatch' && typeof status.message === 'string'
          ? status.message
          : `helm[${helm.entry}] of .kerf/config.yaml was found wrong after a merged change of its values was synced; no pull request is opened for this workload until that entry changes`;
      return { ...held, action: 'blocked', phase: 'Blocked', reason: 'HelmMappingMismatch', nextWindow: null, message };
    }
    if (decision.action === 'in-place' && status.phase === 'Blocked' && status.strategy === 'in-place' && typeof status.reason === 'string') {
      return { ...decision, action: 'blocked', phase: 'Blocked', reason: status.reason as Decision['reason'] };
    }
    return decision;
  });
}
