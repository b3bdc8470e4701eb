import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DurationError,
  NANOS_PER_HOUR as Hour,
  NANOS_PER_MICRO as Microsecond,
  NANOS_PER_MILLI as Millisecond,
  NANOS_PER_MINUTE as Minute,
  NANOS_PER_SECOND as Second,
  parseDuration,
  parseDurationNanos,
} from '../../src/rules/duration.js';

const Nanosecond = 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

describe('parseDurationNanos: Go time_test.go parseDurationTests', () => {
  const table: [string, bigint][] = [
    // simple
    ['0', 0n],
    ['5s', 5n * Second],
    ['30s', 30n * Second],
    ['1478s', 1478n * Second],
    // sign
    ['-5s', -5n * Second],
    ['+5s', 5n * Second],
    ['-0', 0n],
    ['+0', 0n],
    // decimal
    ['5.0s', 5n * Second],
    ['5.6s', 5n * Second + 600n * Millisecond],
    ['5.s', 5n * Second],
    ['.5s', 500n * Millisecond],
    ['1.0s', 1n * Second],
    ['1.00s', 1n * Second],
    ['1.004s', 1n * Second + 4n * Millisecond],
    ['1.0040s', 1n * Second + 4n * Millisecond],
    ['100.00100s', 100n * Second + 1n * Millisecond],
    // different units
    ['10ns', 10n * Nanosecond],
    ['11us', 11n * Microsecond],
    ['12µs', 12n * Microsecond], // U+00B5
    ['12μs', 12n * Microsecond], // U+03BC
    ['13ms', 13n * Millisecond],
    ['14s', 14n * Second],
    ['15m', 15n * Minute],
    ['16h', 16n * Hour],
    // composite durations
    ['3h30m', 3n * Hour + 30n * Minute],
    ['10.5s4m', 4n * Minute + 10n * Second + 500n * Millisecond],
    ['-2m3.4s', -(2n * Minute + 3n * Second + 400n * Millisecond)],
    ['1h2m3s4ms5us6ns', 1n * Hour + 2n * Minute + 3n * Second + 4n * Millisecond + 5n * Microsecond + 6n * Nanosecond],
    ['39h9m14.425s', 39n * Hour + 9n * Minute + 14n * Second + 425n * Millisecond],
    // large value
    ['52763797000ns', 52763797000n * Nanosecond],
    // more than 9 digits after decimal point (golang.org/issue/6617)
    ['0.3333333333333333333h', 20n * Minute],
    // 1<<53+1 cannot be stored precisely in a float64
    ['9007199254740993ns', (1n << 53n) + 1n],
    // largest duration that can be represented by int64 in nanoseconds
    ['9223372036854775807ns', MAX_INT64],
    ['9223372036854775.807us', MAX_INT64],
    ['9223372036s854ms775us807ns', MAX_INT64],
    ['-9223372036854775808ns', MIN_INT64],
    ['-9223372036854775.808us', MIN_INT64],
    ['-9223372036s854ms775us808ns', MIN_INT64],
    // largest negative round trip value (golang.org/issue/48629)
    ['-2562047h47m16.854775808s', MIN_INT64],
    // huge string (issue 15011)
    ['0.100000000000000000000h', 6n * Minute],
    // the first overflow check in leadingFraction
    ['0.830103483285477580700h', 49n * Minute + 48n * Second + 372539827n * Nanosecond],
    // the brief's examples
    ['1h30m', Hour + 30n * Minute],
    ['62h', 62n * Hour],
    ['90m', 90n * Minute],
    ['1.5h', Hour + 30n * Minute],
    ['300ms', 300n * Millisecond],
    ['-1.5h', -(Hour + 30n * Minute)],
    ['2h45m', 2n * Hour + 45n * Minute],
    ['1h1h', 2n * Hour], // Go accepts a repeated unit
    ['1m1h', Hour + Minute], // and any order
    ['0s', 0n],
    ['0h0m', 0n],
    ['-0s', 0n],
  ];

  it.each(table)('%s → %s (ns)', (input, nanos) => {
    expect(parseDurationNanos(input)).toBe(nanos);
  });
});

