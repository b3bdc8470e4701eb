import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/model/types.js';
import { compileWindows, isOpen } from '../../src/rules/window.js';
import { alwaysFrozenWindows, nextFreeWindow } from '../../src/rules/window-free.js';

// Wednesday 2026-12-02 10:00 UTC.
const NOW = new Date('2026-12-02T10:00:00Z');
const maintenance = (...specs: WindowSpec[]) => compileWindows(specs, 'maintenanceWindows');
const freeze = (...specs: WindowSpec[]) => compileWindows(specs, 'freezeWindows');

const saturdayNight: WindowSpec = { schedule: '0 0 * * 6', duration: '4h' };
const tuesdayBerlin: WindowSpec = { schedule: '0 2 * * 2', duration: '3h', timeZone: 'Europe/Berlin' };
const weekend: WindowSpec = { schedule: '0 0 * * 6', duration: '48h' };
const firstHourOfSaturday: WindowSpec = { schedule: '0 0 * * 6', duration: '1h' };
const thisSaturday: WindowSpec = { start: '2026-12-05T00:00:00Z', end: '2026-12-06T00:00:00Z' };

type Row = [string, WindowSpec[], WindowSpec[][], { start: string; end: string; timeZone: string } | null];

describe('nextFreeWindow', () => {
  it.each<Row>([
    ['D1: without freezes the next window is the next opening', [saturdayNight], [], { start: '2026-12-05T00:00:00.000Z', end: '2026-12-05T04:00:00.000Z', timeZone: 'UTC' }],
    ['D1: the window is shown in its own time zone', [tuesdayBerlin], [], { start: '2026-12-08T01:00:00.000Z', end: '2026-12-08T04:00:00.000Z', timeZone: 'Europe/Berlin' }],
    ['Z1: a weekend freeze that always covers the window leaves no window to promise', [saturdayNight], [[weekend]], null],
    ['Z1: an opening a freeze swallows is skipped for the next free one', [saturdayNight, tuesdayBerlin], [[weekend]], { start: '2026-12-08T01:00:00.000Z', end: '2026-12-08T04:00:00.000Z', timeZone: 'Europe/Berlin' }],
    ['Z1: a freeze that ends inside the window frees the rest of it', [saturdayNight], [[firstHourOfSaturday]], { start: '2026-12-05T01:00:00.000Z', end: '2026-12-05T04:00:00.000Z', timeZone: 'UTC' }],
    ['Z1: a freeze that opens inside the window ends the free stretch', [saturdayNight], [[{ start: '2026-12-05T02:00:00Z', end: '2026-12-05T03:00:00Z' }]], { start: '2026-12-05T00:00:00.000Z', end: '2026-12-05T02:00:00.000Z', timeZone: 'UTC' }],
    ['Z1: a one-off freeze swallows one opening only', [saturdayNight], [[thisSaturday]], { start: '2026-12-12T00:00:00.000Z', end: '2026-12-12T04:00:00.000Z', timeZone: 'UTC' }],
    ['Z4: the chart freeze counts like the policy freeze', [saturdayNight], [[], [weekend]], null],
    ['Z1: freezes of two lists that chain leave no gap', [saturdayNight], [[{ start: '2026-12-04T00:00:00Z', end: '2026-12-05T02:00:00Z' }], [{ start: '2026-12-05T02:00:00Z', end: '2026-12-13T00:00:00Z' }]], { start: '2026-12-19T00:00:00.000Z', end: '2026-12-19T04:00:00.000Z', timeZone: 'UTC' }],
    ['Z3: an invalid freeze window counts as open, so no window is free', [saturdayNight], [[{ schedule: '0 0 * *', duration: '1h' }]], null],
    ['D3: no maintenance window, no next window', [], [], null],
    ['D1: a one-off window in the past is no next window', [{ start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' }], [], null],
  ])('%s', (_name, windows, freezes, expected) => {
    const free = nextFreeWindow(maintenance(...windows), freezes.map((list) => freeze(...list)), NOW);
    expect(free && { start: free.start.toISOString(), end: free.end.toISOString(), timeZone: free.timeZone }).toEqual(expected);
  });

  it('D1: the search is bounded: an hourly window under a freeze of every day ends with none', () => {
    const started = Date.now();
    expect(nextFreeWindow(maintenance({ schedule: '*/5 * * * *', duration: '1m' }), [freeze({ schedule: '0 0 * * *', duration: '24h' })], NOW)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('alwaysFrozenWindows', () => {
  it.each<[string, WindowSpec[], WindowSpec[][], number[]]>([
    ['Z1: a window the weekend freeze always covers is named', [tuesdayBerlin, saturdayNight], [[weekend]], [1]],
    ['Z1: a window a freeze covers once is not', [saturdayNight], [[thisSaturday]], []],
    ['Z1: a window a freeze covers partly is not', [saturdayNight], [[firstHourOfSaturday]], []],
    ['W3: no freezes, nothing covered', [saturdayNight], [], []],
  ])('%s', (_name, windows, freezes, expected) => {
    expect(alwaysFrozenWindows(maintenance(...windows), freezes.map((list) => freeze(...list)), NOW)).toEqual(expected);
  });
});

describe('nextFreeWindow, as properties', () => {
  const zone = fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata');
  const weekly = fc
    .record({ minute: fc.integer({ min: 0, max: 59 }), hour: fc.integer({ min: 0, max: 23 }), day: fc.integer({ min: 0, max: 6 }), hours: fc.integer({ min: 1, max: 80 }), timeZone: zone })
    .map(({ minute, hour, day, hours, timeZone }): WindowSpec => ({ schedule: `${minute} ${hour} * * ${day}`, duration: `${hours}h`, timeZone }));
  const oneOff = fc.record({ startHours: fc.integer({ min: -48, max: 24 * 30 }), hours: fc.integer({ min: 1, max: 24 * 10 }) }).map(({ startHours, hours }): WindowSpec => ({
    start: new Date(NOW.getTime() + startHours * 3600_000).toISOString(),
    end: new Date(NOW.getTime() + (startHours + hours) * 3600_000).toISOString(),
  }));
  const lists = fc.record({
    windows: fc.array(fc.oneof(weekly, oneOff), { minLength: 1, maxLength: 3 }),
    freezes: fc.array(fc.oneof(weekly, oneOff), { maxLength: 3 }),
    samples: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: 8, maxLength: 16 }),
  });

  it('D1 Z1: at the promised start a window is open and no freeze is; no moment before it is free; none at all means none within 60 days', () => {
    fc.assert(
      fc.property(lists, ({ windows, freezes, samples }) => {
        const [m, f] = [maintenance(...windows), freeze(...freezes)];
        const free = (at: number) => m.windows.some((w) => isOpen(w, new Date(at))) && !f.windows.some((w) => isOpen(w, new Date(at)));
        const result = nextFreeWindow(m, [f], NOW);
        const until = result ? result.start.getTime() : NOW.getTime() + 60 * 24 * 3600_000;
        for (const fraction of samples) {
          const at = NOW.getTime() + Math.floor(fraction * (until - NOW.getTime()));
          if (at < until) expect(free(at), new Date(at).toISOString()).toBe(false);
        }
        if (result) {
          expect(free(result.start.getTime())).toBe(true);
          expect(free(result.end.getTime() - 1)).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });
});
