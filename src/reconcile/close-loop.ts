// Closing the loop after a reconcile (issue 6): per cluster recommendation, what its change has
// become — merged and synced (G5) → Resizing, then Applied with a health watch once its pods run the
// values; a breach of a rollout → RolledBack and a revert PR (Z2); otherwise the run's decision
// (Proposed, Deferred, Blocked …) — written through the life cycle's writer (src/lifecycle), which
// leaves the helper's stages (in-place changes, G2; OnDelete eviction blocks) to the helper.
import type { Decision, HelmValuesSource, RightsizingPolicy } from '../model/types.js';
import type { KubeObject } from '../cluster/objects.js';
import { workloadKey } from '../util/workload-key.js';
import { selectPolicy } from '../rules/policy-match.js';
import { windowState } from '../rules/window-state.js';
import type { ClusterPort } from '../cluster/cluster-port.js';
import type { ClusterConnection } from '../cluster/environment.js';
import { readHealth } from '../cluster/health.js';
import { healthStep, startWatch } from '../lifecycle/health-watch.js';
import { podsRunValues } from '../lifecycle/pods-run-values.js';
import { isEvictionBlock } from '../lifecycle/state-machine.js';
import { writeStatus, type StatusWrite } from '../lifecycle/status-writer.js';
import type { Logger } from '../util/logger.js';
import { recommendationsInRepo, rolledBackGeneration, type ClusterRecommendation, type ClusterView } from '../plan/cluster-source.js';
import { gitRevisions } from '../git/git-history.js';
import type { GitPort, Worktree } from '../git/git.js';
import type { GitHubPort } from '../github/github.js';
import { mergeReached, syncManagerOf, templateDifference, type PullRequestReader } from '../lifecycle/merged.js';
import { helmReleaseSynced, mappingMismatchMessage } from '../lifecycle/helm-synced.js';
import type { RevisionPort } from '../git/git-history.js';
import type { LoopOutcome, PullRequestOutcome, ReconcileError, RunBasis } from './change-set.js';
import { PullRequestWriter } from './publish.js';
import { openRollback } from './rollback.js';
import { decisionEvent, decisionStatus, pullRequestFor, readPreviousValues, readPullRequest } from './status-writeback.js';

export interface LoopPorts {
  cluster: ClusterPort;
  pulls: PullRequestReader;
  revisions: RevisionPort;
  git: GitPort;
  github: GitHubPort;
  /** The Events' reportingInstance (the runner, the host). */
  identity: string;
  log?: Logger;
}

/** What the loop works from: what the reconcile run worked from, and what it did with each group's PR. */
export interface LoopInput {
  basis: RunBasis;
  pullRequests: readonly PullRequestOutcome[];
}

/**
 * The loop's ports as `reconcile --recommendations cluster` wires them (the Action too): the run's
 * Git and GitHub ports, pull requests read with the same token, ancestry from the clone `repo`.
 */
export async function connectLoop(input: {
  cluster: ClusterConnection;
  ports: { git: GitPort; github: GitHubPort };
  repo: string;
  identity: string;
  log?: Logger;
}): Promise<LoopPorts> {
  return {
    cluster: await input.cluster.port(),
    pulls: input.ports.github,
    revisions: gitRevisions(input.repo),
    ...input.ports,
    identity: input.identity,
    ...(input.log && { log: input.log }),
  };
}

/** Phases in which a PR of kerf's may have been merged since the last run. */
const AWAITING_MERGE = new Set(['Proposed', 'Deferred', 'Blocked']);

function policyOf(basis: RunBasis, target: Decision['target']): RightsizingPolicy | undefined {
  const workload = basis.run.index.workloads.get(workloadKey(target));
  if (!workload) return undefined;
  const match = selectPolicy(workload, basis.run.index.policies.filter((policy) => policy.namespace === target.namespace));
  return match.kind === 'covered' ? match.policy : undefined;
}


/**
 * After a reconcile run: keeps the cluster's statuses in step with Git and GitHub, and opens the
 * revert PRs of rollouts that breached their health watch (in a work tree of its own, opened then).
 */
