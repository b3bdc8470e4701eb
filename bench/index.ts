// `npm run bench`: the performance targets of the issues, printed as figures with their bar or
// goal. The exit code is 1 when a hard bar is missed (or a benchmark cannot run); goals are
// reported, not enforced. Plan and write run as whole processes, as users run them.
//
// The benchmarks against the stand-ins are imported only when they run (the bundle is split), so
// the stand-ins' packages are loaded only for them.
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { GeneratedRepo, RepoShape } from './generate.js';
import type { ProcessRun } from './processes.js';
import { benchmarkRepo } from './repo.js';
import type { MedianRun, WebhookBenchmark } from './webhook-latency.js';

/** KERF_BENCH_QUICK=1: tiny repos, one run, no stand-in benchmarks, bars reported but not enforced (the suite's smoke test). */
const QUICK = process.env.KERF_BENCH_QUICK === '1';
/** KERF_BENCH_ONLY=name,name: only these sections (as named in their first line). */
const ONLY = process.env.KERF_BENCH_ONLY;
const BAR = '  ← OVER THE BAR';
const GOAL = '  ← over the goal';
const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const plural = (count: number, word: string, suffix = 's') => `${count} ${word}${count === 1 ? '' : suffix}`;

/** Runs one benchmark; one that throws is reported and fails the run, and the others go on. */
async function section(name: string, run: () => Promise<void>): Promise<void> {
  if (ONLY && !ONLY.split(',').includes(name)) return;
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
    execFile(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), WEBHOOK_CHILD], { timeout: 300_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message.split('\n')[0]} ${stderr.trim().split('\n').slice(-2).join(' ')}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as WebhookBenchmark);
    });
  });
}

/** One figure against its bar (a miss fails the run) and its goal (reported only). */
function row(label: string, value: number, shown: string, bar: number, goal: number, unit = ''): string {
  const over = value > bar;
  if (over && !QUICK) process.exitCode = 1;
  return `  ${label.padEnd(17)}${shown} (bar ≤ ${bar}${unit}, goal ≤ ${goal}${unit})${over ? BAR : value > goal ? GOAL : ''}`;
}

const seconds = (run: ProcessRun) => `${(run.ms / 1000).toFixed(2)} s`;
const mib = (run: ProcessRun) => `${run.peakMiB.toFixed(0)} MiB`;
const cpu = (run: ProcessRun) => `CPU ${(run.cpuMs / 1000).toFixed(2)} s`;
/** Times are wall clock; kerf puts a big repo's scan and edits on worker threads, one per core (up to 4), the bare parse runs on one. */
const cores = () => `${plural(availableParallelism(), 'core')}, kerf on worker threads, the bare parse on one`;
const describe = (repo: GeneratedRepo) =>
  `${repo.workloads.toLocaleString('en')} workloads, ${repo.documents.toLocaleString('en')} documents in ${repo.files.toLocaleString('en')} files, ${(repo.bytes / 2 ** 20).toFixed(1)} MiB`;

// Shaped as the issue measured: 50 namespaces of 100 workloads at 5,000; ten times the namespaces at 50,000.
const SMALL: RepoShape = QUICK ? { namespaces: 6, perNamespace: 5, perFile: 2, kustomizeEvery: 3 } : { namespaces: 50, perNamespace: 100, perFile: 10 };
const LARGE: RepoShape = QUICK ? { namespaces: 8, perNamespace: 5, perFile: 5 } : { namespaces: 500, perNamespace: 100, perFile: 10 };
const ONE_FILE: RepoShape = QUICK ? { namespaces: 1, perNamespace: 20, kustomizeEvery: 0 } : { namespaces: 1, perNamespace: 1000, kustomizeEvery: 0 };
const RUNS = QUICK ? 1 : 3;

