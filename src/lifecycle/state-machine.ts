// The recommendation status life cycle (README "Status"): which writer owns which stage, which
// phase it may move to from where, and what each transition clears of the stage before. Pure;
// the status writer consults it before every write, the helper and the reconciler alike.
import { isObject } from '../util/json.js';

export type Writer = 'helper' | 'reconciler';

/** The helper's stage of an in-place change. */
const IN_PLACE_PHASES: ReadonlySet<unknown> = new Set(['Resizing', 'Applied', 'Blocked', 'RolledBack']);

/** A StatefulSet's OnDelete replacement refused by a PodDisruptionBudget: the helper evicts, so the helper records it (OD3). */
export function isEvictionBlock(status: Record<string, unknown>): boolean {
  return status.phase === 'Blocked' && status.reason === 'PodDisruptionBudget';
}

/**
 * Who owns the stage a status is in; undefined before any stage (either may begin). In-place
 * changes are the helper's; everything rollout-bound (strategy rollout or deferred, Pending on)
 * is the reconciler's, but for the helper's record of a refused OnDelete eviction.
 */
export function ownerOf(status: Record<string, unknown>): Writer | undefined {
  if (typeof status.phase !== 'string') return undefined;
  if (isEvictionBlock(status)) return 'helper';
  return status.strategy === 'in-place' && IN_PLACE_PHASES.has(status.phase) ? 'helper' : 'reconciler';
}

export type Verdict = { allowed: true } | { allowed: false; why: string };

const refused = (why: string): Verdict => ({ allowed: false, why });
const ALLOWED: Verdict = { allowed: true };

/**
 * Whether `writer` may move `current` to `next`. The helper takes an in-place change from any
 * stage (it only asks when the configured strategy is in-place and no fallback sticks), hands a
 * change to the reconciler as Pending only from its own stage, and records or lifts an eviction
 * block. The reconciler writes its own stages, lifts an eviction block once the pods run the
 * values (Applied), and takes over an in-place stage only when the configured strategy left in-place.
 */
export function mayWrite(writer: Writer, current: Record<string, unknown>, next: Record<string, unknown>): Verdict {
  const owner = ownerOf(current);
  const phase = next.phase ?? current.phase;
  const strategy = next.strategy ?? current.strategy;
  if (writer === 'helper') {
    if (strategy === 'in-place') return ALLOWED;
    if (owner === undefined || owner === 'helper') {
      if (phase === 'Pending' || isEvictionBlock({ ...current, ...next }) || (phase === 'Resizing' && isEvictionBlock(current))) return ALLOWED;
    }
    if (phase === 'Blocked' && next.reason === 'PodDisruptionBudget' && (current.phase === 'Resizing' || current.phase === 'Applied')) return ALLOWED;
    return refused(`${String(current.phase)} (${String(current.strategy)}) is the reconciler's; the helper may not write ${String(phase)} (${String(strategy)})`);
  }
  if (owner !== 'helper') return ALLOWED;
  if (isEvictionBlock(current) && phase === 'Applied') return ALLOWED;
  if (next.configuredStrategy !== undefined && next.configuredStrategy !== 'in-place' && !isEvictionBlock(current)) return ALLOWED;
  return refused(`${String(current.phase)} (${String(current.strategy)}) is the helper's; the reconciler may not write ${String(phase)}`);
}

type Field = 'appliedAt' | 'health' | 'pullRequest' | 'rollbackPullRequest' | 'message';

/**
 * What a transition to `phase` clears of the stage before, unless the new status sets it: an
 * apply's appliedAt and health watch outlive no later stage, a proposal's PR ends when the change
 * goes in place or back to Pending, and a message belongs to the status it was written with.
 */
export function clearedBy(phase: unknown, strategy: unknown): Field[] {
  switch (phase) {
    case 'Applied':
      return ['message'];
    case 'RolledBack':
      return ['message'];
    case 'Pending':
      return ['appliedAt', 'health', 'pullRequest', 'rollbackPullRequest', 'message'];
    case 'Resizing':
    case 'Blocked':
      return strategy === 'in-place' ? ['appliedAt', 'health', 'pullRequest', 'rollbackPullRequest', 'message'] : ['appliedAt', 'health', 'rollbackPullRequest', 'message'];
    default:
      return ['appliedAt', 'health', 'rollbackPullRequest', 'message'];
  }
}

/** `next` with what its transition clears set to null; only a phase change clears. */
export function withCleared(current: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const phase = next.phase ?? current.phase;
  const moved = 'phase' in next && (next.phase !== current.phase || ('strategy' in next && next.strategy !== current.strategy));
  if (!moved) return next;
  const cleared = clearedBy(phase, next.strategy ?? current.strategy).filter((field) => !(field in next) && current[field] !== undefined && current[field] !== null);
  return { ...next, ...Object.fromEntries(cleared.map((field) => [field, null])) };
}

/** The phase and strategy of a status as read, for logs. */
export function stageOf(status: unknown): string {
  const s = isObject(status) ? status : {};
  return `${String(s.phase ?? 'none')}/${String(s.strategy ?? 'none')}`;
}
