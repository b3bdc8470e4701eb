import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/model/types.js';
import {
  compileWindows,
  evaluateWindows,
  isOpen,
  MAX_WINDOWS,
  nextOpening,
  type CompiledWindow,
  type WindowErrorCode,
} from '../../src/rules/window.js';

function compileOne(spec: WindowSpec): CompiledWindow {
  const { windows, errors } = compileWindows([spec], 'maintenanceWindows');
  expect(errors.map((error) => error.message)).toEqual([]);
  const [window] = windows;
  if (!window) throw new Error(`no window compiled from ${JSON.stringify(spec)}`);
  return window;
}

const at = (iso: string): Date => new Date(iso);
const saturdayNight: WindowSpec = { schedule: '0 2 * * 6', duration: '2h' };
const closedWindow: WindowSpec = { start: '2026-12-10T00:00:00Z', end: '2026-12-11T00:00:00Z' };
const invalidWindow: WindowSpec = { schedule: '0 0 2 * * 6', duration: '2h' };
const openNow: WindowSpec = { start: '2026-12-01T00:00:00Z', end: '2026-12-03T00:00:00Z' };
const NOW = at('2026-12-02T10:00:00Z');

describe('compileWindows', () => {
  it.each<[string, WindowSpec]>([
    ['W1: recurring window, time zone defaults to UTC', { schedule: '0 2 * * 6', duration: '2h' }],
    ['W1: recurring window in an IANA zone', { schedule: '30 1 * * 1-5', duration: '90m', timeZone: 'Europe/Berlin' }],
    ['W1: recurring window with combined and fractional durations', { schedule: '*/15 * * * *', duration: '1h30m' }],
    ['W1: recurring window with names, lists and steps', { schedule: '0 22 1,15 JAN-JUN SAT', duration: '1.5h' }],
    ['W1: one-off window in UTC', { start: '2026-12-06T01:00:00Z', end: '2026-12-06T03:00:00Z' }],
    ['W1: one-off window with offsets and fractions', { start: '2026-12-06T01:00:00.250+01:00', end: '2026-12-06T01:00:00-05:30' }],
    ['W1: one-off window on a leap day', { start: '2028-02-29T00:00:00Z', end: '2028-03-01T00:00:00Z' }],
  ])('%s', (_name, spec) => {
    const { windows, errors } = compileWindows([spec], 'maintenanceWindows');
    expect(errors).toEqual([]);
    expect(windows).toHaveLength(1);
  });

  it('W1: a recurring window keeps its zone, defaulting to UTC, and its duration in ms', () => {
    const { windows } = compileWindows(
      [saturdayNight, { schedule: '0 1 * * *', duration: '1h30m', timeZone: 'America/New_York' }],
      'maintenanceWindows',
    );
    expect(windows.map((w) => (w.kind === 'recurring' ? [w.index, w.timeZone, w.durationMs] : w.kind))).toEqual([
      [0, 'UTC', 2 * 3_600_000],
      [1, 'America/New_York', 5_400_000],
    ]);
  });

  it('W1: a one-off window is read as the instants it names', () => {
    const window = compileOne({ start: '2026-12-06T01:00:00.250+01:00', end: '2026-12-06T01:00:00-05:30' });
    expect(window.kind === 'one-off' && [window.start.toISOString(), window.end.toISOString()]).toEqual([
      '2026-12-06T00:00:00.250Z',
      '2026-12-06T06:30:00.000Z',
    ]);
  });

  it.each<[string, unknown, WindowErrorCode, string | undefined, string]>([
    ['W1: a 6-field schedule (leading seconds) is invalid', { schedule: '0 0 2 * * 6', duration: '2h' }, 'InvalidSchedule', 'schedule', '"0 0 2 * * 6" has 6 fields'],
    ['W1: a 4-field schedule is invalid', { schedule: '0 2 * *', duration: '2h' }, 'InvalidSchedule', 'schedule', '"0 2 * *" has 4 fields'],
    ['W1: a cron macro is invalid', { schedule: '@daily', duration: '2h' }, 'InvalidSchedule', 'schedule', '"@daily" has 1 fields'],
    ['W1: an empty schedule is invalid', { schedule: '  ', duration: '2h' }, 'InvalidSchedule', 'schedule', 'has 0 fields'],
    ['W1: a minute out of range is invalid', { schedule: '61 2 * * *', duration: '2h' }, 'InvalidSchedule', 'schedule', '"61 2 * * *" is not a cron schedule'],
    ['W1: words in a schedule are invalid', { schedule: 'a b c d e', duration: '2h' }, 'InvalidSchedule', 'schedule', '"a b c d e" is not a cron schedule'],
    ['W1: a date that never exists is invalid', { schedule: '0 0 30 2 *', duration: '2h' }, 'InvalidSchedule', 'schedule', '"0 0 30 2 *"'],
    ['W1: a hashed (random) value is invalid', { schedule: 'H 2 * * *', duration: '2h' }, 'InvalidSchedule', 'schedule', '"H 2 * * *" uses H'],
    ['W1: a schedule that is not a string is invalid', { schedule: 5, duration: '2h' }, 'InvalidSchedule', 'schedule', '5 is not a string'],
    ['W1: a missing schedule is invalid', { duration: '2h' }, 'InvalidSchedule', 'schedule', 'is missing'],
    ['W1: an unknown time zone is invalid', { schedule: '0 2 * * *', duration: '2h', timeZone: 'Mars/Olympus' }, 'InvalidTimeZone', 'timeZone', '"Mars/Olympus" is not an IANA time zone'],
    ['W1: an offset is not a time zone', { schedule: '0 2 * * *', duration: '2h', timeZone: '+02:00' }, 'InvalidTimeZone', 'timeZone', '"+02:00"'],
    ['W1: an empty time zone is invalid', { schedule: '0 2 * * *', duration: '2h', timeZone: '' }, 'InvalidTimeZone', 'timeZone', '""'],
    ['W1: a missing duration is invalid', { schedule: '0 2 * * *' }, 'InvalidDuration', 'duration', 'is missing'],
    ['W1: a zero duration is invalid', { schedule: '0 2 * * *', duration: '0' }, 'InvalidDuration', 'duration', '"0" is not positive'],
    ['W1: a zero duration with a unit is invalid', { schedule: '0 2 * * *', duration: '0s' }, 'InvalidDuration', 'duration', '"0s" is not positive'],
    ['W1: a negative duration is invalid', { schedule: '0 2 * * *', duration: '-1h' }, 'InvalidDuration', 'duration', '"-1h" is not positive'],
    ['W1: days are not a duration unit', { schedule: '0 2 * * *', duration: '3d' }, 'InvalidDuration', 'duration', '"3d"'],
    ['W1: a bare number is not a duration', { schedule: '0 2 * * *', duration: 2 }, 'InvalidDuration', 'duration', '2 is not a string'],
    ['W1: end equal to start is invalid', { start: '2026-12-06T01:00:00Z', end: '2026-12-06T02:00:00+01:00' }, 'InvalidTime', 'end', 'is not after start "2026-12-06T01:00:00Z"'],
    ['W1: end before start is invalid', { start: '2026-12-06T01:00:00Z', end: '2026-12-05T01:00:00Z' }, 'InvalidTime', 'end', '"2026-12-05T01:00:00Z" is not after start'],
    ['W1: an unparseable time is invalid', { start: 'tomorrow', end: '2026-12-06T01:00:00Z' }, 'InvalidTime', 'start', '"tomorrow" is not an RFC 3339 time'],
    ['W1: a time without offset is invalid', { start: '2026-12-06T01:00:00', end: '2026-12-07T01:00:00Z' }, 'InvalidTime', 'start', '"2026-12-06T01:00:00"'],
    ['W1: a date without time is invalid', { start: '2026-12-06', end: '2026-12-07T01:00:00Z' }, 'InvalidTime', 'start', '"2026-12-06"'],
    ['W1: a day the month does not have is invalid', { start: '2026-12-06T01:00:00Z', end: '2027-02-29T01:00:00Z' }, 'InvalidTime', 'end', '"2027-02-29T01:00:00Z"'],
    ['W1: hour 24 is invalid', { start: '2026-12-06T24:00:00Z', end: '2026-12-07T01:00:00Z' }, 'InvalidTime', 'start', '"2026-12-06T24:00:00Z"'],
    ['W1: a missing end is invalid', { start: '2026-12-06T01:00:00Z' }, 'InvalidTime', 'end', 'is missing'],
    ['W1: a spec mixing both forms is invalid', { schedule: '0 2 * * *', duration: '2h', start: '2026-12-06T01:00:00Z', end: '2026-12-07T01:00:00Z' }, 'InvalidWindow', undefined, 'mixes recurring'],
    ['W1: a time zone on a one-off window mixes forms', { start: '2026-12-06T01:00:00Z', end: '2026-12-07T01:00:00Z', timeZone: 'UTC' }, 'InvalidWindow', undefined, 'mixes recurring'],
    ['W1: a spec with neither form is invalid', {}, 'InvalidWindow', undefined, 'has neither'],
    ['W1: a string is not a window', '0 2 * * 6', 'InvalidWindow', undefined, '"0 2 * * 6" is not a window'],
    ['W1: null is not a window', null, 'InvalidWindow', undefined, 'null is not a window'],
    ['W1: a misspelt field is invalid', { schedule: '0 2 * * *', duration: '2h', timezone: 'Europe/Berlin' }, 'InvalidWindow', 'timezone', 'unknown field'],
  ])('%s', (_name, spec, code, field, message) => {
    const { windows, errors } = compileWindows([saturdayNight, spec], 'maintenanceWindows');
    expect(windows.map((w) => w.index)).toEqual([0]);
    expect(errors).toHaveLength(1);
    const [error] = errors;
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code, index: 1, field });
    expect(error?.message).toContain(`maintenanceWindows[1]${field === undefined ? '' : `.${field}`}: `);
    expect(error?.message).toContain(message);
  });

  it('W1: every problem of a window is reported, each naming its field', () => {
    const { windows, errors } = compileWindows([{ schedule: '0 0 2 * * 6', timeZone: 'Nowhere', duration: '3d' }], 'freezeWindows');
    expect(windows).toEqual([]);
    expect(errors.map((e) => [e.index, e.field, e.code])).toEqual([
      [0, 'schedule', 'InvalidSchedule'],
      [0, 'timeZone', 'InvalidTimeZone'],
      [0, 'duration', 'InvalidDuration'],
    ]);
    expect(errors.map((e) => e.message.split(':')[0])).toEqual([
      'freezeWindows[0].schedule',
      'freezeWindows[0].timeZone',
      'freezeWindows[0].duration',
    ]);
  });

  it.each([
    ['W2: 16 windows are all valid', MAX_WINDOWS, []],
    ['W2: the 17th and later windows are invalid', MAX_WINDOWS + 2, [16, 17]],
  ])('%s', (_name, count, invalid) => {
    const specs = Array.from({ length: count }, (_, i) => ({ schedule: `${i} 2 * * *`, duration: '1h' }));
    const { windows, errors } = compileWindows(specs, 'freezeWindows');
    expect(windows).toHaveLength(Math.min(count, MAX_WINDOWS));
    expect(errors.map((e) => [e.index, e.code])).toEqual(invalid.map((i) => [i, 'TooManyWindows']));
    expect(errors.map((e) => e.message)).toEqual(
      invalid.map((i) => `freezeWindows[${i}]: a list holds at most 16 windows; this is window ${i + 1}`),
    );
  });
});

