// Closing the loop after a reconcile (issue 6): per cluster recommendation, what its change has
// become — merged and synced (G5) → Applied with a health watch; a breach of a rollout → RolledBack
// and a revert PR (Z2); otherwise the run's decision (Proposed, Deferred, Blocked …) — written to
// its status with Events. In-place changes are the helper's (G2): their status is left to it.
import type { Decision, RightsizingPolicy } from '../model/types.js';
import { workloadKey } from '../manifests/scan.js';
import { parseDuration } from '../rules/duration.js';
import { selectPolicy } from '../rules/policy-match.js';
import { windowState } from '../rules/window-state.js';
import { DEFAULT_HEALTH_WATCH } from '../model/validate.js';
import type { ClusterPort } from '../cluster/cluster-port.js';
import type { ClusterConnection } from '../cluster/environment.js';
import { healthBreach, readHealth, watchOver, type HealthStatus } from '../cluster/health.js';
import type { Logger } from '../logger.js';
import { recommendationsInRepo, rolledBackGeneration, type ClusterRecommendation, type ClusterView } from './cluster-source.js';
import { gitRevisions } from './git-history.js';
import type { GitPort } from './git.js';
import type { GitHubPort } from './github.js';
import { mergeReached, syncManagerOf, type PullRequestReader, type RevisionPort } from './merged.js';
import type { PullRequestOutcome, ReconcileError, ReconcilePorts, RunContext } from './reconcile.js';
import { openRollback } from './rollback.js';
import { decisionEvent, decisionStatus, pullRequestFor, readPreviousValues, readPullRequest, writeStatus, type StatusWrite } from './status-writeback.js';

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

/**
 * The loop as `reconcile --recommendations cluster` wires it (the Action can too): the run's Git
 * and GitHub ports, pull requests read with the same token, ancestry from the clone `repo`.
 */
export async function connectLoop(input: {
  cluster: ClusterConnection;
  ports: { git: GitPort; github: GitHubPort };
  repo: string;
  identity: string;
  log?: Logger;
}): Promise<NonNullable<ReconcilePorts['afterRun']>> {
  return closeTheLoop({
    cluster: await input.cluster.port(),
    pulls: input.ports.github,
    revisions: gitRevisions(input.repo),
    ...input.ports,
    identity: input.identity,
    ...(input.log && { log: input.log }),
  });
}

/** Phases in which a PR of kerf's may have been merged since the last run. */
const AWAITING_MERGE = new Set(['Proposed', 'Deferred', 'Blocked']);

function policyOf(context: RunContext, target: Decision['target']): RightsizingPolicy | undefined {
  const workload = context.run.index.workloads.get(workloadKey(target));
  if (!workload) return undefined;
  const match = selectPolicy(workload, context.run.index.policies.filter((policy) => policy.namespace === target.namespace));
  return match.kind === 'covered' ? match.policy : undefined;
}

function watchUntil(policy: RightsizingPolicy | undefined, now: Date): string {
  return new Date(now.getTime() + parseDuration(policy?.apply.healthWatch?.duration ?? DEFAULT_HEALTH_WATCH)).toISOString();
}

/** The `afterRun` hook of reconcile that keeps the cluster's statuses in step with Git and GitHub. */
export function closeTheLoop(ports: LoopPorts): NonNullable<ReconcilePorts['afterRun']> {
  return async (context) => {
    const view = context.run.cluster;
    const pullRequests: PullRequestOutcome[] = [];
    const errors: ReconcileError[] = [];
    if (!view) return { pullRequests, errors };
    const loop = new Loop(ports, context, view, pullRequests);
    for (const recommendation of recommendationsInRepo(view, context.run.index)) {
      const { namespace, name } = recommendation.recommendation;
      try {
        await loop.step(recommendation);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        errors.push({ code: typeof code === 'string' ? code : 'StatusWriteFailed', message: `RightsizingRecommendation ${namespace}/${name}: ${(error as Error).message}` });
      }
    }
    return { pullRequests, errors };
  };
}

class Loop {
  private readonly decisions: Map<string, Decision>;
  private readonly open: Set<number>;
  private readonly now: Date;

  constructor(
    private readonly ports: LoopPorts,
    private readonly context: RunContext,
    private readonly view: ClusterView,
    private readonly opened: PullRequestOutcome[],
  ) {
    this.decisions = new Map(context.run.plan.decisions.map((decision) => [workloadKey(decision.target), decision]));
    this.open = new Set([...context.openPulls.map((pr) => pr.number), ...context.pullRequests.flatMap((pr) => (pr.number === null || pr.action === 'closed' ? [] : [pr.number]))]);
    this.now = new Date(context.run.plan.now);
  }

