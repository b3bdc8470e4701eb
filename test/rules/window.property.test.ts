import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/model/types.js';
import { compileWindows, evaluateWindows, isOpen, nextOpening, type CompiledWindow } from '../../src/rules/window.js';
import { parseRfc3339 } from '../../src/rules/window-timestamp.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A cron field as text plus the values it allows, so the reference matches without cron-parser. */
interface Field {
  text: string;
  values: ReadonlySet<number>;
}
interface Schedule {
  minute: Field;
  hour: Field;
  dayOfMonth: Field;
  month: Field;
  dayOfWeek: Field;
}

const span = (min: number, max: number): number[] => Array.from({ length: max - min + 1 }, (_, i) => min + i);
const star: Field = { text: '*', values: new Set() };
const list = (min: number, max: number): fc.Arbitrary<Field> =>
  fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 3 }).map((vs) => ({ text: vs.join(','), values: new Set(vs) }));
const stepped = (min: number, max: number, steps: number[]): fc.Arbitrary<Field> =>
  fc.constantFrom(...steps).map((k) => ({ text: `*/${k}`, values: new Set(span(min, max).filter((v) => (v - min) % k === 0)) }));
const timeField = (min: number, max: number, steps: number[]): fc.Arbitrary<Field> =>
  fc.oneof(fc.constant(star), list(min, max), stepped(min, max, steps));
// Day fields stay `*` or a short list: cron ORs day-of-month and day-of-week only when both are restricted.
const dayField = (min: number, max: number): fc.Arbitrary<Field> =>
  fc.oneof({ arbitrary: fc.constant(star), weight: 4 }, { arbitrary: list(min, max), weight: 1 });

const scheduleArb: fc.Arbitrary<Schedule> = fc.record({
  minute: timeField(0, 59, [5, 15, 30]),
  hour: timeField(0, 23, [2, 3, 6]),
  // Days 29–31 would make some month lists impossible, which cron-parser rightly rejects.
  dayOfMonth: dayField(1, 28),
  month: fc.oneof({ arbitrary: fc.constant(star), weight: 4 }, { arbitrary: list(1, 12), weight: 1 }),
  dayOfWeek: dayField(0, 6),
});

const cronText = (s: Schedule): string => [s.minute, s.hour, s.dayOfMonth, s.month, s.dayOfWeek].map((f) => f.text).join(' ');

/** Whether a wall time (local date and time written as UTC ms) matches, by cron's rules. */
function matches(s: Schedule, wallMs: number): boolean {
  const d = new Date(wallMs);
  const allows = (field: Field, value: number): boolean => field.text === '*' || field.values.has(value);
  if (!allows(s.minute, d.getUTCMinutes()) || !allows(s.hour, d.getUTCHours()) || !allows(s.month, d.getUTCMonth() + 1)) {
    return false;
  }
  const byDate = allows(s.dayOfMonth, d.getUTCDate());
  const byWeekday = allows(s.dayOfWeek, d.getUTCDay());
  const [dateStar, weekdayStar] = [s.dayOfMonth.text === '*', s.dayOfWeek.text === '*'];
  if (dateStar || weekdayStar) return byDate && byWeekday;
  return byDate || byWeekday;
}

/**
 * Openings minute by minute: an instant opens the window when a matching wall time was reached
 * there for the first time, which covers the wall times a spring-forward gap skips (they fire at
 * the instant after it) and those a fall-back repeats (they fire only the first time).
 */
function referenceOpenings(s: Schedule, zone: string, from: number, to: number): number[] {
  const wallOf = (t: number): number => {
    const dt = DateTime.fromMillis(t, { zone });
    return Date.UTC(dt.year, dt.month - 1, dt.day, dt.hour, dt.minute);
  };
  const openings: number[] = [];
  let latestWall = wallOf(from - MINUTE);
  for (let t = from; t <= to; t += MINUTE) {
    const wall = wallOf(t);
    for (let w = latestWall + MINUTE; w <= wall; w += MINUTE) {
      if (matches(s, w)) {
        openings.push(t);
        break;
      }
    }
    latestWall = Math.max(latestWall, wall);
  }
  return openings;
}