async function main(): Promise<void> {
  await section('plan and write', async () => {
    const { repo, bareParse, plan, write } = await benchmarkRepo(SMALL, { runs: RUNS, write: true });
    if (!write) throw new Error('benchmark: write did not run');
    console.log(`plan and write: whole kerf-gitops processes on ${describe(repo)}; median of ${RUNS}; ${cores()}`);
    console.log(`  bare yaml parse  ${seconds(bareParse)}, ${cpu(bareParse)}, peak RSS ${mib(bareParse)} (its own process)`);
    console.log(`  plan             ${seconds(plan)}, ${cpu(plan)}, peak RSS ${mib(plan)}`);
    console.log(row('plan ÷ parse', plan.ms / bareParse.ms, (plan.ms / bareParse.ms).toFixed(2), 1.5, 0.7));
    console.log(`  write            ${seconds(write)}, ${cpu(write)}, peak RSS ${mib(write)}: ${write.written} files edited for ${write.pullRequests} pull-request decisions${write.errors > 0 ? `, ${write.errors} refused` : ''} (a fresh copy per run)`);
    console.log(row('write ÷ parse', write.ms / bareParse.ms, (write.ms / bareParse.ms).toFixed(2), 2, 1.2));
  });

  await section('plan at scale', async () => {
    const { repo, bareParse, plan } = await benchmarkRepo(LARGE, { runs: 1, write: false });
    console.log(`plan at scale: whole kerf-gitops plan on ${describe(repo)}; ${cores()}`);
    console.log(`  bare yaml parse  ${seconds(bareParse)}, ${cpu(bareParse)}, peak RSS ${mib(bareParse)}`);
    console.log(`  plan             ${cpu(plan)}`);
    console.log(row('plan time', plan.ms / 1000, seconds(plan), 40, 25, ' s'));
    console.log(row('plan peak RSS', plan.peakMiB, mib(plan), 700, 400, ' MiB'));
    console.log(`  plan ÷ parse     ${(plan.ms / bareParse.ms).toFixed(2)} in time, ${(plan.peakMiB / bareParse.peakMiB).toFixed(2)} in memory`);
  });

  await section('write in one file', async () => {
    const { repo, plan, write } = await benchmarkRepo(ONE_FILE, { runs: RUNS, write: true });
    if (!write) throw new Error('benchmark: write did not run');
    console.log(`write in one file: ${write.pullRequests} workloads changed in one file of ${describe(repo)}`);
    console.log(`  plan             ${seconds(plan)}`);
    console.log(`  write            ${seconds(write)}${write.errors > 0 ? `, ${write.errors} refused` : ''}`);
    console.log(row('write ÷ plan', write.ms / plan.ms, (write.ms / plan.ms).toFixed(2), 2, 1.5));
  });
  if (QUICK) return;

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
    const line = (label: string, run: MedianRun) => {
      if (run.failed > 0) process.exitCode = 1;
      const runs = `median of ${run.p99sMs.length} runs' p99 ${run.p99sMs.map(ms).join(', ')} ms`;
      return row(label, run.p99Ms, `p99 ${ms(run.p99Ms)} ms (p50 ${ms(run.p50Ms)}, max ${ms(run.maxMs)}) over ${run.requests} requests at ${run.ratePerSecond.toFixed(0)}/s; ${runs}${run.failed > 0 ? `, ${run.failed} FAILED` : ''}`, 3, 2, ' ms');
    };
    console.log(`webhook latency: the helper process's HTTPS webhook, pod CREATE AdmissionReviews of ${result.requestBytes} bytes answered with ${result.patchOps} patch ops, keep-alive, client on the same 2 cores`);
    console.log(line(`concurrency ${result.concurrency.concurrency}`, result.concurrency));
    console.log(line(`offered ${result.openLoop.offeredPerSecond}/s`, result.openLoop));
  });

  await section('helper memory', async () => {
    const { benchmarkHelperMemory } = await import('./helper-memory.js');
    const result = await benchmarkHelperMemory();
    console.log(`helper memory: the helper process watching ${result.pods} pods (${(result.podBytes / 1024).toFixed(1)} KiB of JSON each), 200 Deployments with recommendations, 100 nodes; then 2,000 pod updates`);
    console.log(`  idle RSS         ${result.idleMiB.toFixed(0)} MiB (a helper watching an empty cluster)`);
    console.log(`  started in       ${result.startMs.toFixed(0)} ms (caches listed)`);
    console.log(`  RSS              ${result.listedMiB.toFixed(0)} MiB listed, ${result.endMiB.toFixed(0)} MiB after the updates`);
    console.log(row('peak RSS', result.peakMiB, `${result.peakMiB.toFixed(0)} MiB`, 150, 100, ' MiB'));
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
