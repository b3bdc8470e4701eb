// `npm run bench`: the performance targets of the issues, printed as figures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRepo } from './generate.js';
import { peakRssMiB, time } from './measure.js';
import { bareParse, plan } from './plan.js';

const root = await mkdtemp(join(tmpdir(), 'kerf-bench-'));
try {
  const repo = await generateRepo(root, 50, 100);
  const now = new Date('2026-12-02T10:00:00Z');
  const parse = await time(5, () => bareParse(root));
  const planned = await time(5, () => plan(root, now));
  const ratio = planned.medianMs / parse.medianMs;
  console.log(`plan: ${repo.workloads} workloads in 50 namespaces (${repo.files} files)`);
  console.log(`  bare yaml parse  ${parse.medianMs.toFixed(0)} ms (median of ${parse.runs})`);
  console.log(`  plan             ${planned.medianMs.toFixed(0)} ms (median of ${planned.runs})`);
  console.log(`  ratio            ${ratio.toFixed(2)} (bar ≤ 2, goal 1.5)${ratio <= 2 ? '' : '  ← OVER THE BAR'}`);
  console.log(`  peak RSS         ${peakRssMiB()} MiB`);
  if (ratio > 2) process.exitCode = 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