// Zones with DST (one with a 30-minute shift), and their 2026 changes, so `now` often lands near one.
const TRANSITIONS: Record<string, string[]> = {
  UTC: [],
  'Asia/Kolkata': [],
  'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  'America/St_Johns': ['2026-03-08T05:30:00Z', '2026-11-01T04:30:00Z'],
  'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
};
const zoneArb = fc.constantFrom(...Object.keys(TRANSITIONS));
const anyInstant = fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') });
const nearTransition = (zone: string): fc.Arbitrary<number> => {
  const transitions = TRANSITIONS[zone] ?? [];
  if (transitions.length === 0) return anyInstant;
  return fc.oneof(
    anyInstant,
    fc.tuple(fc.constantFrom(...transitions), fc.integer({ min: -3 * HOUR, max: HOUR })).map(([iso, delta]) => Date.parse(iso) + delta),
  );
};
// Mostly short windows (the reference scans every minute of a window's length), some spanning days.
const durationMinutesArb = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 180 }), weight: 3 },
  { arbitrary: fc.integer({ min: 181, max: 72 * 60 }), weight: 1 },
);

function compileValid(specs: WindowSpec[]): CompiledWindow[] {
  const { windows, errors } = compileWindows(specs, 'maintenanceWindows');
  expect(errors.map((e) => e.message)).toEqual([]);
  return [...windows];
}

