// Durations in Go's `time.ParseDuration` grammar: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the
// units ns, us (µs, μs), ms, s, m, h, or the bare "0". No days: `3d` is an error, as in Go.
// Parsing is a faithful port, down to Go's float64 arithmetic for fractions (so `0.3333333333h`
// gives the same nanoseconds) and its int64 range. Whether a zero or negative duration makes
// sense is the caller's decision.

export type DurationErrorCode = 'InvalidDuration';

/** A duration Go would not parse. The message names the value. */
export class DurationError extends Error {
  readonly code: DurationErrorCode = 'InvalidDuration';
  /** The text as given. */
  readonly value: string;

  constructor(value: string, reason: string, options?: { cause?: unknown }) {
    super(`invalid duration ${JSON.stringify(value)}: ${reason}`, options);
    this.name = 'DurationError';
    this.value = value;
  }
}

export const NANOS_PER_MICRO = 1_000n;
export const NANOS_PER_MILLI = 1_000_000n;
export const NANOS_PER_SECOND = 1_000_000_000n;
export const NANOS_PER_MINUTE = 60n * NANOS_PER_SECOND;
export const NANOS_PER_HOUR = 60n * NANOS_PER_MINUTE;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', NANOS_PER_MICRO],
  ['µs', NANOS_PER_MICRO], // U+00B5 micro sign
  ['μs', NANOS_PER_MICRO], // U+03BC Greek small mu
  ['ms', NANOS_PER_MILLI],
  ['s', NANOS_PER_SECOND],
  ['m', NANOS_PER_MINUTE],
  ['h', NANOS_PER_HOUR],
]);
const UNIT_HELP = 'units are ns, us (µs), ms, s, m, h, combined like 1h30m; days (d) are not a unit';

const LIMIT = 1n << 63n; // |duration| ≤ 2^63 ns on the way; the result must fit an int64.
const MAX_INT64 = LIMIT - 1n;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Parses like Go's `time.ParseDuration`, returning nanoseconds exactly. */
export function parseDurationNanos(text: string): bigint {
  if (typeof text !== 'string') {
    throw new DurationError(String(text), `expected a string, got ${typeof text}`);
  }
  const fail = (reason: string): never => {
    throw new DurationError(text, reason);
  };
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') fail(`empty; ${UNIT_HELP}`);

  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) fail(`expected a number at ${JSON.stringify(s)}; ${UNIT_HELP}`);

    // [0-9]*
    let i = 0;
    let whole = 0n;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > LIMIT) fail('out of range (beyond ±2562047h47m16.854775807s)');
      i += 1;
    }
    const hasWhole = i > 0;
    s = s.slice(i);

    // (\.[0-9]*)? — Go keeps digits only while they fit, and tracks their scale as a float64.
    let fraction = 0n;
    let scale = 1;
    let hasFraction = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          const next = fraction * 10n + BigInt(s.charCodeAt(j) - 48);
          if (fraction > MAX_INT64 / 10n || next > LIMIT) {
            overflow = true;
          } else {
            fraction = next;
            scale *= 10;
          }
        }
        j += 1;
      }
      hasFraction = j > 0;
      s = s.slice(j);
    }
    if (!hasWhole && !hasFraction) fail(`no digits before the unit; ${UNIT_HELP}`);

    // The unit runs to the next digit or '.'.
    let k = 0;
    while (k < s.length && !(s[k] === '.' || isDigit(s[k]))) k += 1;
    if (k === 0) fail(`missing unit; ${UNIT_HELP}`);
    const name = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS.get(name);
    if (unit === undefined) fail(`unknown unit ${JSON.stringify(name)}; ${UNIT_HELP}`);
    const perUnit = unit as bigint;

    if (whole > LIMIT / perUnit) fail('out of range (beyond ±2562047h47m16.854775807s)');
    let value = whole * perUnit;
    if (fraction > 0n) {
      // Go: v += uint64(float64(f) * (float64(unit) / scale)) — float64, truncated.
      value += BigInt(Math.trunc(Number(fraction) * (Number(perUnit) / scale)));
      if (value > LIMIT) fail('out of range (beyond ±2562047h47m16.854775807s)');
    }
    total += value;
    if (total > LIMIT) fail('out of range (beyond ±2562047h47m16.854775807s)');
  }
  if (negative) return -total;
  if (total > MAX_INT64) fail('out of range (beyond ±2562047h47m16.854775807s)');
  return total;
}

/** Parses a Go duration (`1h30m`, `300ms`, `0`) into milliseconds; sub-millisecond parts are kept as a fraction. */
export function parseDuration(text: string): number {
  const nanos = parseDurationNanos(text);
  return Number(nanos / NANOS_PER_MILLI) + Number(nanos % NANOS_PER_MILLI) / 1e6;
}
