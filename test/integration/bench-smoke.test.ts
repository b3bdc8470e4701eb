// `npm run bench` end to end on tiny repos (KERF_BENCH_QUICK=1): the generated repos plan and
// write cleanly as whole processes and every row prints. Not a timing test: quick mode reports bars
// without enforcing them.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const bench = join(import.meta.dirname, '../../lib/bench/index.js');

describe('npm run bench (quick mode)', () => {
  it('times plan, write and the bare parse as processes on generated repos, and prints every row with its bar', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', bench], { env: { ...process.env, KERF_BENCH_QUICK: '1' }, timeout: 50_000 });
    expect(stdout).not.toContain('FAILED');
    for (const label of ['plan ÷ parse', 'write ÷ parse', 'plan time', 'plan peak RSS', 'write ÷ plan']) {
      expect(stdout).toMatch(new RegExp(`  ${label} +\\S.*\\(bar ≤ [\\d.]+`));
    }
    // Every workload of the one-file repo gets a pull-request edit in that one file.
    expect(stdout).toMatch(/write in one file: 20 workloads changed in one file/);
    expect(stdout).toMatch(/write +[\d.]+ s, CPU [\d.]+ s, peak RSS \d+ MiB: \d+ files edited for 20 pull-request decisions/);
  });
});
