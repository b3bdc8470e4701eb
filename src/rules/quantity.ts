// Kubernetes resource quantities (`500m`, `384Mi`, `1e3`) with the semantics of apimachinery's
// `resource.Quantity`: the same grammar, the same parse-time rounding and capping, the same
// canonical `String()` and exact comparison. Values are a bigint mantissa times a power of ten,
// so nothing ever passes through floating point except `toNumber()` (display only).
//
// Deliberate differences from apimachinery, each a case where it accepts garbage:
// - A number needs at least one digit. apimachinery's scanner reads `Mi`, `k`, `.`, `-` and `+`
//   as zero; its own documented grammar (and the OpenAPI pattern on CRD quantities) rejects them.
// - An exponent outside int32 is rejected (apimachinery wraps it: `1e4294967296` parses as 1),
//   and so is a non-zero value of 10^1000 or more, which no resource has and which would make
//   exact arithmetic unbounded.
// - A BinarySI value beyond 1024^6 formats with an `Ei` suffix (`1024Ei`); apimachinery drops
//   the exponent it has no suffix for and prints `1`.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export type QuantityErrorCode = 'InvalidQuantity';

/** A quantity that Kubernetes would not accept. The message names the value. */
export class QuantityError extends Error {
  readonly code: QuantityErrorCode = 'InvalidQuantity';
  /** The text as given. */
  readonly value: string;

  constructor(value: string, reason: string, options?: { cause?: unknown }) {
    super(`invalid quantity ${JSON.stringify(value)}: ${reason}`, options);
    this.name = 'QuantityError';
    this.value = value;
  }
}

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const DECIMAL_SUFFIX_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SUFFIXES].map(([suffix, exponent]) => [exponent, suffix]),
);
/** Suffix → power of 1024. */
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 1],
  ['Mi', 2],
  ['Gi', 3],
  ['Ti', 4],
  ['Pi', 5],
  ['Ei', 6],
]);
const BINARY_SUFFIX_BY_POWER: readonly string[] = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

const SUFFIX_HELP =
  'expected a number with an optional suffix n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3 or E-3';

// Sign, integer digits, optional fraction, then whatever is left as the suffix.
const SHAPE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/s;
const EXPONENT_SUFFIX = /^[eE]([+-]?[0-9]+)$/;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** Non-zero values must stay below 10^MAX_MAGNITUDE. */
const MAX_MAGNITUDE = 1000;
/** Parsing rounds finer values up to 10^NANO (apimachinery's Nano scale). */
const NANO = -9;
/** apimachinery caps a parsed BinarySI magnitude at MaxInt64. */
const MAX_INT64 = (1n << 63n) - 1n;

const TEN = 10n;

function pow10(n: number): bigint {
  return TEN ** BigInt(n);
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

function signOf(n: bigint): -1 | 0 | 1 {
  return n === 0n ? 0 : n < 0n ? -1 : 1;
}

function digitCount(n: bigint): number {
  return abs(n).toString().length;
}

/** Moves factors of ten from the mantissa into the exponent; zero becomes 0×10^0. */
function normalize(mantissa: bigint, exponent: number): [bigint, number] {
  if (mantissa === 0n) return [0n, 0];
  while (mantissa % TEN === 0n) {
    mantissa /= TEN;
    exponent += 1;
  }
  return [mantissa, exponent];
}

/** Divides by 10^places, rounding away from zero (inf.RoundUp). */
function divPow10AwayFromZero(mantissa: bigint, places: number): bigint {
  if (places <= 0) return mantissa * pow10(-places);
  if (mantissa === 0n) return 0n;
  // A divisor longer than the mantissa leaves only the rounding unit; skip building it.
  if (places > digitCount(mantissa)) return BigInt(signOf(mantissa));
  const divisor = pow10(places);
  const quotient = mantissa / divisor;
  if (mantissa % divisor === 0n) return quotient;
  return mantissa < 0n ? quotient - 1n : quotient + 1n;
}

/** Both mantissas at the smaller of the two exponents. */
function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const exponent = Math.min(a.exponent, b.exponent);
  return [a.mantissa * pow10(a.exponent - exponent), b.mantissa * pow10(b.exponent - exponent), exponent];
}

