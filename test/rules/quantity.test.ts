import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseQuantity,
  percentChange,
  Quantity,
  QuantityError,
  type QuantityFormat,
} from '../../src/rules/quantity.js';

const q = parseQuantity;

/** The exact value as a plain decimal string, for tables (`500m` → "0.5"). */
function exact(quantity: Quantity): string {
  const { mantissa, exponent } = quantity;
  if (exponent >= 0) return (mantissa * 10n ** BigInt(exponent)).toString();
  const negative = mantissa < 0n;
  const digits = (negative ? -mantissa : mantissa).toString().padStart(-exponent + 1, '0');
  const point = digits.length + exponent;
  return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `mantissa × 10^exponent` in a format family, through the parser: the suffix picks the family. */
function scaled(mantissa: number, exponent: number, format: QuantityFormat): Quantity {
  if (format === 'DecimalExponent') return q(`${mantissa}e${exponent}`);
  const value = BigInt(mantissa) * 10n ** BigInt(Math.max(exponent, 0));
  const places = Math.max(-exponent, 0);
  // BinarySI as value / 1024 Ki, and 1/1024 = 5^10 / 10^10 is an exact decimal.
  const [digits, point] = format === 'BinarySI' ? [value * 5n ** 10n, places + 10] : [value, places];
  const text = digits.toString().padStart(point + 1, '0');
  return q(`${text.slice(0, text.length - point)}.${text.slice(text.length - point) || '0'}${format === 'BinarySI' ? 'Ki' : ''}`);
}

describe('parseQuantity: values and formats (apimachinery TestQuantityParse)', () => {
  // [input, exact value, format]
  const table: [string, string, QuantityFormat][] = [
    ['0', '0', 'DecimalSI'],
    ['0n', '0', 'DecimalSI'],
    ['0u', '0', 'DecimalSI'],
    ['0m', '0', 'DecimalSI'],
    ['0Ki', '0', 'BinarySI'],
    ['0k', '0', 'DecimalSI'],
    ['0Mi', '0', 'BinarySI'],
    ['0M', '0', 'DecimalSI'],
    ['0Gi', '0', 'BinarySI'],
    ['0G', '0', 'DecimalSI'],
    ['0Ti', '0', 'BinarySI'],
    ['0T', '0', 'DecimalSI'],
    ['1', '1', 'DecimalSI'],
    // binary suffixes
    ['1Ki', '1024', 'BinarySI'],
    ['8Ki', '8192', 'BinarySI'],
    ['7Mi', String(7 * 2 ** 20), 'BinarySI'],
    ['6Gi', String(6 * 2 ** 30), 'BinarySI'],
    ['5Ti', String(5 * 2 ** 40), 'BinarySI'],
    ['4Pi', String(4n * 2n ** 50n), 'BinarySI'],
    ['3Ei', String(3n * 2n ** 60n), 'BinarySI'],
    ['10Ti', String(10 * 2 ** 40), 'BinarySI'],
    ['100Ti', String(100 * 2 ** 40), 'BinarySI'],
    // decimal suffixes
    ['5n', '0.000000005', 'DecimalSI'],
    ['4u', '0.000004', 'DecimalSI'],
    ['3m', '0.003', 'DecimalSI'],
    ['9', '9', 'DecimalSI'],
    ['8k', '8000', 'DecimalSI'],
    ['50k', '50000', 'DecimalSI'],
    ['7M', '7000000', 'DecimalSI'],
    ['6G', '6000000000', 'DecimalSI'],
    ['5T', '5000000000000', 'DecimalSI'],
    ['40T', '40000000000000', 'DecimalSI'],
    ['300T', '300000000000000', 'DecimalSI'],
    ['2P', '2000000000000000', 'DecimalSI'],
    ['1E', '1000000000000000000', 'DecimalSI'],
    // decimal exponents
    ['1E-3', '0.001', 'DecimalExponent'],
    ['1e3', '1000', 'DecimalExponent'],
    ['1E6', '1000000', 'DecimalExponent'],
    ['1e9', '1000000000', 'DecimalExponent'],
    ['1E12', '1000000000000', 'DecimalExponent'],
    ['1e15', '1000000000000000', 'DecimalExponent'],
    ['1E18', '1000000000000000000', 'DecimalExponent'],
    ['1e14', '100000000000000', 'DecimalExponent'],
    ['1e13', '10000000000000', 'DecimalExponent'],
    ['100.035k', '100035', 'DecimalSI'],
    // things that look like floating point
    ['0.001', '0.001', 'DecimalSI'],
    ['0.0005k', '0.5', 'DecimalSI'],
    ['0.005', '0.005', 'DecimalSI'],
    ['0.05', '0.05', 'DecimalSI'],
    ['0.5', '0.5', 'DecimalSI'],
    ['0.00050k', '0.5', 'DecimalSI'],
    ['0.00500', '0.005', 'DecimalSI'],
    ['0.05000', '0.05', 'DecimalSI'],
    ['0.50000', '0.5', 'DecimalSI'],
    ['0.5e0', '0.5', 'DecimalExponent'],
    ['0.5e-1', '0.05', 'DecimalExponent'],
    ['0.5e-2', '0.005', 'DecimalExponent'],
    ['10.035M', '10035000', 'DecimalSI'],
    ['1.2e3', '1200', 'DecimalExponent'],
    ['1.3E+6', '1300000', 'DecimalExponent'],
    ['1.40e9', '1400000000', 'DecimalExponent'],
    ['1.53E12', '1530000000000', 'DecimalExponent'],
    ['1.6e15', '1600000000000000', 'DecimalExponent'],
    ['1.7E18', '1700000000000000000', 'DecimalExponent'],
    ['9.01', '9.01', 'DecimalSI'],
    ['8.1k', '8100', 'DecimalSI'],
    ['7.123456M', '7123456', 'DecimalSI'],
    ['6.987654321G', '6987654321', 'DecimalSI'],
    ['5.444T', '5444000000000', 'DecimalSI'],
    ['40.1T', '40100000000000', 'DecimalSI'],
    ['300.2T', '300200000000000', 'DecimalSI'],
    ['2.5P', '2500000000000000', 'DecimalSI'],
    ['1.01E', '1010000000000000000', 'DecimalSI'],
    // things that round up to nano, or saturate
    ['3.001n', '0.000000004', 'DecimalSI'],
    ['1.1E-9', '0.000000002', 'DecimalExponent'],
    ['0.0000000001', '0.000000001', 'DecimalSI'],
    ['0.0000000005', '0.000000001', 'DecimalSI'],
    ['0.00000000050', '0.000000001', 'DecimalSI'],
    ['0.5e-9', '0.000000001', 'DecimalExponent'],
    ['0.9n', '0.000000001', 'DecimalSI'],
    ['0.00000012345', '0.000000124', 'DecimalSI'],
    ['0.00000012354', '0.000000124', 'DecimalSI'],
    ['9Ei', '9223372036854775807', 'BinarySI'],
    ['9223372036854775807Ki', '9223372036854775807', 'BinarySI'],
    ['12E', '12000000000000000000', 'DecimalSI'],
    // fractional binary
    ['100.035Ki', '102435.84', 'BinarySI'],
    ['0.5Mi', '524288', 'BinarySI'],
    ['0.05Gi', '53687091.2', 'BinarySI'],
    ['0.025Ti', '27487790694.4', 'BinarySI'],
    // "things written by trolls"
    ['0.000000000001Ki', '0.000000002', 'DecimalSI'], // rounds up and changes format
    ['.001', '0.001', 'DecimalSI'],
    ['.0001k', '0.1', 'DecimalSI'],
    ['1.', '1', 'DecimalSI'],
    ['1.G', '1000000000', 'DecimalSI'],
    // from the brief
    ['1.5Gi', '1610612736', 'BinarySI'],
    ['402653184', '402653184', 'DecimalSI'],
    ['007', '7', 'DecimalSI'],
    ['1e-1000', '0.000000001', 'DecimalExponent'],
    ['0e5000', '0', 'DecimalExponent'],
    ['18446744073709551616', '18446744073709551616', 'DecimalSI'], // decimal is not capped
  ];

  it.each(table)('%s = %s (%s)', (input, value, format) => {
    const parsed = q(input);
    expect(exact(parsed)).toBe(value);
    expect(parsed.format).toBe(format);
  });

  it.each(table)('-%s is the negation, same format', (input, value, format) => {
    const parsed = q(`-${input}`);
    expect(exact(parsed)).toBe(value === '0' ? '0' : `-${value}`);
    expect(parsed.format).toBe(format);
  });

  it.each(table)('+%s is the same value', (input, value, format) => {
    const parsed = q(`+${input}`);
    expect(exact(parsed)).toBe(value);
    expect(parsed.format).toBe(format);
  });
});

describe('parseQuantity: rejects', () => {
  const invalid = [
    // apimachinery's own invalid list
    '1.1.M',
    '1+1.0M',
    '0.1mi',
    '0.1am',
    'aoeu',
    '.5i',
    '1i',
    '-3.01i',
    '-3.01e-',
    ' 1',
    '1 ',
    'Non-Numeric',
    // from the brief and the grammar
    '',
    '1.2.3',
    'Mi',
    '1 Gi',
    '1mi',
    '1KB',
    '1K',
    '1ki',
    '1e',
    '1E+',
    '1e1.5',
    '1e3i',
    '1e1e1',
    '--1',
    '+-1',
    '0x10',
    '1Mi1',
    '1GiB',
    '1mm',
    '1Kii',
    '1b',
    '∞',
    'NaN',
    '1,5',
    '1_000',
    '1\n',
    // no digits (apimachinery's scanner reads these as zero; its grammar does not allow them)
    '.',
    '-',
    '+',
    '-.',
    'k',
    'm',
    'E',
    '.Mi',
    'e3',
    // out of range
    '1e2147483648',
    '1e-2147483649',
    '1e99999999999999999999',
    '1e1000',
  ];

  it.each(invalid)('%j is rejected with InvalidQuantity naming it', (input) => {
    let caught: unknown;
    try {
      q(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuantityError);
    const error = caught as QuantityError;
    expect(error.code).toBe('InvalidQuantity');
    expect(error.value).toBe(input);
    expect(error.message).toContain(JSON.stringify(input));
  });

  it('rejects non-strings without a TypeError', () => {
    expect(() => q(1 as unknown as string)).toThrow(QuantityError);
  });

  it('accepts the largest exponent that stays in range', () => {
    expect(q('1e999').compare(q('9e998'))).toBe(1);
    expect(() => q('1e-2147483648')).not.toThrow();
  });
});

describe('canonical String() (apimachinery TestQuantityString, TestQuantityParseEmit)', () => {
  // [built value, canonical form, alternate spelling that canonicalises to it]
  const table: [Quantity, string, string | null][] = [
    [scaled(1024 * 1024 * 1024, 0, 'BinarySI'), '1Gi', '1024Mi'],
    [scaled(300 * 1024 * 1024, 0, 'BinarySI'), '300Mi', '307200Ki'],
    [scaled(6 * 1024, 0, 'BinarySI'), '6Ki', null],
    [scaled(1001 * 1024 * 1024 * 1024, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
    [scaled(1024 * 1024 * 1024 * 1024, 0, 'BinarySI'), '1Ti', '1024Gi'],
    [scaled(5, 0, 'BinarySI'), '5', '5000m'],
    [scaled(500, -3, 'BinarySI'), '500m', '0.5'],
    [scaled(1, 9, 'DecimalSI'), '1G', '1000M'],
    [scaled(1000, 6, 'DecimalSI'), '1G', '0.001T'],
    [scaled(1000000, 3, 'DecimalSI'), '1G', null],
    [scaled(1000000000, 0, 'DecimalSI'), '1G', null],
    [scaled(1, -3, 'DecimalSI'), '1m', '1000u'],
    [scaled(80, -3, 'DecimalSI'), '80m', null],
    [scaled(1080, -3, 'DecimalSI'), '1080m', '1.08'],
    [scaled(108, -2, 'DecimalSI'), '1080m', '1080000000n'],
    [scaled(10800, -4, 'DecimalSI'), '1080m', null],
    [scaled(300, 6, 'DecimalSI'), '300M', null],
    [scaled(1, 12, 'DecimalSI'), '1T', null],
    [scaled(1, 18, 'DecimalSI'), '1E', null],
    [scaled(1, 21, 'DecimalSI'), '1e21', '1000E'],
    [scaled(5, 21, 'DecimalSI'), '5e21', '5000E'],
    [scaled(1, 24, 'DecimalSI'), '1e24', '1000000E'],
    [scaled(1234567, 6, 'DecimalSI'), '1234567M', null],
    [scaled(1234567, -3, 'BinarySI'), '1234567m', null],
    [scaled(3, 3, 'DecimalSI'), '3k', null],
    [scaled(1025, 0, 'BinarySI'), '1025', null],
    [scaled(0, 0, 'DecimalSI'), '0', null],
    [scaled(0, 0, 'BinarySI'), '0', null],
    [scaled(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
    [scaled(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
    [scaled(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
    [scaled(80, -3, 'DecimalExponent'), '80e-3', null],
    [scaled(300, 6, 'DecimalExponent'), '300e6', null],
    [scaled(1, 12, 'DecimalExponent'), '1e12', null],
    [scaled(1, 3, 'DecimalExponent'), '1e3', null],
    [scaled(3, 3, 'DecimalExponent'), '3e3', null],
    [scaled(0, 0, 'DecimalExponent'), '0', '00'],
    [scaled(1, -9, 'DecimalSI'), '1n', null],
    [scaled(80, -9, 'DecimalSI'), '80n', null],
    [scaled(1080, -9, 'DecimalSI'), '1080n', null],
    [scaled(108, -8, 'DecimalSI'), '1080n', null],
    [scaled(10800, -10, 'DecimalSI'), '1080n', null],
    [scaled(1, -6, 'DecimalSI'), '1u', null],
    [scaled(80, -6, 'DecimalSI'), '80u', null],
    [scaled(1080, -6, 'DecimalSI'), '1080u', null],
  ];

  it.each(table)('%s prints as %s', (value, canonical, alternate) => {
    expect(value.toString()).toBe(canonical);
    expect(q(canonical).toString()).toBe(canonical);
    expect(q(canonical).equals(value)).toBe(true);
    if (alternate !== null) expect(q(alternate).toString()).toBe(canonical);
  });

  const emit: [string, string][] = [
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    // the Quantity doc's examples and the brief's
    ['1.5', '1500m'],
    ['1.5Gi', '1536Mi'],
    ['1.2345', '1234500u'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['402653184', '402653184'],
    ['384Mi', '384Mi'],
    ['1n', '1n'], // no rounding to milli when printing: parsing keeps nano
    ['1.5Ki', '1536'],
    ['0.5Ki', '512'],
    ['100.035Ki', '102435840m'],
    ['1.0001Ki', '1024102400u'],
    ['9Ei', '9223372036854775807'],
    ['1.5e3', '1500'],
    ['1e0', '1'],
    ['2000e-3', '2'],
    ['0.1e-2', '1e-3'],
    ['12E', '12E'],
    ['1000E', '1e21'],
    ['-0', '0'],
    ['-0Mi', '0'],
    ['250m', '250m'],
    ['0.25', '250m'],
    ['2048Ki', '2Mi'],
    ['1536Ki', '1536Ki'],
    ['1G', '1G'],
    ['1000k', '1M'],
  ];

  it.each(emit)('%s is emitted as %s (and -%s as its negation)', (input, expected) => {
    expect(String(q(input))).toBe(expected);
    expect(JSON.stringify({ v: q(input) })).toBe(JSON.stringify({ v: expected }));
    const negated = q(`-${input.replace(/^-/, '')}`);
    if (!negated.isZero()) expect(negated.toString()).toBe(`-${expected}`);
  });

  it('prints BinarySI beyond Ei with the Ei suffix instead of dropping the exponent', () => {
    expect(Quantity.fromInteger(2n * (2n ** 63n - 1n), 'BinarySI').toString()).toBe('18446744073709551614');
    expect(Quantity.fromInteger(2n ** 70n, 'BinarySI').toString()).toBe('1024Ei');
    expect(Quantity.fromInteger(2n ** 64n, 'BinarySI').toString()).toBe('16Ei');
  });
});

describe('compare', () => {
  // [x, y, expected] — apimachinery TestQuantityCmp plus cross-family cases
  const table: [string, string, -1 | 0 | 1][] = [
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1Gi', '1G', 1],
    ['1G', '1Gi', -1],
    ['1000m', '1', 0],
    ['0.5', '500m', 0],
    ['402653184', '384Mi', 0],
    ['1Ki', '1k', 1],
    ['1024', '1Ki', 0],
    ['1e3', '1k', 0],
    ['1E-3', '1m', 0],
    ['1.5Gi', '1536Mi', 0],
    ['0Mi', '0', 0],
    ['-0', '0', 0],
    ['-1', '1n', -1],
    ['-1', '-2', 1],
    ['-1Gi', '-1G', -1],
    ['1n', '0', 1],
    ['999999999n', '1', -1],
    ['1000000001n', '1', 1],
    ['1e999', '1', 1],
    ['1e-1000', '1n', 0],
    ['12E', '9Ei', 1],
    ['9Ei', '8Ei', 0], // both capped at 2^63-1
  ];

  it.each(table)('%s vs %s → %d', (x, y, expected) => {
    expect(q(x).compare(q(y))).toBe(expected);
    expect(q(y).compare(q(x))).toBe(-expected || 0);
    expect(q(x).equals(q(y))).toBe(expected === 0);
  });

  it('sign and isZero', () => {
    expect(q('-5m').sign()).toBe(-1);
    expect(q('0Gi').sign()).toBe(0);
    expect(q('0Gi').isZero()).toBe(true);
    expect(q('1n').sign()).toBe(1);
    expect(q('1n').isZero()).toBe(false);
  });
});

describe('construction', () => {
  it('builds from integers and millis like NewQuantity / NewMilliQuantity', () => {
    expect(Quantity.fromInteger(1000).toString()).toBe('1k');
    expect(Quantity.fromInteger(1234000).toString()).toBe('1234k');
    expect(Quantity.fromInteger(1024, 'BinarySI').toString()).toBe('1Ki');
    expect(Quantity.fromInteger(1000000, 'DecimalExponent').toString()).toBe('1e6');
    expect(Quantity.fromInteger(1024 * 1024, 'BinarySI').toString()).toBe('1Mi');
    expect(Quantity.fromMilli(1).toString()).toBe('1m');
    expect(Quantity.fromMilli(1000).toString()).toBe('1');
    expect(Quantity.fromMilli(1234000).toString()).toBe('1234');
    expect(Quantity.fromMilli(1024, 'BinarySI').toString()).toBe('1024m');
    expect(Quantity.fromMilli(1000000, 'DecimalExponent').toString()).toBe('1e3');
    expect(Quantity.fromMilli(1024 * 1024, 'BinarySI').toString()).toBe('1048576m');
    expect(Quantity.zero.toString()).toBe('0');
    expect(() => Quantity.fromInteger(0.5)).toThrow(RangeError);
  });
});

describe('toMilli, toInteger, toNumber', () => {
  it.each([
    ['1', 1000n, 1n],
    ['500m', 500n, 1n],
    ['1n', 1n, 1n], // rounds up, as MilliValue and Value do
    ['1500u', 2n, 1n],
    ['1.5', 1500n, 2n],
    ['2Ki', 2048000n, 2048n],
    ['0', 0n, 0n],
    ['-1500u', -2n, -1n], // away from zero
    ['-1.5', -1500n, -2n],
    ['1e-9', 1n, 1n],
    ['12E', 12000000000000000000000n, 12000000000000000000n], // no int64 overflow
  ] as const)('%s → %s milli, %s whole', (input, milli, whole) => {
    expect(q(input).toMilli()).toBe(milli);
    expect(q(input).toInteger()).toBe(whole);
  });

  it('toNumber is for display', () => {
    expect(q('1.5Gi').toNumber()).toBe(1610612736);
    expect(q('250m').toNumber()).toBe(0.25);
    expect(q('-3n').toNumber()).toBe(-3e-9);
  });
});

describe('percentChange', () => {
  it.each([
    ['100m', '150m', 50],
    ['1', '500m', -50],
    ['1Gi', '1Gi', 0],
    ['1Gi', '1536Mi', 50],
    ['384Mi', '512Mi', 33.3],
    ['3', '1', -66.7],
    ['3', '2', -33.3],
    ['1', '1.0005', 0.1], // 0.05 rounds half away from zero
    ['1', '0.9995', -0.1],
    ['1', '1.0004', 0],
    ['8', '1', -87.5],
    ['1n', '1', 99999999900],
    ['1G', '1Gi', 7.4],
  ] as const)('%s → %s is %d%%', (from, to, expected) => {
    expect(percentChange(q(from), q(to))).toBe(expected);
  });

  it('is null from zero', () => {
    expect(percentChange(q('0'), q('100m'))).toBeNull();
    expect(percentChange(q('0'), q('0'))).toBeNull();
  });
});

describe('properties', () => {
  const suffix = fc.constantFrom(
    'n', 'u', 'm', '', 'k', 'M', 'G', 'T', 'P', 'E',
    'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei',
    'e0', 'e3', 'E-3', 'e+6', 'e-9', 'E12', 'e-12', 'e21',
  );
  const quantityText = fc
    .record({
      sign: fc.constantFrom('', '+', '-'),
      whole: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.bigInt({ min: 0n, max: 2000n })),
      fraction: fc.oneof(fc.constant(null), fc.stringMatching(/^[0-9]{0,12}$/)),
      suffix,
    })
    .map(({ sign, whole, fraction, suffix: s }) => `${sign}${whole}${fraction === null ? '' : `.${fraction}`}${s}`);
  const quantity = quantityText.map((text) => q(text));

  it('format then parse is the identity on the value, and the canonical form is a fixed point', () => {
    fc.assert(
      fc.property(quantity, (value) => {
        const printed = value.toString();
        const reparsed = q(printed);
        expect(reparsed.compare(value)).toBe(0);
        expect(reparsed.toString()).toBe(printed);
      }),
      { numRuns: 2000 },
    );
  });

  it('compare agrees with the sign of the difference, and is antisymmetric', () => {
    fc.assert(
      fc.property(quantity, quantity, (a, b) => {
        const exponent = Math.min(a.exponent, b.exponent);
        const difference = a.mantissa * 10n ** BigInt(a.exponent - exponent) - b.mantissa * 10n ** BigInt(b.exponent - exponent);
        expect(a.compare(b)).toBe(difference === 0n ? 0 : difference < 0n ? -1 : 1);
        expect(b.compare(a)).toBe(-a.compare(b) || 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('compare agrees with the milli values where they differ', () => {
    fc.assert(
      fc.property(quantity, quantity, (a, b) => {
        const ma = a.toMilli();
        const mb = b.toMilli();
        if (ma < mb) expect(a.compare(b)).toBe(-1);
        if (ma > mb) expect(a.compare(b)).toBe(1);
      }),
    );
  });

  it('every generated text is valid, and parsing never throws anything but QuantityError', () => {
    fc.assert(fc.property(quantityText, (text) => void q(text)));
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        try {
          q(text);
        } catch (error) {
          expect(error).toBeInstanceOf(QuantityError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
