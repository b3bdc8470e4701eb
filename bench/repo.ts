// `kerf-gitops plan` and `write` as whole processes (lib/cli.js) on generated repos, each against
// a bare `yaml` parse of the same files in its own process (bench/bare-parse.ts).
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateRepo, type GeneratedRepo, type RepoShape } from './generate.js';
import { medianRun, runNode, type ProcessRun } from './processes.js';

export const NOW = '2026-12-02T10:00:00Z';
const CLI = 'lib/cli.js';
const BARE_PARSE = 'lib/bench/bare-parse.js';

export interface RepoBenchmark {
  repo: GeneratedRepo;
  bareParse: ProcessRun & { runs: number };
  plan: ProcessRun & { runs: number };
  write?: ProcessRun & { runs: number; written: number; pullRequests: number; errors: number };
}

interface WriteOutput {
  decisions: { action: string }[];
  errors: unknown[];
  written: string[];
}

/** `write` on a fresh copy of the repo per run (copies made before the clock starts). */
async function timeWrite(source: string, runs: number): Promise<NonNullable<RepoBenchmark['write']>> {
  const scratch = await mkdtemp(join(tmpdir(), 'kerf-bench-write-'));
  try {
    const copies: string[] = [];
    for (let i = 0; i < runs; i++) {
      const copy = join(scratch, `copy-${i}`);
      await cp(source, copy, { recursive: true });
      copies.push(copy);
    }
    const run = await medianRun(runs, (i) => runNode(CLI, ['write', '--repo', copies[i] as string, '--now', NOW, '--output', 'json']));
    const output = JSON.parse(run.stdout) as WriteOutput;
    if (output.written.length === 0) throw new Error('benchmark write: no file was edited, nothing measured');
    const pullRequests = output.decisions.filter((decision) => decision.action === 'pull-request').length;
    return { ...run, written: output.written.length, pullRequests, errors: output.errors.length };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Generates `shape` in a temp dir, times the bare parse, `plan` and (with `write`) `write` on it, and removes it. */
export async function benchmarkRepo(shape: RepoShape, options: { runs: number; write: boolean }): Promise<RepoBenchmark> {
  const root = await mkdtemp(join(tmpdir(), 'kerf-bench-repo-'));
  try {
    const repo = await generateRepo(root, shape);
    const bareParse = await medianRun(options.runs, () => runNode(BARE_PARSE, [root]));
    if (Number(bareParse.stdout.trim()) !== repo.documents) throw new Error(`benchmark: the bare parse read ${bareParse.stdout.trim()} documents, not ${repo.documents}`);
    const plan = await medianRun(options.runs, () => runNode(CLI, ['plan', '--repo', root, '--now', NOW]));
    if (plan.code !== 0) throw new Error(`benchmark: plan exited ${plan.code}`);
    if (!options.write) return { repo, bareParse, plan };
    return { repo, bareParse, plan, write: await timeWrite(root, options.runs) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