describe('parseDurationNanos: rejects (Go parseDurationErrorTests and more)', () => {
  const invalid = [
    // Go's own
    '',
    '3',
    '-',
    's',
    '.',
    '-.',
    '.s',
    '+.s',
    '1d',
    '\x85\x85',
    '\xffff',
    'hello \xffff world',
    '\uFFFD',
    '\uFFFD hello \uFFFD world',
    // overflow
    '9223372036854775810ns',
    '9223372036854775808ns',
    '-9223372036854775809ns',
    '9223372036854776us',
    '3000000h',
    '9223372036854775.808us',
    '9223372036854ms775us808ns',
    '99999999999999999999999h',
    // the brief's and other typos
    '3d',
    '1w',
    '5',
    '00',
    '1hh',
    'h',
    '1H',
    '1 h',
    ' 1h',
    '1h ',
    '1h-30m',
    '1h+30m',
    '--1h',
    '+-1h',
    '1e3s',
    '1,5h',
    '1.5.5h',
    'P1D',
    '1sec',
    '1min',
    '1hr',
    'µs',
    '1mµs',
    '0x10s',
  ];

  it.each(invalid)('%j throws InvalidDuration naming it', (input) => {
    let caught: unknown;
    try {
      parseDurationNanos(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DurationError);
    const error = caught as DurationError;
    expect(error.code).toBe('InvalidDuration');
    expect(error.value).toBe(input);
    expect(error.message).toContain(JSON.stringify(input));
    expect(() => parseDuration(input)).toThrow(DurationError);
  });

  it('says what went wrong', () => {
    expect(() => parseDuration('3d')).toThrow(/unknown unit "d"/);
    expect(() => parseDuration('5')).toThrow(/missing unit/);
    expect(() => parseDuration('3000000h')).toThrow(/out of range/);
    expect(() => parseDuration(5 as unknown as string)).toThrow(DurationError);
  });
});

describe('parseDuration: milliseconds', () => {
  it.each([
    ['0', 0],
    ['1h30m', 5_400_000],
    ['62h', 223_200_000],
    ['90m', 5_400_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['-5s', -5000],
    ['1500us', 1.5],
    ['1ns', 0.000001],
    ['2562047h47m16.854775807s', 9_223_372_036_854.775],
  ] as const)('%s = %d ms', (input, ms) => {
    expect(parseDuration(input)).toBeCloseTo(ms, 6);
  });

  it('is exact for whole milliseconds', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(Object.is(parseDuration('-0'), 0)).toBe(true);
  });
});

describe('parseDurationNanos: what Go Duration.String() prints', () => {
  it.each([
    [0n, '0s'],
    [1n, '1ns'],
    [1100n, '1.1µs'],
    [2200n * Microsecond, '2.2ms'],
    [3300n * Millisecond, '3.3s'],
    [4n * Minute + 5n * Second, '4m5s'],
    [4n * Minute + 5001n * Millisecond, '4m5.001s'],
    [5n * Hour + 6n * Minute + 7001n * Millisecond, '5h6m7.001s'],
    [8n * Minute + 1n, '8m0.000000001s'],
    [MAX_INT64, '2562047h47m16.854775807s'],
    [MIN_INT64, '-2562047h47m16.854775808s'],
    [Hour + 30n * Minute, '1h30m0s'],
    [Hour, '1h0m0s'],
    [-Hour, '-1h0m0s'],
    [90n * Second, '1m30s'],
    [300n * Millisecond, '300ms'],
    [999n, '999ns'],
    [1000n, '1µs'],
  ] as const)('%s (ns) → %s', (nanos, text) => {
    expect(parseDurationNanos(text)).toBe(nanos);
  });

  it('never throws anything but DurationError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        try {
          parseDurationNanos(text);
        } catch (error) {
          expect(error).toBeInstanceOf(DurationError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
