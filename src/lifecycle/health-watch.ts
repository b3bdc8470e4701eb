// The one health watch of an Applied change, in place (the helper) or by rollout (the reconciler):
// when it starts and ends, and what a breach is. Pure over the status, the pods and `now`; what a
// breach then does (resize back in place, a revert PR) is the owner's.
import type { RightsizingPolicy } from '../model/types.js';
import { DEFAULT_HEALTH_WATCH } from '../model/validate.js';
import { parseDuration } from '../rules/duration.js';
import { healthBreach, readHealth, watchOver, type Breach, type HealthStatus } from '../cluster/health.js';
import type { Pod } from '../cluster/objects.js';

/** The watch an apply at `since` starts: the policy's healthWatch.duration (default 30m). */
export function startWatch(policy: RightsizingPolicy | undefined, since: Date): HealthStatus {
  return { state: 'Watching', until: new Date(since.getTime() + parseDuration(policy?.apply.healthWatch?.duration ?? DEFAULT_HEALTH_WATCH)).toISOString() };
}

/**
 * The breach of a change under watch, or why its pods must not be disturbed (OD2): a rolled-back
 * change, or a breach seen since it was applied while the watch runs. Undefined when all is well.
 */
export function watchedBreach(status: Record<string, unknown>, pods: readonly Pod[], now: Date): Breach | 'rolled-back' | undefined {
  if (status.phase === 'RolledBack') return 'rolled-back';
  const health = readHealth(status);
  if (status.phase !== 'Applied' || health?.state !== 'Watching' || watchOver(health.until, now) || typeof status.appliedAt !== 'string') return undefined;
  return healthBreach(pods, new Date(status.appliedAt), now);
}

export type HealthStep =
  /** Applied without a watch yet: start one. */
  | { kind: 'start'; health: HealthStatus }
  | { kind: 'healthy'; health: HealthStatus }
  | { kind: 'breached'; breach: Breach; health: HealthStatus };

/** What this pass does to the watch of an Applied status; undefined while it runs quietly or is over. */
export function healthStep(status: Record<string, unknown>, pods: readonly Pod[], policy: RightsizingPolicy | undefined, now: Date): HealthStep | undefined {
  if (status.phase !== 'Applied') return undefined;
  const health = readHealth(status);
  if (!health) return { kind: 'start', health: startWatch(policy, typeof status.appliedAt === 'string' ? new Date(status.appliedAt) : now) };
  if (health.state !== 'Watching') return undefined;
  if (watchOver(health.until, now)) return { kind: 'healthy', health: { ...health, state: 'Healthy' } };
  const breach = watchedBreach(status, pods, now);
  if (breach === undefined || breach === 'rolled-back') return undefined;
  return { kind: 'breached', breach, health: { ...health, state: 'Breached', breach: breach.message } };
}
