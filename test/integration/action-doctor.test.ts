// Doctor's branch-protection fact comes from GitHub: the port's question against the GitHub
// stand-in (rulesets, classic protection, a token that may not read it), then `kerf-gitops
// doctor` and the Action's `doctor: true` asking it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGitHub } from '../../src/github/github.js';
import type { BranchProtection } from '../../src/github/github.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import type { GitHubStandIn } from '../standins/github/github-server.js';
import { OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { installAction, type InstalledAction } from '../support/action-runner.js';

const cli = join(import.meta.dirname, '../../lib/cli.js');

let git: GitServer;
let h: Harness | undefined;
let action: InstalledAction;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  action = await installAction(TOKEN);
});
afterAll(async () => {
  await action?.close();
  await git.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function requireByRuleset(gh: GitHubStandIn, context: string): void {
  gh.state.branchRules.set('main', [
    {
      type: 'required_status_checks',
      parameters: { strict_required_status_checks_policy: false, required_status_checks: [{ context }] },
      ruleset_source_type: 'Repository',
      ruleset_source: `${OWNER}/${h?.repo}`,
      ruleset_id: 7,
    },
  ]);
}

function requireClassic(gh: GitHubStandIn, context: string): void {
  gh.state.branchProtection.set('main', { enabled: true, required_status_checks: { contexts: [context], checks: [{ context, app_id: null }], strict: false } });
}

const PROTECTION_PATHS = /\/(rules\/branches|branches)\/main/;

describe('GitHubPort.windowProtection', () => {
  it.each<[string, (gh: GitHubStandIn) => void, BranchProtection, number]>([
    ['a ruleset requires kerf/window (no admin rights needed)', (gh) => requireByRuleset(gh, 'kerf/window'), { state: 'required', branch: 'main' }, 1],
    [
      'a ruleset requires other checks and classic protection kerf/window (admin)',
      (gh) => {
        requireByRuleset(gh, 'ci');
        gh.settings.permissions.admin = true;
        requireClassic(gh, 'kerf/window');
      },
      { state: 'required', branch: 'main' },
      2,
    ],
    [
      'classic protection requires other checks only (admin)',
      (gh) => {
        gh.settings.permissions.admin = true;
        requireClassic(gh, 'ci');
      },
      { state: 'missing', branch: 'main' },
      2,
    ],
    ['no ruleset and no classic protection (admin)', (gh) => (gh.settings.permissions.admin = true), { state: 'missing', branch: 'main' }, 2],
    [
      'no ruleset, and a token that may not read classic protection',
      () => {},
      { state: 'unknown', branch: 'main', detail: expect.stringContaining('the token needs the permission "administration: read"') as unknown as string },
      2,
    ],
  ])('%s', async (_name, setup, expected, protectionRequests) => {
    h = await startHarness(git);
    setup(h.gh);
    const github = createGitHub({ token: TOKEN, apiUrl: h.gh.url, repository: `${OWNER}/${h.repo}`, pacing: { writeMs: 0, notificationMs: 0 } });
    expect(await github.windowProtection()).toEqual(expected);
    // The default branch comes from the repository; classic protection is read only when no ruleset requires the check.
    expect(h.gh.requests.filter((r) => r.path === `/repos/${OWNER}/${h?.repo}`)).toHaveLength(1);
    expect(h.gh.requests.filter((r) => PROTECTION_PATHS.test(r.path))).toHaveLength(protectionRequests);
  });

  it('names the branch it was asked about and reports an outage as unknown', async () => {
    h = await startHarness(git);
    const github = createGitHub({ token: TOKEN, apiUrl: h.gh.url, repository: `${OWNER}/${h.repo}`, budget: { retries: 0 } });
    h.gh.failNext(1, { status: 503 });
    expect(await github.windowProtection('release')).toEqual({ state: 'unknown', branch: 'release', detail: expect.stringContaining('cannot read branch rules') });
    expect(h.gh.requests.some((r) => r.path === `/repos/${OWNER}/${h?.repo}`)).toBe(false);
  });
});

/** doctor's branch-protection findings; an error finding exits 1, so the output is read either way. */
async function doctorCli(env: Record<string, string>) {
  const { stdout } = await promisify(execFile)('node', [cli, 'doctor', '--repo', (h as Harness).clone, '--output', 'json'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  }).catch((error: { code: number; stdout: string }) => {
    expect(error.code).toBe(1);
    return error;
  });
  return (JSON.parse(stdout) as { findings: { check: string; severity: string; message: string }[] }).findings.filter((f) => f.check === 'branch-protection');
}

describe('doctor asks GitHub about kerf/window', () => {
  it('kerf-gitops doctor: with a token and repository, a default branch that does not require kerf/window is a finding', async () => {
    h = await startHarness(git);
    h.gh.settings.permissions.admin = true;
    expect(await doctorCli({})).toEqual([]);
    expect(h.gh.requests).toEqual([]);
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url };
    expect(await doctorCli(env)).toEqual([
      { check: 'branch-protection', severity: 'error', message: expect.stringContaining('the default branch main does not require the kerf/window status'), fix: expect.any(String) },
    ]);
    requireByRuleset(h.gh, 'kerf/window');
    expect(await doctorCli(env)).toEqual([]);
  });

  it('the Action with doctor: true reports the missing kerf/window rule as an error annotation and in the summary, then reconciles', async () => {
    h = await startHarness(git);
    h.gh.settings.permissions.admin = true;
    // Paused, so the reconcile after doctor writes nothing and the test stays quick.
    const inputs = { doctor: 'true', pause: 'true' };
    const env = { GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url };
    const run = await action.run({ cwd: h.clone, with: inputs, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('::group::kerf doctor\n');
    expect(run.annotations.filter((a) => a.properties.title === 'kerf doctor: branch-protection')).toEqual([
      {
        level: 'error',
        properties: { title: 'kerf doctor: branch-protection' },
        message: expect.stringMatching(/^the default branch main does not require the kerf\/window status: .*\. Fix: require the status check kerf\/window on main/),
      },
    ]);
    expect(run.summary).toContain('### Doctor');
    expect(run.summary).toContain('- **error** `branch-protection` the default branch main does not require the kerf/window status');
    expect(run.outputs.decisions).toBeDefined();

    requireByRuleset(h.gh, 'kerf/window');
    const protectedRun = await action.run({ cwd: h.clone, with: inputs, env });
    // Only the example's Thursday window, which its release-train freeze always covers, is left to warn about.
    expect(protectedRun.annotations.filter((a) => a.properties.title?.startsWith('kerf doctor')).map((a) => [a.level, a.properties.file])).toEqual([['warning', 'policies/shop.yaml']]);
    expect(protectedRun.summary).toContain('- **warning** `overlapping-windows` `policies/shop.yaml:');
  });
});
