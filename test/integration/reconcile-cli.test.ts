// The built `kerf-gitops reconcile` as a user and the Action run it: a real process, the
// environment of a workflow run, exit codes, and output that never shows the token.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { EXAMPLE, OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';

const cli = join(import.meta.dirname, '../../lib/cli.js');
const run = promisify(execFile);

let git: GitServer;
let h: Harness | undefined;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function kerf(args: string[], env: Record<string, string> = {}) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', KERF_PAUSE: '' };
  try {
    const { stdout, stderr } = await run('node', [cli, 'reconcile', '--now', '2026-12-02T10:00:00Z', ...args], { env: { ...base, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('kerf-gitops reconcile', () => {
  it('--dry-run prints what it would do, PR bodies included, and makes no request at all', async () => {
    h = await startHarness(git);
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url };
    const gitRequests = git.requests.length;
    const { code, stdout } = await kerf(['--repo', h.clone, '--dry-run'], env);
    expect(code).toBe(0);
    expect(stdout).toContain('(dry run: nothing pushed, nothing sent to GitHub)');
    expect(stdout).toMatch(/would open\s+kerf\/shop\/deployment\/reports\s+-\s+pending\s+Waiting for the maintenance window Sat 5 Dec 01:00–05:00 Europe\/Berlin \(00:00 UTC\)/);
    expect(stdout).toContain('| `shop/Deployment/reports` | `worker` | `requests.cpu` | 2 | 1500m | -25% |');
    expect(stdout).toContain('<!-- kerf:meta {"changeSet":');
    expect(h.gh.requests).toEqual([]);
    expect(git.requests.length).toBe(gitRequests);
    expect(await h.head('kerf/shop/deployment/reports')).toBeNull();
  });

  it('--dry-run needs no token and no remote (the README demo on examples/shop), and prints the JSON contract', async () => {
    const { code, stdout } = await kerf(['--repo', EXAMPLE, '--dry-run', '--output', 'json', '--labels', 'a,b', '--group-by', 'single']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(['dryRun', 'plan', 'pullRequests', 'errors', 'totals', 'dashboard']);
    expect(result.pullRequests).toEqual([
      expect.objectContaining({ branch: 'kerf/_all', number: null, url: null, action: 'opened', title: 'kerf: rightsize 4 workloads in shop', files: ['apps/shop/checkout.yaml', 'apps/shop/frontend.yaml', 'apps/shop/orders.yaml', 'apps/shop/reports.yaml'] }),
    ]);
    expect(result.plan.decisions).toHaveLength(11);
  });

  it('exits 2 with one line when the token is missing or a flag is bad', async () => {
    const missing = await kerf(['--repo', EXAMPLE]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('kerf-gitops: reconcile needs GITHUB_TOKEN and GITHUB_REPOSITORY in the environment (or --dry-run, which needs neither)\n');
    const bad = await kerf(['--repo', EXAMPLE, '--dry-run', '--group-by', 'team']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('kerf-gitops: --group-by must be one of per-workload, per-namespace, single, got "team"\n');
  });

  it('exits 1 when a group fails, names the repository setting, and never prints the token', async () => {
    h = await startHarness(git, { settings: { actionsMayCreatePRs: false } });
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url };
    const { code, stdout, stderr } = await kerf(['--repo', h.clone, '--group-by', 'single', '--output', 'json'], env);
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result.errors).toEqual([
      { branch: 'kerf/_all', code: 'ActionsMayNotCreatePullRequests', message: expect.stringContaining('"Allow GitHub Actions to create and approve pull requests"') },
    ]);
    expect(`${stdout}${stderr}`).not.toContain(TOKEN);
    expect(`${stdout}${stderr}`).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
  });
});