describe('window properties', () => {
  // A schedule firing at a wall time near a DST change (skipped, repeated or beside it), checked
  // from shortly before: random schedules rarely hit the one hour that matters.
  const dstCaseArb = fc
    .constantFrom(...Object.entries(TRANSITIONS).flatMap(([zone, list]) => list.map((iso) => ({ zone, at: Date.parse(iso) }))))
    .chain(({ zone, at }) => {
      const before = DateTime.fromMillis(at - MINUTE, { zone });
      // Wall-clock arithmetic (luxon's plus() on minutes is elapsed time, which never enters a gap).
      const wallBefore = Date.UTC(before.year, before.month - 1, before.day, before.hour, before.minute);
      return fc.record({
        zone: fc.constant(zone),
        schedule: fc.integer({ min: -90, max: 90 }).map((k): Schedule => {
          const wall = new Date(wallBefore + k * MINUTE);
          const field = (value: number): Field => ({ text: String(value), values: new Set([value]) });
          return { minute: field(wall.getUTCMinutes()), hour: field(wall.getUTCHours()), dayOfMonth: star, month: star, dayOfWeek: star };
        }),
        minutes: durationMinutesArb,
        now: fc.integer({ min: at - 150 * MINUTE, max: at + 30 * MINUTE }),
        withinMinute: fc.integer({ min: 0, max: MINUTE - 1 }),
      });
    });

  it('W1: isOpen and nextOpening agree with a minute-by-minute reference, DST included', () => {
    const anyCaseArb = zoneArb.chain((zone) =>
      fc.record({
        zone: fc.constant(zone),
        schedule: scheduleArb,
        minutes: durationMinutesArb,
        now: nearTransition(zone),
        withinMinute: fc.integer({ min: 0, max: MINUTE - 1 }),
      }),
    );
    const caseArb = fc.oneof(anyCaseArb, dstCaseArb);
    fc.assert(
      fc.property(caseArb, ({ zone, schedule, minutes, now, withinMinute }) => {
        const [window] = compileValid([{ schedule: cronText(schedule), duration: `${minutes}m`, timeZone: zone }]);
        if (!window) throw new Error('no window compiled');
        const from = Math.floor(now / MINUTE) * MINUTE;
        const to = from + 3 * HOUR;
        // Early enough that any opening still open at `from` is seen, plus room for a DST change.
        const openings = referenceOpenings(schedule, zone, from - minutes * MINUTE - 3 * HOUR, to);
        for (let t = from; t < to; t += MINUTE) {
          const open = openings.some((o) => o <= t && t < o + minutes * MINUTE);
          const at = new Date(t + withinMinute);
          expect(isOpen(window, at), `open at ${at.toISOString()}`).toBe(open);
          const next = openings.find((o) => o > t + withinMinute);
          const actual = nextOpening(window, at)?.getTime();
          if (next === undefined) expect(actual).toBeGreaterThan(to);
          else expect(actual, `next after ${at.toISOString()}`).toBe(next);
        }
      }),
      { numRuns: 30 },
    );
  }, 30_000);

  const oneOffArb = fc
    .record({ start: anyInstant, length: fc.integer({ min: 1, max: 72 * HOUR }), offset: fc.integer({ min: -14 * 60, max: 14 * 60 }) })
    .map(({ start, length, offset }): WindowSpec => ({ start: rfc3339(start, offset), end: rfc3339(start + length, 0) }));
  const recurringArb = fc
    .record({ schedule: scheduleArb, minutes: durationMinutesArb, zone: zoneArb })
    .map(({ schedule, minutes, zone }): WindowSpec => ({ schedule: cronText(schedule), duration: `${minutes}m`, timeZone: zone }));
  const listArb = fc.array(fc.oneof(recurringArb, oneOffArb), { minLength: 1, maxLength: 4 });

  it('W1: at nextWindow a window is open, and no window closed at now opens before it', () => {
    fc.assert(
      fc.property(listArb, anyInstant, fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 8 }), (specs, nowMs, fractions) => {
        const compiled = compileWindows(specs, 'maintenanceWindows');
        const windows = compileValid(specs);
        const now = new Date(nowMs);
        const { open, nextWindow } = evaluateWindows(compiled, 'maintenance', now);
        expect(open).toBe(windows.some((w) => isOpen(w, now)));
        if (nextWindow === null) {
          expect(windows.every((w) => w.kind === 'one-off' && w.start.getTime() <= nowMs)).toBe(true);
          return;
        }
        expect(nextWindow.getTime()).toBeGreaterThan(nowMs);
        expect(windows.some((w) => isOpen(w, nextWindow))).toBe(true);
        const closed = windows.filter((w) => !isOpen(w, now));
        for (const fraction of fractions) {
          const t = new Date(nowMs + 1 + Math.floor(fraction * (nextWindow.getTime() - nowMs - 1)));
          expect(closed.filter((w) => isOpen(w, t)).map((w) => w.index), `at ${t.toISOString()}`).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('W3/Z3: an invalid window leaves maintenance as if it were absent and always freezes', () => {
    const invalidArb = fc.constantFrom<WindowSpec>(
      { schedule: '0 0 2 * * *', duration: '1h' },
      { schedule: '0 2 * * *', duration: '3d' },
      { schedule: '0 2 * * *', duration: '1h', timeZone: 'Nowhere/Land' },
      { start: '2026-12-02T00:00:00Z', end: '2026-12-01T00:00:00Z' },
    );
    fc.assert(
      fc.property(listArb, invalidArb, fc.nat({ max: 4 }), anyInstant, (specs, invalid, position, nowMs) => {
        const now = new Date(nowMs);
        const mixed = [...specs.slice(0, position), invalid, ...specs.slice(position)];
        const withInvalid = evaluateWindows(compileWindows(mixed, 'maintenanceWindows'), 'maintenance', now);
        const without = evaluateWindows(compileWindows(specs, 'maintenanceWindows'), 'maintenance', now);
        expect([withInvalid.open, withInvalid.nextWindow]).toEqual([without.open, without.nextWindow]);
        expect(evaluateWindows(compileWindows(mixed, 'freezeWindows'), 'freeze', now).open).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('W1: an RFC 3339 time in any offset reads back as its instant', () => {
    fc.assert(
      fc.property(anyInstant, fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (ms, offset) => {
        expect(parseRfc3339(rfc3339(ms, offset))?.getTime()).toBe(ms);
      }),
      { numRuns: 200 },
    );
  });
});

/** Writes an instant as RFC 3339 local time at an offset (minutes east of UTC). */
function rfc3339(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * MINUTE).toISOString().slice(0, 23);
  const abs = Math.abs(offsetMinutes);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${local}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
