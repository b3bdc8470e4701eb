export interface Timing {
  medianMs: number;
  runs: number;
}

/** Median wall time of `runs` runs after one warm-up; gc between runs where exposed. */
export async function time(runs: number, task: () => Promise<unknown>): Promise<Timing> {
  await task();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const start = process.hrtime.bigint();
    await task();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(samples.length / 2)] ?? 0, runs };
}

export function peakRssMiB(): number {
  // maxRSS is in KiB on Linux.
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
