// Leader election through a coordination.k8s.io/v1 Lease, so two helper replicas never act twice.
// Like client-go, expiry is judged by this replica's own clock from when it first saw the current
// record, not by the holder's renewTime, so clock skew between nodes cannot elect two leaders.
import { ClusterError } from '../cluster/cluster-port.js';
import type { ClusterPort, Lease } from '../cluster/cluster-port.js';
import type { Logger } from '../util/logger.js';

export type LeaseStep =
  | { action: 'create' | 'renew' | 'acquire'; lease: Lease }
  | { action: 'wait'; holder: string };

/**
 * What to do with the lease as read: create it, renew it (ours), take it over (no holder, or the
 * holder let it lapse: unchanged for its duration since `observedAt`), or wait.
 */
export function leaseStep(input: {
  lease: Lease | undefined;
  namespace: string;
  name: string;
  identity: string;
  durationSeconds: number;
  now: Date;
  /** When this replica first saw the lease's current record. */
  observedAt: Date;
}): LeaseStep {
  const { lease, identity, durationSeconds, now } = input;
  if (!lease) {
    return {
      action: 'create',
      lease: { namespace: input.namespace, name: input.name, holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
    };
  }
  if (lease.holderIdentity === identity) {
    return { action: 'renew', lease: { ...lease, leaseDurationSeconds: durationSeconds, renewTime: now } };
  }
  const holder = lease.holderIdentity ?? '';
  const expiresAt = input.observedAt.getTime() + (lease.leaseDurationSeconds ?? durationSeconds) * 1000;
  if (holder !== '' && now.getTime() < expiresAt) return { action: 'wait', holder };
  return {
    action: 'acquire',
    lease: {
      ...lease,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: (lease.leaseTransitions ?? 0) + 1,
    },
  };
}

export interface LeaderElectorOptions {
  port: ClusterPort;
  namespace: string;
  name: string;
  identity: string;
  /** leaseDurationSeconds; default 15. */
  durationSeconds?: number;
  /** How often to renew or retry; default a third of the duration. */
  retryPeriodMs?: number;
  now: () => Date;
  logger: Logger;
  /** Told when this replica starts or stops leading. */
  onChange?: (leads: boolean) => void;
}

export class LeaderElector {
  private lastRenewal: number | undefined;
  private observed: { record: string; at: Date } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly durationSeconds: number;

  constructor(private readonly options: LeaderElectorOptions) {
    this.durationSeconds = options.durationSeconds ?? 15;
  }

  /** Leader while the last renewal is younger than two thirds of the lease, well before others may take it. */
  isLeader(): boolean {
    if (this.lastRenewal === undefined) return false;
    return this.options.now().getTime() - this.lastRenewal < (this.durationSeconds * 1000 * 2) / 3;
  }

  /** One read-and-write round; answers whether this replica leads afterwards. */
  async tryOnce(): Promise<boolean> {
    const { port, namespace, name, identity, now, logger } = this.options;
    const wasLeader = this.isLeader();
    try {
      const lease = await port.readLease(namespace, name);
      const at = now();
      const record = lease ? `${lease.holderIdentity}|${lease.renewTime?.getTime()}|${lease.resourceVersion}` : '';
      if (this.observed?.record !== record) this.observed = { record, at };
      const step = leaseStep({ lease, namespace, name, identity, durationSeconds: this.durationSeconds, now: at, observedAt: this.observed.at });
      if (step.action === 'wait') {
        this.lastRenewal = undefined;
      } else {
        const written = step.action === 'create' ? await port.createLease(step.lease) : await port.replaceLease(step.lease);
        this.lastRenewal = at.getTime();
        this.observed = { record: `${written.holderIdentity}|${written.renewTime?.getTime()}|${written.resourceVersion}`, at };
      }
    } catch (error) {
      // 409: another replica wrote first, so it leads; anything else: keep what we had until it lapses.
      if (error instanceof ClusterError && (error.code === 'Conflict' || error.code === 'AlreadyExists')) this.lastRenewal = undefined;
      else logger.warn('lease round failed', { lease: `${namespace}/${name}`, error: (error as Error).message });
    }
    const leads = this.isLeader();
    if (leads !== wasLeader) {
      logger.info(leads ? 'became leader' : 'lost leadership', { lease: `${namespace}/${name}`, identity });
      this.options.onChange?.(leads);
    }
    return leads;
  }

  start(): void {
    const period = this.options.retryPeriodMs ?? (this.durationSeconds * 1000) / 3;
    const loop = () => {
      this.running = this.tryOnce().then(() => {
        if (this.timer !== undefined) this.timer = setTimeout(loop, period);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stops renewing and, if leading, hands the lease back so another replica need not wait it out. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    if (!this.isLeader()) return;
    this.lastRenewal = undefined;
    const { port, namespace, name, identity, logger } = this.options;
    try {
      const lease = await port.readLease(namespace, name);
      if (lease?.holderIdentity === identity) await port.replaceLease({ ...lease, holderIdentity: '', leaseDurationSeconds: 1 });
    } catch (error) {
      logger.warn('lease release failed', { lease: `${namespace}/${name}`, error: (error as Error).message });
    }
  }
}
