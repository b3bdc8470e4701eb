// Windows for people: in the window's own time zone with UTC beside it, with the window's end, and,
// where the text is made afresh on every run (plan table, job summary), how far off it is. PR
// bodies and commit statuses leave the relative part out: it would change them on every run.
import { DateTime } from 'luxon';
import type { Decision } from '../model/types.js';

const MINUTE_MS = 60_000;

function day(time: DateTime, withYear: boolean): string {
  return time.toFormat(withYear ? 'ccc d LLL yyyy' : 'ccc d LLL', { locale: 'en-GB' });
}

/** `4 d 17 h`, `3 h 5 min`, `12 min`; `under a minute` when closer. */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / MINUTE_MS);
  const [days, hours, rest] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return rest > 0 ? `${hours} h ${rest} min` : `${hours} h`;
  return minutes > 0 ? `${minutes} min` : 'under a minute';
}

/** `in 4 d 17 h`, or `now` once the time has come. */
export function relativeTime(iso: string, now: Date | string): string {
  const ms = Date.parse(iso) - new Date(now).getTime();
  return ms <= 0 ? 'now' : `in ${formatDuration(ms)}`;
}

export interface WindowText {
  start: string;
  /** RFC 3339; absent when only the opening is known (a status read back from the cluster). */
  end?: string;
  /** IANA zone; UTC when absent. */
  timeZone?: string;
}

/** `Tue 8 Dec 02:00–05:00 Europe/Berlin (01:00 UTC)`; with `now`, followed by `, in 4 d 17 h`. */
export function formatWindow(window: WindowText, now?: Date | string): string {
  const zone = window.timeZone ?? 'UTC';
  const start = DateTime.fromISO(window.start, { zone });
  const end = window.end === undefined ? undefined : DateTime.fromISO(window.end, { zone });
  const withYear = now !== undefined && start.year !== DateTime.fromJSDate(new Date(now), { zone }).year;
  const opening = `${day(start, withYear)} ${start.toFormat('HH:mm')}`;
  const until = end === undefined ? '' : end.hasSame(start, 'day') ? `–${end.toFormat('HH:mm')}` : ` – ${day(end, withYear)} ${end.toFormat('HH:mm')}`;
  const utc = start.toUTC();
  const beside = zone === 'UTC' || zone === 'Etc/UTC' ? '' : ` (${utc.hasSame(start.setZone('UTC', { keepLocalTime: true }), 'day') ? '' : `${day(utc, withYear)} `}${utc.toFormat('HH:mm')} UTC)`;
  const when = now === undefined ? '' : `, ${relativeTime(window.start, now)}`;
  return `${opening}${until} ${zone}${beside}${when}`;
}

/** A decision's next window for people, or null when it has none. */
export function describeNextWindow(decision: Pick<Decision, 'nextWindow' | 'nextWindowSpan'>, now?: Date | string): string | null {
  if (!decision.nextWindow) return null;
  return formatWindow({ start: decision.nextWindow, ...(decision.nextWindowSpan && { end: decision.nextWindowSpan.end, timeZone: decision.nextWindowSpan.timeZone }) }, now);
}
