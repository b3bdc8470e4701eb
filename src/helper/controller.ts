// The helper's controller loop: informers feed a pass over every recommendation whenever something
// changes (and on a resync timer, for time-based rules: F2, OD2 settle, windows). Only the Lease
// holder writes. Each pass is the pure plans (resize-plan, on-delete) executed through ClusterPort.
import type { KerfConfig, Strategy } from '../model/types.js';
import { selectPolicy } from '../rules/policy-match.js';
import { configuredStrategy } from '../rules/strategy.js';
import { ClusterError } from '../cluster/cluster-port.js';
import type { ClusterPort } from '../cluster/cluster-port.js';
import type { ClusterWatch } from '../cluster/kube-watch.js';
import type { KubeObject } from '../cluster/objects.js';
import { keyOf, workloadKey } from '../util/workload-key.js';
import { readClusterFacts } from '../lifecycle/cluster-facts.js';
import type { ClusterFacts } from '../lifecycle/cluster-facts.js';
import type { LeaderElector } from './leader-election.js';
import { liveWorkload } from '../lifecycle/live-workload.js';
import type { Logger } from '../util/logger.js';
import { nextEvictions } from './on-delete.js';
import type { EventNote, StatusUpdate } from '../lifecycle/outcome.js';
import { withInPlaceCondition, workloadEvent } from '../lifecycle/outcome.js';
import { watchedBreach } from '../lifecycle/health-watch.js';
import { writeStatus } from '../lifecycle/status-writer.js';
import { isEvictionBlock, stageOf } from '../lifecycle/state-machine.js';
import { afterRefusal, readEvictionRefusal } from './eviction-refusal.js';
import type { EvictionBackoff } from './eviction-refusal.js';
import { planHealthWatch } from './health-watch.js';
import { fallbackPlan, planResize } from './resize-plan.js';
import type { ResizeMemory, ResizePlan } from './resize-plan.js';
import type { WebhookState } from './webhook-state.js';
import { buildWebhookState } from './webhook-state.js';

export interface ControllerOptions {
  port: ClusterPort;
  watch: ClusterWatch;
  /** Only the holder of the Lease acts; without one (tests, a single replica) this replica always acts. */
  elector?: Pick<LeaderElector, 'isLeader'>;
  /** The helper's config; read on every pass so an edited ConfigMap takes effect. */
  config: () => KerfConfig;
  /** Name of this helper's pod, the Events' reportingInstance. */
  identity: string;
  now: () => Date;
  logger: Logger;
  /** Pass at least this often, for time-based rules; default 5 s. */
  resyncMs?: number;
}

type Recommendation = ClusterFacts['recommendations'][number];

/** A status just written, laid over the cache until the cache shows the write (or anything newer). */
interface WrittenStatus {
  staleVersion: string | undefined;
  status: Record<string, unknown>;
  /** What the write answered: the version the next write is conditional on while the cache lags. */
  resourceVersion: string | undefined;
}

export class Controller {
  private readonly memory = new Map<string, ResizeMemory>();
  private readonly written = new Map<string, WrittenStatus>();
  private readonly reported = new Set<string>();
  /** Refused evictions, per StatefulSet: no eviction is tried again before notBefore. */
  private readonly evictionBackoff = new Map<string, EvictionBackoff>();
  private webhook: WebhookState | undefined;
  private passing: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  /** A pass held back until the last one's rest is over. */
  private held: NodeJS.Timeout | undefined;
  /** When the helper may pass again: a pass is followed by a rest as long as it took. */
  private restUntil = 0;
  private started = false;

  constructor(private readonly options: ControllerOptions) {}

  async start(): Promise<void> {
    await this.options.watch.start(() => this.changed());
    this.started = true;
    this.timer = setInterval(() => this.trigger(), this.options.resyncMs ?? 5000);
    this.trigger();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    clearTimeout(this.held);
    this.held = undefined;
    await this.options.watch.stop();
    await this.passing;
  }

  /** Whether the caches have been listed (readiness). */
  ready(): boolean {
    return this.started;
  }

