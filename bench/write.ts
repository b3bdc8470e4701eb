// `write` on the plan benchmark's repo against the bare parse (issue 3: ratio ≤ 2.5): plan, the
// edits of every pull-request decision, and each edited file written through writeFilesAtomic
// (temp file, fsync, rename), as `kerf-gitops write` does, on a fresh copy of the repo per run.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planEdits } from '../src/gitops/edits.js';
import { runPlan } from '../src/gitops/run-plan.js';
import { writeFilesAtomic } from '../src/manifests/atomic-write.js';
import { time } from './measure.js';

export interface WriteRun {
  decisions: number;
  pullRequests: number;
  written: number;
  planMs: number;
  editsMs: number;
  writeMs: number;
}

export interface WriteBenchmark {
  medianMs: number;
  runs: number;
  /** Figures of the last run (the same edits every run). */
  last: WriteRun;
  /** Median of each phase over the timed runs. */
  phases: { planMs: number; editsMs: number; writeMs: number };
}

const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** What `kerf-gitops write --repo <repo>` does, minus printing the plan. */
export async function writeOnce(repo: string, now: Date): Promise<WriteRun> {
  let start = process.hrtime.bigint();
  const { plan, index } = await runPlan({ repo, recommendations: [], now, fleetPaused: false });
  if (plan.errors.length > 0) throw new Error(`benchmark write: plan has errors: ${plan.errors[0]?.message}`);
  const planMs = since(start);
  start = process.hrtime.bigint();
  const { edits, errors } = planEdits(index, plan.decisions);
  if (errors.length > 0) throw new Error(`benchmark write: edit refused: ${errors[0]?.message}`);
  const editsMs = since(start);
  start = process.hrtime.bigint();
  await writeFilesAtomic(repo, edits.map((edit) => ({ path: edit.path, content: edit.after })));
  const writeMs = since(start);
  const pullRequests = plan.decisions.filter((decision) => decision.action === 'pull-request').length;
  return { decisions: plan.decisions.length, pullRequests, written: edits.length, planMs, editsMs, writeMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** `runs` timed runs after one warm-up, each on its own copy of `source` (copies made beforehand, untimed). */
export async function benchmarkWrite(source: string, now: Date, runs = 5): Promise<WriteBenchmark> {
  const scratch = await mkdtemp(join(tmpdir(), 'kerf-bench-write-'));
  try {
    const copies: string[] = [];
    for (let i = 0; i <= runs; i++) {
      const copy = join(scratch, `copy-${i}`);
      await cp(source, copy, { recursive: true });
      copies.push(copy);
    }
    const results: WriteRun[] = [];
    let next = 0;
    const timing = await time(runs, async () => {
      const copy = copies[next++];
      if (copy === undefined) throw new Error('benchmark write: ran out of repo copies');
      results.push(await writeOnce(copy, now));
    });
    const timed = results.slice(1);
    const last = results.at(-1);
    if (!last) throw new Error('benchmark write: no run');
    if (last.written === 0) throw new Error('benchmark write: no file was edited, nothing measured');
    return {
      medianMs: timing.medianMs,
      runs: timing.runs,
      last,
      phases: {
        planMs: median(timed.map((run) => run.planMs)),
        editsMs: median(timed.map((run) => run.editsMs)),
        writeMs: median(timed.map((run) => run.writeMs)),
      },
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
