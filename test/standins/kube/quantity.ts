// Resource quantities as the kubelet simulator and resize validation compare them.

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/;

/** The value in base units (cores, bytes), or undefined when `text` is not a quantity. */
export function parseQuantity(text: unknown): number | undefined {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const mantissa = Number(match[1]);
  if (match[2]) return mantissa * 10 ** Number(match[2].slice(1));
  return mantissa * (SUFFIXES[match[3] ?? ''] ?? 1);
}

/**
 * Integer units the kubelet works in: millicores for cpu, bytes for memory (rounded up, as the
 * apiserver rounds a quantity to its smallest unit).
 */
export function resourceUnits(resource: string, value: unknown): number {
  const parsed = parseQuantity(value) ?? 0;
  return Math.ceil(Math.round((resource === 'cpu' ? parsed * 1000 : parsed) * 1e6) / 1e6);
}