  /** The webhook's view, rebuilt after the caches change. */
  webhookState(): WebhookState {
    if (!this.webhook) {
      const snapshot = this.options.watch.snapshot();
      const facts = readClusterFacts(snapshot, this.options.config());
      this.webhook = buildWebhookState({ recommendations: facts.recommendations, replicaSets: snapshot.replicaSets, pods: snapshot.pods });
    }
    return this.webhook;
  }

  private changed(): void {
    this.webhook = undefined;
    this.trigger();
  }

  /**
   * Runs a pass now, or once more after the one running. Each pass reads every pod, so in a big
   * cluster whose pods change all the time passes ran back to back, and what each held while its
   * writes were awaited outlived the young generation: the heap grew by most of a pass's garbage
   * each time. A pass is therefore followed by a rest as long as it took (changes meanwhile wait
   * for one pass after it): nothing in a small cluster, tens of milliseconds with 10,000 pods.
   */
  trigger(): void {
    if (!this.started) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    const rest = this.restUntil - this.options.now().getTime();
    if (rest > 0) {
      this.held ??= setTimeout(() => {
        this.held = undefined;
        this.trigger();
      }, rest);
      return;
    }
    const startedAt = this.options.now().getTime();
    this.passing = this.pass()
      .catch((error: unknown) => this.options.logger.error('pass failed', { error: (error as Error).message }))
      .finally(() => {
        this.passing = undefined;
        const endedAt = this.options.now().getTime();
        this.restUntil = endedAt + (endedAt - startedAt);
        if (this.again) {
          this.again = false;
          this.trigger();
        }
      });
  }

  /** One pass over every recommendation; resolves when its writes are done. */
  async pass(): Promise<void> {
    if (this.options.elector && !this.options.elector.isLeader()) return;
    const config = this.options.config();
    const facts = readClusterFacts(this.options.watch.snapshot(), config);
    this.report(facts);
    for (const recommendation of facts.recommendations) {
      await this.reconcile(recommendation, facts, config);
    }
  }

