// Wall-clock time in an IANA zone, with the DST rules of DESIGN.md ("Durations and time").
// A wall time is written as milliseconds as if the local date and time were UTC, so that cron
// matching can run on wall times in UTC, where no DST quirk exists, and only this file decides
// which instant a wall time means.
import { IANAZone } from 'luxon';

const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

/** Offset from UTC at an instant, in milliseconds (luxon gives minutes, possibly fractional for LMT). */
function offsetMs(zone: IANAZone, instantMs: number): number {
  return Math.round(zone.offset(instantMs) * MINUTE_MS);
}

/** The local date and time of an instant, as wall-time milliseconds. */
export function toWallTime(zone: IANAZone, instantMs: number): number {
  return instantMs + offsetMs(zone, instantMs);
}

/**
 * The instant a wall time stands for: a time repeated by a fall-back change means its first
 * occurrence (so it fires once); a time a spring-forward change skips means the first instant
 * after the gap.
 */
export function fromWallTime(zone: IANAZone, wallMs: number): number {
  // Real zones change offset at most once within a day, so the offsets a day either side are the
  // only ones an instant with this wall time can have.
  const before = offsetMs(zone, wallMs - DAY_MS);
  const after = offsetMs(zone, wallMs + DAY_MS);
  const early = wallMs - Math.max(before, after);
  const late = wallMs - Math.min(before, after);
  if (toWallTime(zone, early) === wallMs) return early;
  if (toWallTime(zone, late) === wallMs) return late;
  return transitionBetween(zone, wallMs - after, wallMs - before);
}

/** First instant in (lo, hi] whose offset differs from the offset at lo. */
function transitionBetween(zone: IANAZone, lo: number, hi: number): number {
  const initial = offsetMs(zone, lo);
  let low = lo;
  let high = hi;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (offsetMs(zone, mid) === initial) low = mid;
    else high = mid;
  }
  return high;
}

/**
 * How far the wall clock has been turned back within the last two days, in milliseconds (0 when
 * it has not): wall times up to `toWallTime(now) + rewind` may already have occurred.
 */
export function recentRewindMs(zone: IANAZone, instantMs: number): number {
  return Math.max(0, offsetMs(zone, instantMs - 2 * DAY_MS) - offsetMs(zone, instantMs));
}