describe('isOpen', () => {
  const weekend: WindowSpec = { schedule: '0 22 * * 5', duration: '62h' }; // Friday 22:00 to Monday 12:00
  it.each<[string, WindowSpec, string, boolean]>([
    ['W1: a one-off window is open at its start', closedWindow, '2026-12-10T00:00:00Z', true],
    ['W1: a one-off window is closed at its end', closedWindow, '2026-12-11T00:00:00Z', false],
    ['W1: a one-off window is open just before its end', closedWindow, '2026-12-10T23:59:59.999Z', true],
    ['W1: a one-off window is closed just before its start', closedWindow, '2026-12-09T23:59:59.999Z', false],
    ['W1: a recurring window is open at its opening', saturdayNight, '2026-12-05T02:00:00Z', true],
    ['W1: a recurring window is closed when its duration has elapsed', saturdayNight, '2026-12-05T04:00:00Z', false],
    ['W1: a recurring window is open just before its end', saturdayNight, '2026-12-05T03:59:59.999Z', true],
    ['W1: a recurring window is closed just before it opens', saturdayNight, '2026-12-05T01:59:59.999Z', false],
    ['W1: a recurring window is closed on another day', saturdayNight, '2026-12-02T03:00:00Z', false],
    ['W1: a 62h window that opened two days ago is open', weekend, '2026-12-06T23:00:00Z', true],
    ['W1: a 62h window is open just before its end', weekend, '2026-12-07T11:59:00Z', true],
    ['W1: a 62h window is closed at its end', weekend, '2026-12-07T12:00:00Z', false],
    ['W1: a 62h window is closed midweek', weekend, '2026-12-09T12:00:00Z', false],
    ['W1: a window longer than the gap between openings never closes', { schedule: '0 * * * *', duration: '3h' }, '2026-12-02T10:59:59Z', true],
    ['W1: a window opening every 4 years is found', { schedule: '0 0 29 2 *', duration: '48h' }, '2028-03-01T12:00:00Z', true],
    ['W1: a window opening every 4 years is closed in other years', { schedule: '0 0 29 2 *', duration: '48h' }, '2027-03-01T12:00:00Z', false],
    ['W1: a window opens in its own zone (02:00 CEST = 00:00Z)', { schedule: '0 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' }, '2026-07-01T00:00:00Z', true],
    ['W1: a window is not open at the same wall time in UTC', { schedule: '0 2 * * *', duration: '1h', timeZone: 'Europe/Berlin' }, '2026-07-01T02:00:00Z', false],
    ['W1: a window across midnight local time (New York)', { schedule: '0 22 * * 1', duration: '4h', timeZone: 'America/New_York' }, '2026-12-08T05:30:00Z', true],
  ])('%s', (_name, spec, now, expected) => {
    expect(isOpen(compileOne(spec), at(now))).toBe(expected);
  });
});