  async step(found: ClusterRecommendation): Promise<void> {
    const { recommendation, status } = found;
    const target = { namespace: recommendation.namespace, kind: recommendation.targetRef.kind, name: recommendation.targetRef.name };
    const key = workloadKey(target);
    const decision = this.decisions.get(key);
    const workload = this.view.facts.workloads.get(key);
    const write = (fields: Omit<StatusWrite, 'namespace' | 'name' | 'current' | 'workload'>) =>
      writeStatus(this.ports.cluster, { namespace: recommendation.namespace, name: recommendation.name, current: status, ...(workload && { workload }), ...fields }, this.ports.identity, this.now);

    if (status.phase === 'RolledBack' && rolledBackGeneration(status) === found.generation) {
      // A rollout rolled back whose revert PR could not be opened last time: try again.
      if (status.strategy !== 'in-place' && !status.rollbackPullRequest) await this.rollBack(found, target, readHealth(status)?.breach ?? 'a health breach', write);
      return;
    }

    // OD3: the helper's record of an eviction a PodDisruptionBudget refused, while it replaces pods after the apply.
    if (status.phase === 'Blocked' && status.reason === 'PodDisruptionBudget') return;
    const pullRequest = readPullRequest(status.pullRequest);
    if (pullRequest && AWAITING_MERGE.has(String(status.phase)) && !this.open.has(pullRequest.number)) {
      const pull = await this.ports.pulls.getPull(pullRequest.number);
      if (pull.merged && pull.mergeCommitSha) {
        if (!workload) return;
        const reached = await mergeReached({
          workload,
          recommendation,
          manager: syncManagerOf(this.view.state, target),
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
    if (decision.phase === 'UpToDate' && (status.phase === 'Applied' || status.phase === 'RolledBack')) return;
    const pr = pullRequestFor(this.context.pullRequests, key);
    await write({ status: decisionStatus(decision, pr), ...withEvent(decisionEvent(decision, pr)) });
  }

  /** G5: the merge reached the cluster; a deferred change merged outside its window says so (D2), on the PR too. */
  private async applied(found: ClusterRecommendation, decision: Decision | undefined, pullRequest: { number: number; url: string }, mergedAt: string | null, write: Write): Promise<void> {
    const target = { namespace: found.recommendation.namespace, kind: found.recommendation.targetRef.kind, name: found.recommendation.targetRef.name };
    const policy = policyOf(this.context, target);
    const deferred = found.status.strategy === 'deferred';
    const outside = deferred && mergedAt !== null && policy !== undefined && !windowState(policy.apply.maintenanceWindows, 'maintenance', new Date(mergedAt)).open;
    const health: HealthStatus = { state: 'Watching', until: watchUntil(policy, this.now) };
    const wrote = await write({
      status: { phase: 'Applied', reason: outside ? 'OutsideMaintenanceWindow' : null, nextWindow: null, appliedAt: this.now.toISOString(), health, ...(decision && { configuredStrategy: decision.configuredStrategy }) },
      event: outside
        ? { action: 'Applied', reason: 'OutsideMaintenanceWindow', note: `pull request #${pullRequest.number} was merged at ${mergedAt} outside a maintenance window; it reached the cluster` }
        : { action: 'Applied', reason: 'Applied', note: `pull request #${pullRequest.number} reached the cluster; health watch until ${health.until}` },
    });
    if (wrote && outside) {
      await this.ports.github.comment(
        pullRequest.number,
        `kerf: this deferred change was merged at ${mergedAt}, outside a maintenance window of its policy (it should have waited for \`kerf/window\`). It has reached the cluster; kerf watches its health until ${health.until}.`,
      );
    }
  }

  /** The health watch of a rollout: a breach rolls it back (RolledBack, a revert PR); a quiet watch ends Healthy. */
  private async watch(found: ClusterRecommendation, target: Decision['target'], write: Write): Promise<void> {
    const { status } = found;
    const health = readHealth(status);
    if (health?.state !== 'Watching') return;
    if (watchOver(health.until, this.now)) {
      await write({ status: { health: { ...health, state: 'Healthy' } } });
      return;
    }
    const appliedAt = typeof status.appliedAt === 'string' ? new Date(status.appliedAt) : this.now;
    const breach = healthBreach(this.view.facts.allPods.get(workloadKey(target)) ?? [], appliedAt, this.now);
    if (!breach) return;
    await write({
      status: { phase: 'RolledBack', reason: null, rolledBackGeneration: found.generation, health: { ...health, state: 'Breached', breach: breach.message } },
      event: { action: 'RolledBack', reason: breach.kind, note: `health watch breached: ${breach.message}; a revert pull request goes back to the values before kerf's merge`, pod: breach.pod },
    });
    await this.rollBack(found, target, breach.message, write);
  }

  private async rollBack(found: ClusterRecommendation, target: Decision['target'], breach: string, write: Write): Promise<void> {
    const outcome = await openRollback({
      context: this.context,
      git: this.ports.git,
      github: this.ports.github,
      target,
      previous: readPreviousValues(found.status.previous),
      breach,
    });
    if (!outcome) return;
    this.opened.push(outcome);
    await write({ status: { rollbackPullRequest: { number: outcome.number, url: outcome.url } } });
  }
}

type Write = (fields: Omit<StatusWrite, 'namespace' | 'name' | 'current' | 'workload'>) => Promise<boolean>;

const withEvent = (event: StatusWrite['event']) => (event ? { event } : {});