export async function closeLoop(input: LoopInput, ports: LoopPorts): Promise<LoopOutcome> {
  const view = input.basis.run.cluster;
  const pullRequests: PullRequestOutcome[] = [];
  const errors: ReconcileError[] = [];
  if (!view) return { pullRequests, errors };
  let worktree: Worktree | undefined;
  const checkout = async () => (worktree ??= await ports.git.openWorktree(input.basis.sha));
  const loop = new Loop(ports, input, view, { checkout, writer: new PullRequestWriter(ports.git, ports.github, checkout, errors, []) }, pullRequests);
  try {
    for (const recommendation of recommendationsInRepo(view, input.basis.run.index)) {
      const { namespace, name } = recommendation.recommendation;
      try {
        await loop.step(recommendation);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        errors.push({ code: typeof code === 'string' ? code : 'StatusWriteFailed', message: `RightsizingRecommendation ${namespace}/${name}: ${(error as Error).message}` });
      }
    }
  } finally {
    await worktree?.close();
  }
  return { pullRequests, errors };
}

class Loop {
  private readonly decisions: Map<string, Decision>;
  private readonly open: Set<number>;
  private readonly now: Date;

  private readonly basis: RunBasis;

  constructor(
    private readonly ports: LoopPorts,
    private readonly input: LoopInput,
    private readonly view: ClusterView,
    /** For revert PRs: a work tree at the run's base (opened on first use) and the PR path. */
    private readonly revert: { checkout: () => Promise<Worktree>; writer: PullRequestWriter },
    private readonly opened: PullRequestOutcome[],
  ) {
    this.basis = input.basis;
    this.decisions = new Map(this.basis.run.plan.decisions.map((decision) => [workloadKey(decision.target), decision]));
    this.open = new Set([...this.basis.openPulls.map((pr) => pr.number), ...input.pullRequests.flatMap((pr) => (pr.number === null || pr.action === 'closed' ? [] : [pr.number]))]);
    this.now = new Date(this.basis.run.plan.now);
  }

  async step(found: ClusterRecommendation): Promise<void> {
    const { recommendation, status } = found;
    const target = { namespace: recommendation.namespace, kind: recommendation.targetRef.kind, name: recommendation.targetRef.name };
    const key = workloadKey(target);
    const decision = this.decisions.get(key);
    const workload = this.view.facts.workloads.get(key);
    const write = this.writer(found, workload);

    if (status.phase === 'RolledBack' && rolledBackGeneration(status) === found.generation) {
      // A rollout rolled back whose revert PR could not be opened last time: try again.
      if (status.strategy !== 'in-place' && !status.rollbackPullRequest) await this.rollBack(found, target, readHealth(status)?.breach ?? 'a health breach', write);
      return;
    }

    const pullRequest = readPullRequest(status.pullRequest);
    // A merged rollout in the cluster whose pods are still being replaced (OD3's block included): Applied once they run the values.
    if (status.strategy !== 'in-place' && (status.phase === 'Resizing' || isEvictionBlock(status))) {
      if (workload && pullRequest) await this.applied(found, decision, pullRequest, null, write);
      return;
    }
    const helm = this.basis.run.index.workloads.get(key)?.helm;
    // A merge already judged against an earlier helm: entry says nothing about the entry of today.
    const judgedOtherMapping = status.reason === 'HelmMappingMismatch' && status.helmMappingMismatch !== helm?.fingerprint;
    if (pullRequest && AWAITING_MERGE.has(String(status.phase)) && !this.open.has(pullRequest.number) && !judgedOtherMapping) {
      const pull = await this.ports.pulls.getPull(pullRequest.number);
      if (pull.merged && pull.mergeCommitSha) {
        if (!workload) return;
        const release = helm && (await helmReleaseSynced({ source: helm, workload: target, recommendation, state: this.view.state, mergeCommit: pull.mergeCommitSha, mergedAt: pull.mergedAt, revisions: this.ports.revisions }));
        if (release && !release.synced) {
          this.ports.log?.info('merged, not yet in the release', { recommendation: `${recommendation.namespace}/${recommendation.name}`, waitingFor: release.waitingFor });
          return;
        }
        const difference = release && templateDifference(workload, recommendation);
        if (helm && release && difference) {
          await this.mappingMismatch(decision, helm, mappingMismatchMessage({ source: helm, release: release.release, pullRequest: pullRequest.number, workload: target, difference }), write);
          return;
        }
        const reached = await mergeReached({
          workload,
          recommendation,
          // The release's sync stands in for the manager's: an Argo CD Application of a chart syncs the chart's revision, not this repo's.
          manager: release ? undefined : syncManagerOf(this.view.state, target),
          mergeCommit: pull.mergeCommitSha,
          revisions: this.ports.revisions,
        });
        if (!reached.reached) {
          this.ports.log?.info('merged, not yet in the cluster', { recommendation: `${recommendation.namespace}/${recommendation.name}`, waitingFor: reached.waitingFor });
          return;
        }
        await this.applied(found, decision, pullRequest, pull.mergedAt, write);
        return;
      }
      // Closed without a merge: what the run decided now stands.
    }

    if (status.phase === 'Applied' && status.strategy !== 'in-place' && decision?.changes.length === 0) {
      await this.watch(found, target, write);
      return;
    }
    // G2: in-place changes (and their status) belong to the helper.
    if (!decision || decision.strategy === 'in-place') return;
    if (decision.phase === 'UpToDate' && (status.phase === 'Applied' || status.phase === 'RolledBack' || status.phase === 'Resizing')) return;
    const pr = pullRequestFor(this.input.pullRequests, key);
    await write({ status: decisionStatus(decision, pr), ...withEvent(decisionEvent(decision, pr)) });
  }

