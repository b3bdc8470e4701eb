// D1 with freezes (G6, Z1): the next window a deferred change may really merge in is the earliest
// instant at or after `now` at which a valid maintenance window is open and no freeze window is.
// An opening that a freeze swallows is no promise. The search is bounded (400 days, or to the end
// of the last one-off maintenance window), because two recurring lists may cover each other forever.
import { spanAtOrAfter, type CompiledWindow, type CompiledWindows } from './window.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far ahead kerf looks for a free window: a yearly schedule fits, with a month to spare. */
export const SEARCH_HORIZON_MS = 400 * DAY_MS;
/** Steps of the search: each skips at least one freeze or one opening. */
const MAX_STEPS = 10_000;

/** A stretch of a maintenance window with no freeze open in it. */
export interface FreeWindow {
  start: Date;
  /** When the maintenance window closes or a freeze opens, whichever comes first. */
  end: Date;
  /** The zone of the maintenance window open at `start` (`UTC` for a one-off window). */
  timeZone: string;
}

/** The end of the openings that cover `atMs` one after another; `atMs` itself when none covers it. */
function coveredUntil(windows: readonly CompiledWindow[], atMs: number, limitMs: number): number {
  let at = atMs;
  for (let step = 0; step < MAX_STEPS && at < limitMs; step++) {
    let end = at;
    for (const window of windows) {
      const span = spanAtOrAfter(window, at);
      if (span && span.start <= at && span.end > end) end = span.end;
    }
    if (end === at) return at;
    at = end;
  }
  return Math.max(at, limitMs);
}

/** The earliest maintenance opening at or after `atMs` (a window open at `atMs` counts from `atMs`). */
function firstOpening(windows: readonly CompiledWindow[], atMs: number): { at: number; window: CompiledWindow } | null {
  let first: { at: number; window: CompiledWindow } | null = null;
  for (const window of windows) {
    const span = spanAtOrAfter(window, atMs);
    if (!span) continue;
    const at = Math.max(span.start, atMs);
    if (!first || at < first.at) first = { at, window };
  }
  return first;
}

/**
 * The earliest free stretch of the maintenance windows at or after `now`; null when none lies within
 * the horizon. An invalid freeze window counts as open (Z3), so it leaves no free stretch at all.
 */
export function nextFreeWindow(maintenance: CompiledWindows, freezes: readonly CompiledWindows[], now: Date): FreeWindow | null {
  if (freezes.some((list) => list.errors.length > 0)) return null;
  const frozen = freezes.flatMap((list) => list.windows);
  const nowMs = now.getTime();
  const oneOffEnds = maintenance.windows.map((window) => (window.kind === 'one-off' ? window.end.getTime() : 0));
  const limitMs = Math.max(nowMs + SEARCH_HORIZON_MS, ...oneOffEnds);
  let at = nowMs;
  for (let step = 0; step < MAX_STEPS; step++) {
    const first = firstOpening(maintenance.windows, at);
    if (!first || first.at >= limitMs) return null;
    at = first.at;
    const thawed = coveredUntil(frozen, at, limitMs);
    if (thawed === at) {
      const freezeStarts = frozen.map((window) => spanAtOrAfter(window, at)?.start ?? Infinity);
      const end = Math.min(coveredUntil(maintenance.windows, at, limitMs), ...freezeStarts);
      const timeZone = first.window.kind === 'recurring' ? first.window.timeZone : 'UTC';
      return { start: new Date(at), end: new Date(end), timeZone };
    }
    at = thawed;
  }
  return null;
}

/**
 * Indexes of the valid maintenance windows that open within the horizon but always inside a
 * freeze, so no change ever merges in them. Invalid freeze lists are reported as errors of their own.
 */
export function alwaysFrozenWindows(maintenance: CompiledWindows, freezes: readonly CompiledWindows[], now: Date): number[] {
  if (freezes.every((list) => list.windows.length === 0) || freezes.some((list) => list.errors.length > 0)) return [];
  return maintenance.windows
    .filter((window) => spanAtOrAfter(window, now.getTime()) !== null)
    .filter((window) => nextFreeWindow({ ...maintenance, windows: [window] }, freezes, now) === null)
    .map((window) => window.index);
}
