// `npm run bench`: the performance targets of the issues, printed as figures with their bar or
// goal. The exit code is 1 when a hard bar is missed (or a benchmark cannot run); goals are
// reported, not enforced.
//
// The benchmarks against the stand-ins are imported only when they run (the bundle is split), so
// the stand-ins' packages are not in memory while plan and write are measured.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateRepo } from './generate.js';
import { peakRssMiB, time } from './measure.js';
import { bareParse, plan } from './plan.js';
import type { LatencyRun, WebhookBenchmark } from './webhook-latency.js';
import { benchmarkWrite } from './write.js';

const BAR = '  ← OVER THE BAR';
const GOAL = '  ← over the goal';
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const plural = (count: number, word: string, suffix = 's') => `${count} ${word}${count === 1 ? '' : suffix}`;

/** Runs one benchmark; one that throws is reported and fails the run, and the others go on. */
async function section(name: string, run: () => Promise<void>): Promise<void> {
  globalThis.gc?.();
  try {
    await run();
  } catch (error) {
    console.log(`${name}: FAILED: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

// The webhook's load client runs in a fresh process (this same script): here, after plan and
// write, the heap is large and its GC pauses would count against the server.
const WEBHOOK_CHILD = 'webhook-latency-child';

function webhookInChild(): Promise<WebhookBenchmark> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), WEBHOOK_CHILD], { timeout: 180_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message.split('\n')[0]} ${stderr.trim().split('\n').slice(-2).join(' ')}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as WebhookBenchmark);
    });
  });
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'kerf-bench-'));
  try {
    const repo = await generateRepo(root, 50, 100);
    const now = new Date('2026-12-02T10:00:00Z');
    const parse = await time(5, () => bareParse(root));
    await section('plan', async () => {
      const planned = await time(5, () => plan(root, now));
      const ratio = planned.medianMs / parse.medianMs;
      console.log(`plan: ${repo.workloads} workloads in 50 namespaces (${repo.files} files)`);
      console.log(`  bare yaml parse  ${parse.medianMs.toFixed(0)} ms (median of ${parse.runs})`);
      console.log(`  plan             ${planned.medianMs.toFixed(0)} ms (median of ${planned.runs})`);
      console.log(`  ratio            ${ratio.toFixed(2)} (bar ≤ 2, goal 1.5)${ratio <= 2 ? '' : BAR}`);
      console.log(`  peak RSS         ${peakRssMiB()} MiB`);
      if (ratio > 2) process.exitCode = 1;
    });

    await section('write', async () => {
      const written = await benchmarkWrite(root, now, 3);
      const ratio = written.medianMs / parse.medianMs;
      const { last, phases } = written;
      console.log(`write: the same repo, ${last.pullRequests} pull-request decisions of ${last.decisions}, ${last.written} files edited (a fresh copy per run)`);
      console.log(`  write            ${written.medianMs.toFixed(0)} ms (median of ${written.runs}: plan ${phases.planMs.toFixed(0)}, edits ${phases.editsMs.toFixed(0)}, atomic writes ${phases.writeMs.toFixed(0)})`);
      console.log(`  ratio            ${ratio.toFixed(2)} to the bare parse (bar ≤ 2.5)${ratio <= 2.5 ? '' : BAR}`);
      console.log(`  peak RSS         ${peakRssMiB()} MiB (plan and write)`);
      if (ratio > 2.5) process.exitCode = 1;
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }

  await section('github requests', async () => {
    const { countGitHubRequests } = await import('./github-requests.js');
    const counts = await countGitHubRequests(10, 10);
    const prs = counts.pullRequests;
    const perPr = counts.first.requests / prs;
    const { unchanged, oneChanged } = counts;
    const run = (counted: typeof unchanged) => `${plural(counted.requests, 'request')} (${plural(counted.writes, 'write')}, ${plural(counted.pushes, 'push', 'es')})`;
    console.log(`github requests: reconcile of ${counts.workloads} changed workloads grouped per namespace (${prs} PRs), against the stand-ins`);
    console.log(`  opening          ${run(counts.first)} = ${perPr.toFixed(1)} per PR (goal: a handful per PR)${perPr <= 10 ? '' : GOAL}`);
    console.log(`  nothing new      ${run(unchanged)} for ${prs} unchanged PRs (goal: none per unchanged PR)${unchanged.writes === 0 && unchanged.pushes === 0 && unchanged.requests < prs ? '' : GOAL}`);
    console.log(`  one PR changed   ${run(oneChanged)}${oneChanged.pushes <= 1 && oneChanged.requests - unchanged.requests <= 10 ? '' : GOAL}`);
  });

  await section('webhook latency', async () => {
    const result = await webhookInChild();
    const line = (label: string, run: LatencyRun) =>
      `  ${label.padEnd(17)}p50 ${ms(run.p50Ms)} ms, p99 ${ms(run.p99Ms)} ms, max ${ms(run.maxMs)} ms over ${run.requests} requests at ${run.ratePerSecond.toFixed(0)}/s${run.failed > 0 ? `, ${run.failed} failed` : ''} (goal p99 ≤ 5 ms)${run.p99Ms <= 5 && run.failed === 0 ? '' : GOAL}`;
    console.log(`webhook latency: the helper process's HTTPS webhook, pod CREATE AdmissionReviews of ${result.requestBytes} bytes answered with ${result.patchOps} patch ops, keep-alive, client on the same 2 cores`);
    console.log(line(`concurrency ${result.concurrency.concurrency}`, result.concurrency));
    console.log(line(`offered ${result.openLoop.offeredPerSecond}/s`, result.openLoop));
  });

  await section('helper memory', async () => {
    const { benchmarkHelperMemory } = await import('./helper-memory.js');
    const result = await benchmarkHelperMemory();
    console.log(`helper memory: the helper process watching ${result.pods} pods (${(result.podBytes / 1024).toFixed(1)} KiB of JSON each), 200 Deployments with recommendations, 100 nodes; then 2,000 pod updates`);
    console.log(`  started in       ${result.startMs.toFixed(0)} ms (caches listed)`);
    console.log(`  RSS              ${result.listedMiB.toFixed(0)} MiB listed, ${result.endMiB.toFixed(0)} MiB after the updates`);
    console.log(`  peak RSS         ${result.peakMiB.toFixed(0)} MiB (goal ≤ 150 MiB)${result.peakMiB <= 150 ? '' : GOAL}`);
  });

  await section('resize', async () => {
    const { benchmarkResize } = await import('./resize.js');
    const result = await benchmarkResize(50, 10);
    console.log(`resize: recommendation to all pods of a ${result.pods}-pod Deployment resized in place (helper process, stand-in kubelets every ${result.kubeletIntervalMs} ms)`);
    console.log(`  all pods resized ${result.allResizedMs.toFixed(0)} ms (${(result.allResizedMs / result.pods).toFixed(1)} ms per pod, one at a time)`);
    console.log(`  status Applied   ${result.appliedMs.toFixed(0)} ms`);
  });
}

if (process.argv[2] === WEBHOOK_CHILD) {
  const { benchmarkWebhook } = await import('./webhook-latency.js');
  console.log(JSON.stringify(await benchmarkWebhook()));
} else {
  await main();
}