  /**
   * G5: the merge reached the cluster. Applied once its pods run the values (Resizing until then,
   * the helper replacing OnDelete pods meanwhile); a deferred change merged outside its window
   * says so (D2), on the PR too. `mergedAt` is null when the merge was seen on an earlier run.
   */
  private async applied(found: ClusterRecommendation, decision: Decision | undefined, pullRequest: { number: number; url: string }, mergedAt: string | null, write: Write): Promise<void> {
    const target = { namespace: found.recommendation.namespace, kind: found.recommendation.targetRef.kind, name: found.recommendation.targetRef.name };
    const workload = this.view.facts.workloads.get(workloadKey(target));
    const configured = decision ? { configuredStrategy: decision.configuredStrategy } : {};
    const policy = policyOf(this.basis, target);
    // D2, decided when the merge is first seen and carried by the reason until Applied.
    const outside =
      mergedAt === null
        ? found.status.reason === 'OutsideMaintenanceWindow'
        : found.status.strategy === 'deferred' && policy !== undefined && !windowState(policy.apply.maintenanceWindows, 'maintenance', new Date(mergedAt)).open;
    const reason = outside ? 'OutsideMaintenanceWindow' : null;
    const progress = workload ? podsRunValues(workload, this.view.facts.allPods.get(workloadKey(target)) ?? [], found.recommendation.containers) : { done: false as const, waitingFor: 'the workload is gone' };
    const merged = outside && mergedAt !== null ? ` (merged at ${mergedAt}, outside a maintenance window)` : '';
    if (!progress.done) {
      this.ports.log?.info('merged, pods not yet at the values', { recommendation: `${target.namespace}/${found.recommendation.name}`, waitingFor: progress.waitingFor });
      if (found.status.phase === 'Resizing' || isEvictionBlock(found.status)) return;
      const wrote = await write({ status: { phase: 'Resizing', reason, nextWindow: null, message: `pull request #${pullRequest.number}${merged} reached the cluster; waiting for ${progress.waitingFor}`, ...configured } });
      if (wrote && outside) await this.outsideWindowComment(pullRequest.number, mergedAt, 'kerf marks it Applied once its pods run the values, then watches its health');
      return;
    }
    const health = startWatch(policy, this.now);
    const wrote = await write({
      status: { phase: 'Applied', reason, nextWindow: null, appliedAt: this.now.toISOString(), health, ...configured },
      event: outside
        ? { action: 'Applied', reason: 'OutsideMaintenanceWindow', note: `pull request #${pullRequest.number} was merged${mergedAt ? ` at ${mergedAt}` : ''} outside a maintenance window; it reached the cluster and its pods run the values` }
        : { action: 'Applied', reason: 'Applied', note: `pull request #${pullRequest.number} reached the cluster and its pods run the values; health watch until ${health.until}` },
    });
    if (wrote && outside && mergedAt !== null) await this.outsideWindowComment(pullRequest.number, mergedAt, `kerf watches its health until ${health.until}`);
  }

