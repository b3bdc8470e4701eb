import { describe, expect, it } from 'vitest';
import { formatDuration, formatWindow } from '../../src/plan/window-text.js';

describe('formatWindow', () => {
  it.each<[string, Parameters<typeof formatWindow>[0], string | undefined, string]>([
    ['D1: in the policy time zone with UTC beside it, the end and how far off', { start: '2026-12-08T01:00:00.000Z', end: '2026-12-08T04:00:00.000Z', timeZone: 'Europe/Berlin' }, '2026-12-03T08:00:00Z', 'Tue 8 Dec 02:00–05:00 Europe/Berlin (01:00 UTC), in 4 d 17 h'],
    ['D1: a UTC window says UTC once', { start: '2026-12-05T00:00:00.000Z', end: '2026-12-05T04:00:00.000Z' }, '2026-12-02T10:00:00Z', 'Sat 5 Dec 00:00–04:00 UTC, in 2 d 14 h'],
    ['D1: a window over midnight names both days; UTC on another day names its day', { start: '2026-12-05T23:30:00.000Z', end: '2026-12-06T01:00:00.000Z', timeZone: 'Asia/Tokyo' }, undefined, 'Sun 6 Dec 08:30–10:00 Asia/Tokyo (Sat 5 Dec 23:30 UTC)'],
    ['D1: another year is named; an unknown end is left out', { start: '2027-01-05T00:30:00.000Z', timeZone: 'America/New_York' }, '2026-12-02T10:00:00Z', 'Mon 4 Jan 2027 19:30 America/New_York (Tue 5 Jan 2027 00:30 UTC), in 33 d 14 h'],
    ['D2: a window that has come is now', { start: '2026-12-02T10:00:00.000Z' }, '2026-12-02T10:00:00Z', 'Wed 2 Dec 10:00 UTC, now'],
  ])('%s', (_name, window, now, expected) => {
    expect(formatWindow(window, now)).toBe(expected);
  });

  it.each([
    [59_000, 'under a minute'],
    [12 * 60_000, '12 min'],
    [3 * 3600_000, '3 h'],
    [3 * 3600_000 + 5 * 60_000, '3 h 5 min'],
    [2 * 86_400_000, '2 d'],
  ])('formatDuration(%d) is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