  private report(facts: ClusterFacts): void {
    for (const problem of facts.problems) {
      const key = `${problem.object}|${problem.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.options.logger.warn('cannot read object', { object: problem.object, error: problem.message });
    }
  }

  private async reconcile(view: Recommendation, facts: ClusterFacts, config: KerfConfig): Promise<void> {
    const { recommendation } = view;
    const key = keyOf(recommendation.namespace, recommendation.name);
    const target = workloadKey({ namespace: recommendation.namespace, ...recommendation.targetRef });
    const object = facts.workloads.get(target);
    const workload = object && liveWorkload(object);
    if (!object || !workload) return;
    const written = this.written.get(key);
    if (written && written.staleVersion !== view.resourceVersion) this.written.delete(key);
    const overlay = this.written.get(key)?.status;
    const current: Recommendation = overlay
      ? { ...view, status: { ...view.status, ...overlay }, recommendation: { ...recommendation, status: { ...recommendation.status, ...(overlay as typeof recommendation.status) } } }
      : view;
    const status = current.status;
    const policies = facts.policiesByNamespace.get(recommendation.namespace) ?? [];
    try {
      const match = selectPolicy(workload, policies);
      const covered = match.kind === 'covered' && match.policy.mode === 'auto-patch' ? match.policy : undefined;
      const watched =
        covered && configuredStrategy(workload, covered) === 'in-place'
          ? planHealthWatch({ recommendation: current.recommendation, status, generation: view.generation, workload, policy: covered, configured: 'in-place', pods: facts.pods.get(target) ?? [], now: this.options.now() })
          : undefined;
      const plan = watched ?? planResize({
        recommendation: current.recommendation,
        generation: view.generation,
        ...(typeof status.observedGeneration === 'number' && { observedGeneration: status.observedGeneration }),
        workload,
        policies,
        config,
        pods: facts.pods.get(target) ?? [],
        allPods: facts.allPods.get(target) ?? [],
        workloadObject: object,
        nodes: facts.nodes,
        pdbs: facts.pdbs,
        hpas: facts.hpas,
        memory: this.memory.get(key) ?? {},
        now: this.options.now(),
      });
      if (plan) await this.execute(current, object, plan);
      if (workload.ref.kind === 'StatefulSet') await this.replaceOnDelete(current, object, facts, config);
    } catch (error) {
      this.options.logger.warn('recommendation skipped', { recommendation: key, error: (error as Error).message, code: (error as { code?: string }).code });
    }
  }

  private async execute(view: Recommendation, workload: KubeObject, plan: ResizePlan): Promise<void> {
    const { recommendation } = view;
    const key = keyOf(recommendation.namespace, recommendation.name);
    let outcome = plan;
    if (plan.resize) {
      const { pod, containers } = plan.resize;
      try {
        const { generation } = await this.options.port.resizePod(recommendation.namespace, pod, containers);
        outcome = { ...plan, memory: { submitted: { pod, generation } } };
        this.options.logger.info('resize submitted', { recommendation: key, pod, generation });
      } catch (error) {
        if (!(error instanceof ClusterError) || error.code !== 'Invalid') throw error;
        // F1: the API server refused the resize (a QoS class change, a forbidden removal).
        const configured = plan.status?.configuredStrategy ?? 'in-place';
        outcome = fallbackPlan(configured, `resize of pod ${pod} refused: ${error.message}`, pod, plan.memory);
      }
    }
    this.memory.set(key, outcome.memory);
    // Events go with the status they explain: none when the life cycle refused the write or the status moved under it.
    if (outcome.status && !(await this.writeStatus(view, outcome.status))) return;
    for (const event of outcome.events) await this.emit(workload, event);
  }

  private async replaceOnDelete(view: Recommendation, statefulSet: KubeObject, facts: ClusterFacts, config: KerfConfig): Promise<void> {
    const { recommendation } = view;
    const workload = liveWorkload(statefulSet);
    const match = workload && selectPolicy(workload, facts.policiesByNamespace.get(recommendation.namespace) ?? []);
    if (!workload || match?.kind !== 'covered' || match.policy.mode !== 'auto-patch') return;
    const policy = match.policy;
    const now = this.options.now();
    const key = workloadKey({ namespace: recommendation.namespace, kind: 'StatefulSet', name: statefulSet.metadata.name });
    // OD1 begins once the merge is known to have reached the cluster: the reconciler then marks it Resizing (G5).
    if (view.status.phase === 'Proposed' || view.status.phase === 'Deferred' || view.status.phase === 'Pending') return;
    // OD2: no replacement while the health watch reports a breach, nor after a rollback.
    const breach = watchedBreach(view.status, facts.allPods.get(key) ?? [], now);
    if (breach) {
      this.options.logger.debug('OnDelete replacement stopped by the health watch', { statefulSet: key, breach: breach === 'rolled-back' ? breach : breach.message });
      return;
    }
    const plan = nextEvictions({ statefulSet, pods: facts.allPods.get(key) ?? [], policy, config, now });
    const configured: Strategy = configuredStrategy(workload, policy);
    const base = { strategy: (view.status.strategy as Strategy | undefined) ?? configured, configuredStrategy: configured, nextWindow: null } as const;
    const blocked = () => isEvictionBlock(this.latestStatus(view));
    // The refusal is over once an eviction goes through or the pods are replaced: back to the rollout's Resizing.
    const resume = () => this.writeStatus(view, { ...base, phase: 'Resizing', reason: null });
    if (plan.wait === 'up-to-date' && blocked()) {
      await resume();
      return;
    }
    const backoff = this.evictionBackoff.get(key);
    if (plan.evict.length > 0 && backoff && backoff.notBefore > now.getTime()) {
      this.options.logger.debug('eviction waits for its backoff', { statefulSet: key, until: new Date(backoff.notBefore).toISOString() });
      return;
    }
    for (const pod of plan.evict) {
      try {
        await this.options.port.evictPod(recommendation.namespace, pod);
      } catch (error) {
        const refusal = readEvictionRefusal(error);
        if (!refusal) throw error;
        const next = afterRefusal(this.evictionBackoff.get(key), refusal, now);
        this.evictionBackoff.set(key, next);
        const retry = new Date(next.notBefore).toISOString();
        if (refusal.kind === 'throttled') {
          // API Priority and Fairness or a starting apiserver: no block, come back when it says.
          this.options.logger.info('eviction throttled by the API server', { statefulSet: key, pod, retryAt: retry, error: refusal.message });
          return;
        }
        // OD3: a PodDisruptionBudget refused it (or several budgets select the pod, which the eviction API cannot handle).
        this.options.logger.info('eviction refused by a PodDisruptionBudget', { statefulSet: key, pod, retryAt: retry, error: refusal.message });
        const message =
          refusal.kind === 'several-budgets'
            ? `eviction of pod ${pod} refused: ${refusal.message} Replacement is stopped until only one PodDisruptionBudget selects the pod.`
            : `eviction of pod ${pod} refused: ${refusal.message}`;
        const wasBlocked = blocked();
        if ((await this.writeStatus(view, { ...base, phase: 'Blocked', reason: 'PodDisruptionBudget', message })) && !wasBlocked) {
          await this.emit(statefulSet, { action: 'Blocked', reason: 'PodDisruptionBudget', note: `${message}; retried from ${retry}`, pod });
        }
        return;
      }
      this.evictionBackoff.delete(key);
      this.options.logger.info('pod evicted', { statefulSet: key, pod });
      await this.emit(statefulSet, { action: 'Evicted', reason: 'Evicted', note: `pod ${pod} evicted to take the update revision`, pod });
      if (blocked()) await resume();
    }
  }

  /** The status as last written by this helper while the cache has not caught up, else as read. */
  private latestStatus(view: Recommendation): Record<string, unknown> {
    const written = this.written.get(keyOf(view.recommendation.namespace, view.recommendation.name));
    return written && written.staleVersion === view.resourceVersion ? { ...view.status, ...written.status } : view.status;
  }

  /** Writes through the life cycle's writer; resolves whether the status now says what was asked. */
  private async writeStatus(view: Recommendation, status: StatusUpdate): Promise<boolean> {
    const { namespace, name } = view.recommendation;
    const key = keyOf(namespace, name);
    const written = this.written.get(key);
    const lagging = written && written.staleVersion === view.resourceVersion;
    const resourceVersion = lagging ? written.resourceVersion : view.resourceVersion;
    const current = this.latestStatus(view);
    const outcome = await writeStatus(
      this.options.port,
      {
        writer: 'helper',
        namespace,
        name,
        ...(resourceVersion !== undefined && { resourceVersion }),
        current,
        status: status as unknown as Record<string, unknown>,
        decorate: (next) => ({ conditions: withInPlaceCondition(current.conditions, next as unknown as StatusUpdate, view.generation, this.options.now()) }),
      },
      this.options.identity,
      this.options.now(),
    );
    switch (outcome.kind) {
      case 'written':
        this.written.set(key, { staleVersion: view.resourceVersion, status: { ...(lagging ? written.status : {}), ...outcome.status }, resourceVersion: outcome.resourceVersion });
        this.options.logger.info('status written', { recommendation: key, phase: status.phase, reason: status.reason });
        return true;
      case 'unchanged':
        return true;
      case 'not-owner':
        this.options.logger.debug('status left to its owner', { recommendation: key, stage: stageOf(view.status), why: outcome.why });
        return false;
      case 'conflict':
        this.options.logger.info('status changed since it was read; the next pass reads it again', { recommendation: key });
        this.written.delete(key);
        return false;
    }
  }

  private async emit(workload: KubeObject, event: EventNote): Promise<void> {
    try {
      await this.options.port.createEvent(workloadEvent(workload, event, this.options.identity, this.options.now()));
    } catch (error) {
      // An Event is a record for people; losing one must not stop the loop.
      this.options.logger.warn('event not recorded', { workload: workload.metadata.name, action: event.action, error: (error as Error).message });
    }
  }
}