  /**
   * A Helm workload whose merged values were taken by its release but not by its pods: the helm:
   * entry is wrong. Blocked with the entry's fingerprint, so planning holds it until the entry
   * changes; the Event is written once, when the status first says so.
   */
  private async mappingMismatch(decision: Decision | undefined, helm: HelmValuesSource, message: string, write: Write): Promise<void> {
    await write({
      status: { phase: 'Blocked', reason: 'HelmMappingMismatch', nextWindow: null, message, helmMappingMismatch: helm.fingerprint, ...(decision && { configuredStrategy: decision.configuredStrategy }) },
      event: { action: 'Blocked', reason: 'HelmMappingMismatch', note: message },
    });
  }

  /** D2 said on the PR, once, when the merge outside a window is first seen in the cluster. */
  private async outsideWindowComment(number: number, mergedAt: string | null, next: string): Promise<void> {
    await this.ports.github.comment(
      number,
      `kerf: this deferred change was merged at ${mergedAt}, outside a maintenance window of its policy (it should have waited for \`kerf/window\`). It has reached the cluster; ${next}.`,
    );
  }

  /** The health watch of a rollout: a breach rolls it back (RolledBack, a revert PR); a quiet watch ends Healthy. */
  private async watch(found: ClusterRecommendation, target: Decision['target'], write: Write): Promise<void> {
    const step = healthStep(found.status, this.view.facts.allPods.get(workloadKey(target)) ?? [], policyOf(this.basis, target), this.now);
    if (!step || step.kind === 'start') return;
    if (step.kind === 'healthy') {
      await write({ status: { health: step.health } });
      return;
    }
    const { breach, health } = step;
    await write({
      status: { phase: 'RolledBack', reason: null, rolledBackGeneration: found.generation, health },
      event: { action: 'RolledBack', reason: breach.kind, note: `health watch breached: ${breach.message}; a revert pull request goes back to the values before kerf's merge`, pod: breach.pod },
    });
    await this.rollBack(found, target, breach.message, write);
  }

  /**
   * The life cycle's writer for one recommendation this run: conditional on the resourceVersion
   * it was read at (then on what each write answered), so a status the helper moved meanwhile is
   * left for the next run instead of overwritten. Resolves whether it wrote.
   */
  private writer(found: ClusterRecommendation, workload: KubeObject | undefined): Write {
    let current = found.status;
    let resourceVersion = found.resourceVersion;
    const { namespace, name } = found.recommendation;
    return async (fields) => {
      const outcome = await writeStatus(
        this.ports.cluster,
        { writer: 'reconciler', namespace, name, ...(resourceVersion !== undefined && { resourceVersion }), current, ...(workload && { workload }), ...fields },
        this.ports.identity,
        this.now,
      );
      if (outcome.kind === 'written') {
        current = { ...current, ...outcome.status };
        resourceVersion = outcome.resourceVersion ?? resourceVersion;
        return true;
      }
      if (outcome.kind !== 'unchanged') this.ports.log?.info('status left as it is', { recommendation: `${namespace}/${name}`, why: outcome.kind === 'not-owner' ? outcome.why : outcome.message });
      return false;
    };
  }

  private async rollBack(found: ClusterRecommendation, target: Decision['target'], breach: string, write: Write): Promise<void> {
    const outcome = await openRollback({
      basis: this.basis,
      git: this.ports.git,
      ...this.revert,
      target,
      previous: readPreviousValues(found.status.previous),
      breach,
    });
    if (!outcome) return;
    this.opened.push(outcome);
    await write({ status: { rollbackPullRequest: { number: outcome.number, url: outcome.url } } });
  }
}

type Write = (fields: Omit<StatusWrite, 'writer' | 'namespace' | 'name' | 'resourceVersion' | 'current' | 'workload'>) => Promise<boolean>;

const withEvent = (event: StatusWrite['event']) => (event ? { event } : {});