/**
 * An immutable Kubernetes resource quantity: `mantissa × 10^exponent`, plus the format family it
 * was written in (which decides how it prints). Equality of value is `equals`/`compare`; the
 * format does not take part in it.
 */
export class Quantity {
  /** Mantissa without trailing zeros (0 for zero). */
  readonly mantissa: bigint;
  /** Power of ten (0 for zero). */
  readonly exponent: number;
  readonly format: QuantityFormat;

  private constructor(mantissa: bigint, exponent: number, format: QuantityFormat) {
    [this.mantissa, this.exponent] = normalize(mantissa, exponent);
    this.format = format;
  }

  /** Parses like apimachinery's `ParseQuantity`; throws `QuantityError` on malformed text. */
  static parse(text: string): Quantity {
    if (typeof text !== 'string') {
      throw new QuantityError(String(text), `expected a string, got ${typeof text}`);
    }
    if (text === '') throw new QuantityError(text, `empty; ${SUFFIX_HELP}`);
    const shape = SHAPE.exec(text);
    if (!shape) throw new QuantityError(text, SUFFIX_HELP);
    const [, sign = '', whole = '', fraction = '', suffix = ''] = shape;
    if (whole === '' && fraction === '') {
      throw new QuantityError(text, `no digits in the number; ${SUFFIX_HELP}`);
    }
    const digits = BigInt(whole + fraction);
    const unsigned = sign === '-' ? -digits : digits;

    let format: QuantityFormat;
    let mantissa: bigint;
    let exponent: number;
    const decimal = DECIMAL_SUFFIXES.get(suffix);
    const binary = BINARY_SUFFIXES.get(suffix);
    if (decimal !== undefined) {
      format = 'DecimalSI';
      mantissa = unsigned;
      exponent = decimal - fraction.length;
    } else if (binary !== undefined) {
      format = 'BinarySI';
      mantissa = unsigned << BigInt(10 * binary);
      exponent = -fraction.length;
    } else {
      const match = EXPONENT_SUFFIX.exec(suffix);
      if (!match) throw new QuantityError(text, `unknown suffix ${JSON.stringify(suffix)}; ${SUFFIX_HELP}`);
      const power = BigInt(match[1] ?? '');
      if (power < BigInt(INT32_MIN) || power > BigInt(INT32_MAX)) {
        throw new QuantityError(text, 'exponent out of range');
      }
      format = 'DecimalExponent';
      mantissa = unsigned;
      exponent = Number(power) - fraction.length;
    }

    if (mantissa !== 0n && digitCount(mantissa) + exponent > MAX_MAGNITUDE) {
      throw new QuantityError(text, `magnitude of 10^${MAX_MAGNITUDE} or more`);
    }

    // apimachinery keeps nothing finer than nano: a non-zero value rounds away from zero to it,
    // "so that if you want some resources, you get some".
    if (exponent < NANO) {
      mantissa = divPow10AwayFromZero(mantissa, NANO - exponent);
      exponent = NANO;
    }
    if (format === 'BinarySI') {
      const magnitude = new Quantity(abs(mantissa), exponent, format);
      if (magnitude.compare(MAX_INT64_QUANTITY) > 0) {
        mantissa = mantissa < 0n ? -MAX_INT64 : MAX_INT64;
        exponent = 0;
      } else if (mantissa !== 0n && magnitude.compare(ONE) < 0) {
        format = 'DecimalSI';
      }
    }
    return new Quantity(mantissa, exponent, format);
  }

  /** `value` whole units (like `resource.NewQuantity`). */
  static fromInteger(value: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(toBigInt(value), 0, format);
  }

  /** `milli` thousandths (like `resource.NewMilliQuantity`). */
  static fromMilli(milli: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(toBigInt(milli), -3, format);
  }

  static readonly zero: Quantity = new Quantity(0n, 0, 'DecimalSI');