describe('nextOpening', () => {
  it.each<[string, WindowSpec, string, string | null]>([
    ['W1: a future one-off window opens at its start', closedWindow, '2026-12-01T00:00:00Z', '2026-12-10T00:00:00.000Z'],
    ['W1: a one-off window at its start does not open again', closedWindow, '2026-12-10T00:00:00Z', null],
    ['W1: a past one-off window never opens again', closedWindow, '2026-12-12T00:00:00Z', null],
    ['W1: the next opening of a recurring window', saturdayNight, '2026-12-02T10:00:00Z', '2026-12-05T02:00:00.000Z'],
    ['W1: the next opening is strictly after now', saturdayNight, '2026-12-05T02:00:00Z', '2026-12-12T02:00:00.000Z'],
    ['W1: the next opening in a zone', { schedule: '0 1 * * 6', duration: '2h', timeZone: 'Asia/Tokyo' }, '2026-12-02T10:00:00Z', '2026-12-04T16:00:00.000Z'],
    ['W1: the next leap day', { schedule: '0 0 29 2 *', duration: '1h' }, '2026-12-02T10:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('%s', (_name, spec, now, expected) => {
    expect(nextOpening(compileOne(spec), at(now))?.toISOString() ?? null).toBe(expected);
  });
});

// Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST at 01:00Z; 2026-10-25 03:00 CEST → 02:00 CET at 01:00Z.
// America/New_York: 2026-03-08 02:00 EST → 03:00 EDT at 07:00Z; 2026-11-01 02:00 EDT → 01:00 EST at 06:00Z.
describe('W1: DST, durations elapsed, skipped starts fire after the gap, repeated times once', () => {
  const berlin = (schedule: string, duration = '30m'): WindowSpec => ({ schedule, duration, timeZone: 'Europe/Berlin' });
  const newYork = (schedule: string, duration = '30m'): WindowSpec => ({ schedule, duration, timeZone: 'America/New_York' });

  it.each<[string, WindowSpec, string, string]>([
    ['W1: Berlin, a skipped 02:30 fires at 03:00 CEST', berlin('30 2 * * *'), '2026-03-28T12:00:00Z', '2026-03-29T01:00:00.000Z'],
    ['W1: Berlin, the day after the gap is ordinary again', berlin('30 2 * * *'), '2026-03-29T01:00:00Z', '2026-03-30T00:30:00.000Z'],
    ['W1: Berlin, a skipped 02:00 fires at 03:00 CEST', berlin('0 2 * * *'), '2026-03-28T12:00:00Z', '2026-03-29T01:00:00.000Z'],
    ['W1: Berlin, skipped half hours collapse into one opening after the gap', berlin('*/30 * * * *'), '2026-03-29T00:40:00Z', '2026-03-29T01:00:00.000Z'],
    ['W1: Berlin, then the schedule goes on after the gap', berlin('*/30 * * * *'), '2026-03-29T01:00:00Z', '2026-03-29T01:30:00.000Z'],
    ['W1: Berlin, a repeated 02:30 fires at its first occurrence', berlin('30 2 * * *'), '2026-10-24T12:00:00Z', '2026-10-25T00:30:00.000Z'],
    ['W1: Berlin, a repeated 02:30 fires once', berlin('30 2 * * *'), '2026-10-25T00:30:00Z', '2026-10-26T01:30:00.000Z'],
    ['W1: Berlin, an hourly schedule does not fire again in the repeated hour', berlin('0 * * * *'), '2026-10-25T00:00:00Z', '2026-10-25T02:00:00.000Z'],
    ['W1: New York, a skipped 02:30 fires at 03:00 EDT', newYork('30 2 * * *'), '2026-03-07T12:00:00Z', '2026-03-08T07:00:00.000Z'],
    ['W1: New York, a repeated 01:30 fires at its first occurrence', newYork('30 1 * * *'), '2026-10-31T12:00:00Z', '2026-11-01T05:30:00.000Z'],
    ['W1: New York, a repeated 01:30 fires once', newYork('30 1 * * *'), '2026-11-01T05:30:00Z', '2026-11-02T06:30:00.000Z'],
    ['W1: New York, from inside the repeated hour', newYork('30 1 * * *'), '2026-11-01T06:10:00Z', '2026-11-02T06:30:00.000Z'],
  ])('%s: next opening', (_name, spec, now, expected) => {
    expect(nextOpening(compileOne(spec), at(now))?.toISOString()).toBe(expected);
  });

  it.each<[string, WindowSpec, string, boolean]>([
    ['W1: Berlin, the skipped 02:30 window is open after the gap', berlin('30 2 * * *'), '2026-03-29T01:10:00Z', true],
    ['W1: Berlin, the skipped 02:30 window lasts 30 elapsed minutes', berlin('30 2 * * *'), '2026-03-29T01:30:00Z', false],
    ['W1: Berlin, a 2h window from 01:00 across the gap ends at 04:00 CEST', berlin('0 1 * * *', '2h'), '2026-03-29T01:59:00Z', true],
    ['W1: Berlin, a 2h window from 01:00 across the gap is closed at 04:00 CEST', berlin('0 1 * * *', '2h'), '2026-03-29T02:00:00Z', false],
    ['W1: Berlin, the repeated 02:30 window is open at its first occurrence', berlin('30 2 * * *'), '2026-10-25T00:45:00Z', true],
    ['W1: Berlin, the repeated 02:30 window is closed at its second occurrence', berlin('30 2 * * *'), '2026-10-25T01:45:00Z', false],
    ['W1: Berlin, a 3h window from 01:00 across the repeat ends at 03:00 CET', berlin('0 1 * * *', '3h'), '2026-10-25T01:59:00Z', true],
    ['W1: Berlin, a 3h window from 01:00 across the repeat is closed at 03:00 CET', berlin('0 1 * * *', '3h'), '2026-10-25T02:00:00Z', false],
    ['W1: New York, the skipped 02:30 window is open after the gap', newYork('30 2 * * *'), '2026-03-08T07:20:00Z', true],
    ['W1: New York, the skipped 02:30 window lasts 30 elapsed minutes', newYork('30 2 * * *'), '2026-03-08T07:30:00Z', false],
    ['W1: New York, the repeated 01:30 window is closed at its second occurrence', newYork('30 1 * * *'), '2026-11-01T06:40:00Z', false],
    // 01:59 EDT (05:59Z) is a later wall time than now (01:30 EST), yet it has already opened.
    ['W1: New York, a window opened late in the first pass of the repeated hour is open in the second', newYork('59 1 * * *', '1h'), '2026-11-01T06:30:00Z', true],
    ['W1: New York, that window closes an elapsed hour after it opened', newYork('59 1 * * *', '1h'), '2026-11-01T06:59:00Z', false],
  ])('%s: open', (_name, spec, now, expected) => {
    expect(isOpen(compileOne(spec), at(now))).toBe(expected);
  });
});

describe('evaluateWindows', () => {
  it.each<[string, WindowSpec[], boolean, string | null, number[]]>([
    ['W3: an invalid maintenance window counts as closed', [invalidWindow], false, null, []],
    ['W3: an invalid maintenance window does not open a list with a closed valid one', [invalidWindow, closedWindow], false, '2026-12-10T00:00:00.000Z', []],
    ['W3: a valid open maintenance window opens the list despite an invalid one', [invalidWindow, openNow], true, null, [1]],
    ['W3: no maintenance window at all is closed, with no next window', [], false, null, []],
    ['W2: a 17th maintenance window is invalid and counts as closed', [...Array<WindowSpec>(16).fill(closedWindow), openNow], false, '2026-12-10T00:00:00.000Z', []],
    ['W1: the next window is the earliest opening of all', [closedWindow, saturdayNight], false, '2026-12-05T02:00:00.000Z', []],
  ])('%s', (_name, specs, open, nextWindow, openWindows) => {
    const result = evaluateWindows(compileWindows(specs, 'maintenanceWindows'), 'maintenance', NOW);
    expect(result.open).toBe(open);
    expect(result.nextWindow?.toISOString() ?? null).toBe(nextWindow);
    expect(result.openWindows).toEqual(openWindows);
  });

  it.each<[string, WindowSpec[], boolean, number[]]>([
    ['Z3: an invalid freeze window counts as open', [invalidWindow], true, [0]],
    ['Z3: an invalid freeze window freezes a list whose valid windows are closed', [closedWindow, invalidWindow], true, [1]],
    ['Z3: a 17th freeze window is invalid and counts as open', Array<WindowSpec>(17).fill(closedWindow), true, [16]],
    ['Z3: valid closed freeze windows do not freeze', [closedWindow, saturdayNight], false, []],
    ['Z3: an open freeze window freezes', [openNow], true, []],
    ['Z3: no freeze window at all does not freeze', [], false, []],
  ])('%s', (_name, specs, open, invalidWindows) => {
    const result = evaluateWindows(compileWindows(specs, 'freezeWindows'), 'freeze', NOW);
    expect(result.open).toBe(open);
    expect(result.invalidWindows).toEqual(invalidWindows);
  });
});
