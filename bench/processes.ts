// Whole processes, as a user runs them: wall time from spawn to exit, and the child's own peak RSS
// and CPU time (all its threads: kerf scans and edits big repos on worker threads), which it
// reports itself (`process.resourceUsage()`, through a preloaded exit hook) into a file, since
// neither /usr/bin/time nor the child's /proc entry outlives it.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export interface ProcessRun {
  ms: number;
  /** User and system CPU time of all the process's threads. */
  cpuMs: number;
  peakMiB: number;
  stdout: string;
  code: number | null;
}

const REPORT_RSS = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.KERF_BENCH_RSS_FILE, JSON.stringify(process.resourceUsage())));',
)}`;

/** Runs `node <script> ...args` from the repo root; `script` is relative to it (e.g. lib/cli.js). */
export async function runNode(script: string, args: readonly string[], timeoutMs = 600_000): Promise<ProcessRun> {
  const scratch = await mkdtemp(join(tmpdir(), 'kerf-bench-rss-'));
  const rssFile = join(scratch, 'maxrss');
  try {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', REPORT_RSS, join(repoRoot(), script), ...args], {
      env: { ...process.env, KERF_BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exit, signal) => (signal ? reject(new Error(`${script} ${args[0] ?? ''} was killed by ${signal} (timeout ${timeoutMs} ms?)`)) : resolve(exit)));
    });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const stdout = Buffer.concat(out).toString();
    if (code !== 0 && code !== 1) throw new Error(`${script} ${args[0] ?? ''} exited ${code}: ${stderr.trim().split('\n').slice(-2).join(' ')}`);
    // maxRSS is in KiB on Linux, the CPU times in µs.
    const usage = JSON.parse(await readFile(rssFile, 'utf8')) as NodeJS.ResourceUsage;
    return { ms, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, peakMiB: usage.maxRSS / 1024, stdout, code };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The run of median wall time among `runs` runs of `task`. */
export async function medianRun(runs: number, task: (run: number) => Promise<ProcessRun>): Promise<ProcessRun & { runs: number }> {
  const results: ProcessRun[] = [];
  for (let i = 0; i < runs; i++) results.push(await task(i));
  results.sort((a, b) => a.ms - b.ms);
  const median = results[Math.floor(results.length / 2)] as ProcessRun;
  return { ...median, runs };
}