  /** -1, 0 or 1 as this value is below, equal to or above `other`, whatever their formats. */
  compare(other: Quantity): -1 | 0 | 1 {
    const a = signOf(this.mantissa);
    const b = signOf(other.mantissa);
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    // Same sign: the order of magnitude settles most cases without building 10^k.
    const magnitudeA = digitCount(this.mantissa) + this.exponent;
    const magnitudeB = digitCount(other.mantissa) + other.exponent;
    if (magnitudeA !== magnitudeB) return (magnitudeA > magnitudeB ? a : -a) as -1 | 1;
    const [x, y] = align(this, other);
    return x === y ? 0 : x < y ? -1 : 1;
  }

  equals(other: Quantity): boolean {
    return this.compare(other) === 0;
  }

  isZero(): boolean {
    return this.mantissa === 0n;
  }

  sign(): -1 | 0 | 1 {
    return signOf(this.mantissa);
  }

  /** Thousandths, rounded away from zero (apimachinery's `MilliValue`, without int64 overflow). */
  toMilli(): bigint {
    return divPow10AwayFromZero(this.mantissa, -(this.exponent + 3));
  }

  /** Whole units, rounded away from zero (apimachinery's `Value`, without int64 overflow). */
  toInteger(): bigint {
    return divPow10AwayFromZero(this.mantissa, -this.exponent);
  }

  /** Nearest float; for display and charts only, never for decisions. */
  toNumber(): number {
    return Number(`${this.mantissa}e${this.exponent}`);
  }

  /** The canonical form Kubernetes prints (apimachinery's `String()`). */
  toString(): string {
    if (this.mantissa === 0n) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      const small = new Quantity(abs(this.mantissa), this.exponent, format).compare(BINARY_MIN_SUFFIXED) < 0;
      // Below 1024 a binary suffix buys nothing; a fraction cannot be written in binary without
      // rounding. Both print as DecimalSI.
      if (small || this.exponent < 0) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      let value = this.mantissa * pow10(this.exponent);
      let power = 0;
      while (power < BINARY_SUFFIX_BY_POWER.length - 1 && value % 1024n === 0n) {
        value /= 1024n;
        power += 1;
      }
      return `${value}${BINARY_SUFFIX_BY_POWER[power]}`;
    }
    // The largest exponent that is a multiple of three and leaves no fractional digits.
    let mantissa = this.mantissa;
    let exponent = this.exponent;
    while (exponent % 3 !== 0) {
      mantissa *= TEN;
      exponent -= 1;
    }
    const suffix =
      format === 'DecimalSI' ? DECIMAL_SUFFIX_BY_EXPONENT.get(exponent) : exponent === 0 ? '' : undefined;
    // DecimalSI has no suffix beyond E (10^18) or below n: like apimachinery, fall back to e<exp>.
    return `${mantissa}${suffix ?? `e${exponent}`}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

const ONE = Quantity.fromInteger(1);
const MAX_INT64_QUANTITY = Quantity.fromInteger(MAX_INT64);
const BINARY_MIN_SUFFIXED = Quantity.fromInteger(1024);

function toBigInt(value: bigint | number): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value)) throw new RangeError(`expected a safe integer, got ${value}`);
  return BigInt(value);
}

/** Parses a Kubernetes quantity; throws `QuantityError` (code `InvalidQuantity`) naming the text. */
export function parseQuantity(text: string): Quantity {
  return Quantity.parse(text);
}

/**
 * `(to - from) / from × 100`, rounded half away from zero to one decimal, computed exactly.
 * `null` when `from` is zero: there is no percentage of nothing, and a table shows it as "new".
 */
export function percentChange(from: Quantity, to: Quantity): number | null {
  if (from.isZero()) return null;
  const [f, t] = align(from, to);
  const numerator = (t - f) * 1000n; // tenths of a percent, before dividing by f
  const negative = numerator < 0n !== f < 0n;
  const n = abs(numerator);
  const d = abs(f);
  let tenths = n / d;
  if ((n % d) * 2n >= d) tenths += 1n;
  if (tenths === 0n) return 0;
  return (negative ? -Number(tenths) : Number(tenths)) / 10;
}
