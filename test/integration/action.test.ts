// The bundled Action end to end, run as the Actions runner runs it (test/support/action-runner.ts)
// against the git and GitHub stand-ins: outputs, job summary, annotations, PRs, pauses, dry runs,
// input errors and exit codes.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { CLOCK_FREE_POLICIES, installAction, type ActionRun, type InstalledAction } from '../support/action-runner.js';
import type { FileChanges } from '../standins/git/bare-repo.js';

const PROPOSED = ['shop/Deployment/checkout', 'shop/Deployment/frontend', 'shop/Deployment/orders', 'shop/Deployment/reports'];

let git: GitServer;
let action: InstalledAction;
let h: Harness | undefined;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  action = await installAction(TOKEN);
});
afterAll(async () => {
  await action?.close();
  await git.close();
});
afterEach(async () => {
  await h?.close(); // fails the test on any schema violation seen by the GitHub stand-in
  h = undefined;
});

async function harness(files: FileChanges = {}): Promise<Harness> {
  h = await startHarness(git, { files: { ...CLOCK_FREE_POLICIES, ...files } });
  return h;
}

/** The step `uses: getkerf/kerf-gitops` in the checkout, with the workflow run's environment. */
function step(harness: Harness, inputs: Record<string, string> = {}, cwd = harness.clone): Promise<ActionRun> {
  return action.run({
    cwd,
    with: inputs,
    env: { GITHUB_REPOSITORY: `${OWNER}/${harness.repo}`, GITHUB_API_URL: harness.gh.url },
  });
}

/** Everything the log shows, but the line that hands the token to the runner's masking. */
function printed(run: ActionRun): string {
  return `${run.stdout.replace(`::add-mask::${TOKEN}\n`, '')}${run.stderr}`;
}

function json<T>(text: string | undefined): T {
  return JSON.parse(text ?? 'null') as T;
}

interface Decision {
  target: { namespace: string; kind: string; name: string };
  action: string;
  phase: string;
  reason: string | null;
  changes: unknown[];
}

describe('the bundled Action', () => {
  it('G3 G4: opens the plan\'s PRs with the inputs\' reviewers and labels, and reports outputs, summary and annotations', async () => {
    const { gh } = await harness();
    const run = await step(h as Harness, { 'group-by': 'per-namespace', reviewers: 'alice', labels: 'kerf\nsize/auto', 'team-reviewers': 'platform, sre' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    expect(gh.state.prs).toHaveLength(1);
    const [pr] = gh.state.prs;
    expect(pr).toMatchObject({ head: 'kerf/shop/_all', labels: ['kerf', 'size/auto'], requestedReviewers: ['alice'], requestedTeams: ['platform', 'sre'] });

    expect(run.outputs).toMatchObject({ opened: '1', updated: '0', closed: '0', 'held-back': '3' });
    const pulls = json<{ branch: string; action: string; number: number | null; url: string }[]>(run.outputs['pull-requests']);
    expect(pulls).toEqual([
      expect.objectContaining({ branch: 'kerf/payments/_all', action: 'held', number: null }),
      expect.objectContaining({ branch: 'kerf/shop/_all', action: 'opened', number: pr?.number, url: expect.stringMatching(new RegExp(`/${OWNER}/${h?.repo}/pull/${pr?.number}$`)) }),
    ]);
    const url = pulls[1]?.url;
    const decisions = json<Decision[]>(run.outputs.decisions);
    expect(decisions).toHaveLength(11);
    // The same list in a file under RUNNER_TEMP, which a fleet's decisions need (outputs are capped at 1 MB).
    expect(json<Decision[]>(await readFile(run.outputs['decisions-file'] ?? '', 'utf8'))).toEqual(decisions);
    expect(decisions.filter((d) => d.action === 'pull-request').map((d) => `${d.target.namespace}/${d.target.kind}/${d.target.name}`)).toEqual(PROPOSED);

    // The summary: PRs with links, what is held back with reasons and next windows, the plan.
    expect(run.summary).toContain('Reconcile at ');
    expect(run.summary).toContain(
      `| opened | [#${pr?.number} kerf: rightsize 4 workloads in shop](${url}) | \`kerf/shop/_all\` | pending: Waiting for the maintenance window Tue 1 Jan 01:00–05:00 UTC | ${[...PROPOSED, 'shop/StatefulSet/redis'].join(', ')} |`,
    );
    expect(run.summary).toContain('| Workload | Reason | Next window | Pull request | Change |');
    // The window in its zone with its end, and how far off it is (the Action's clock is the wall clock).
    expect(run.summary).toMatch(
      new RegExp(`\\| shop/Deployment/reports \\| OutsideMaintenanceWindow: the merge waits for the window \\(kerf/window pending\\) \\| Tue 1 Jan 2999 01:00–05:00 UTC, in \\d+ d \\d+ h \\| \\[#${pr?.number}\\]\\(${url}\\) \\| cpu 2→1500m, memory 4Gi→3Gi, limit memory 4Gi→3Gi \\|`),
    );
    expect(run.summary).toContain('| payments/Deployment/ledger | FreezeWindow: a freeze window is open | - | - | cpu 1→700m, memory 1Gi→768Mi |');
    // Held back within the PR's group, so its body lists it too (G4).
    expect(run.summary).toContain(`| shop/StatefulSet/redis | SingleReplicaUnsafe: the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down | - | [#${pr?.number}](${url}) |`);
    expect(run.summary).toContain('| Target | Strategy | Action | Phase | Reason | Next window | Change |');
    expect(run.summary).toContain('| shop/Deployment/frontend | rollout (was in-place) | pull-request | Proposed | HPACoordination | - | cpu 250m→150m, memory 256Mi→192Mi |');
    expect(run.summary).not.toContain('### Errors');

    // Phases fold; a hold that needs someone is a warning on the workload's file; no errors.
    for (const group of ['kerf reconcile', 'kerf plan', 'kerf pull requests']) expect(run.stdout).toContain(`::group::${group}\n`);
    expect(run.stdout).not.toContain('::group::kerf doctor');
    expect(run.annotations).toEqual([
      { level: 'warning', properties: { title: 'kerf: change held back', file: 'apps/shop/redis.yaml' }, message: 'shop/StatefulSet/redis: held back: SingleReplicaUnsafe: the workload runs a single replica (or a PodDisruptionBudget allows no disruption) and this change would take it down' },
    ]);
    expect(run.stdout).toContain(`::add-mask::${TOKEN}\n`);
    expect(printed(run)).not.toContain(TOKEN);
    expect(await h?.head('kerf/shop/_all')).not.toBeNull();
  });

  it('a second run changes nothing; narrowed recommendations (a glob) close the PR that is no longer wanted', async () => {
    const { gh } = await harness();
    const inputs = { 'group-by': 'per-namespace' };
    expect((await step(h as Harness, inputs)).outputs.opened).toBe('1');
    const writes = gh.writeRequests().length;

    const again = await step(h as Harness, inputs);
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ opened: '0', updated: '0', closed: '0' });
    expect(json<{ action: string }[]>(again.outputs['pull-requests']).map((pr) => pr.action)).toEqual(['held', 'unchanged']);
    expect(gh.writeRequests()).toHaveLength(writes);

    const narrowed = await step(h as Harness, { ...inputs, recommendations: 'recommendations/other-*.yaml' });
    expect(narrowed.code).toBe(0);
    expect(narrowed.outputs).toMatchObject({ opened: '0', closed: '1' });
    const [pr] = gh.state.prs;
    expect(pr?.state).toBe('closed');
    expect(narrowed.summary).toMatch(new RegExp(`\\| closed \\| \\[#${pr?.number}\\]\\(\\S+/pull/${pr?.number}\\) \\| \`kerf/shop/_all\` \\| shop/Deployment/checkout: its recommendation is gone;`));
  });

  it.each([
    ['the input pause (the fleet)', { pause: 'true' }, {}],
    ['pause: true in .kerf/config.yaml (this cluster)', {}, { '.kerf/config.yaml': 'labels: [kerf]\npause: true\n' }],
  ])('Z4: %s holds every change with reason Paused and opens no PR', async (_name, inputs: Record<string, string>, files: FileChanges) => {
    const { gh } = await harness(files);
    const pushes = h?.pushes();
    const run = await step(h as Harness, inputs);
    expect(run.code).toBe(0);
    const actionable = json<Decision[]>(run.outputs.decisions).filter((d) => d.changes.length > 0 && d.phase !== 'Recommended' && d.phase !== 'Unmanaged');
    expect(actionable.length).toBeGreaterThan(5);
    for (const decision of actionable) expect(decision).toMatchObject({ action: 'blocked', phase: 'Blocked', reason: 'Paused' });
    expect(run.outputs).toMatchObject({ opened: '0', 'held-back': String(actionable.length) });
    expect(gh.state.prs).toEqual([]);
    expect(gh.writeRequests()).toEqual([]);
    expect(h?.pushes()).toBe(pushes);
    expect(run.summary).toContain('| shop/Deployment/checkout | Paused: kerf is paused for this cluster or the whole fleet | - | - |');
  });

  it('dry-run: true sends nothing to GitHub and pushes nothing, and says what a run would do', async () => {
    const { gh } = await harness();
    const gitRequests = git.requests.length;
    const run = await step(h as Harness, { 'dry-run': 'true' });
    expect(run.code).toBe(0);
    expect(gh.requests).toEqual([]);
    expect(git.requests.length).toBe(gitRequests);
    expect(run.outputs).toMatchObject({ opened: '4', 'held-back': '3' });
    const [checkout] = json<Record<string, unknown>[]>(run.outputs['pull-requests']).filter((pr) => pr.action === 'opened');
    expect(checkout).toMatchObject({ branch: 'kerf/shop/deployment/checkout', files: ['apps/shop/checkout.yaml'], commitMessage: expect.stringContaining('kerf: rightsize') });
    expect(checkout).not.toHaveProperty('body');
    expect(run.stdout).toContain('### Changes'); // the bodies are in the log
    expect(run.summary).toContain('> Dry run: nothing was pushed and nothing was sent to GitHub');
    expect(run.summary).toContain('| opened | (would open) kerf: rightsize shop/Deployment/checkout | `kerf/shop/deployment/checkout` |');
  });

  it('puts an error annotation on the file and line of a bad manifest and of a bad policy window (path relative to the workspace)', async () => {
    await harness({
      'apps/shop/broken.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken\n',
      'policies/extra.yaml': `# a second policy file\napiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingPolicy\nmetadata: {name: nightly, namespace: tools}\nspec:\n  mode: auto-patch\n  apply:\n    strategy: deferred\n    maintenanceWindows:\n      - {schedule: "0 0 1 * * 6", duration: 4h}\n`,
    });
    // The workspace is the checkout's parent here, as with actions/checkout's `path:`.
    // fail-on-error (default true): the errors turn the step red, after the run did the rest.
    const failing = await step(h as Harness, { 'dry-run': 'true', path: 'checkout' }, dirname((h as Harness).clone));
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('::error::2 error(s) in the manifests, policies, recommendations or config');
    const run = await step(h as Harness, { 'dry-run': 'true', path: 'checkout', 'fail-on-error': 'false' }, dirname((h as Harness).clone));
    expect(run.code).toBe(0);
    const errors = run.annotations.filter((a) => a.level === 'error');
    expect(errors).toEqual([
      { level: 'error', properties: { title: 'kerf: YamlSyntax', file: 'checkout/apps/shop/broken.yaml', line: '4', col: '1' }, message: expect.stringContaining('apps/shop/broken.yaml:4: ') },
      {
        level: 'error',
        // At the offending field (the schedule), not the policy's first line.
        properties: { title: 'kerf: InvalidSchedule', file: 'checkout/policies/extra.yaml', line: '10', col: '10' },
        message: expect.stringContaining('RightsizingPolicy tools/nightly: spec.apply.maintenanceWindows[0].schedule: "0 0 1 * * 6" has 6 fields'),
      },
    ]);
    expect(run.summary).toContain('### Errors (2)');
  });

  it.each([
    ['a bad group-by', { 'group-by': 'team' }, 'input group-by must be one of per-workload, per-namespace, single, got "team"'],
    ['recommendations that match nothing', { recommendations: 'recommendations/none-*.yaml' }, 'input recommendations recommendations/none-*.yaml matches no file'],
    ['an unreadable recommendations path', { recommendations: 'recommendations/missing.yaml' }, 'cannot read recommendations recommendations/missing.yaml: ENOENT'],
    ['a pause that is not a boolean', { pause: 'maybe' }, 'input pause must be true or false, got "maybe"'],
    ['an empty token', { token: '' }, 'input token is empty'],
  ])('an input error (%s) fails the step with one line and no stack trace', async (_name, inputs: Record<string, string>, message: string) => {
    const { gh } = await harness();
    const run = await step(h as Harness, inputs);
    expect(run.code).toBe(1);
    const commands = run.stdout.split('\n').filter((line) => line.startsWith('::error'));
    expect(commands).toEqual([expect.stringMatching(/^::error::/)]);
    expect(commands[0]).toContain(message);
    expect(printed(run)).not.toMatch(/\n\s+at /);
    expect(run.stderr).toBe('');
    expect(run.summary).toBe('');
    expect(run.outputs).toEqual({});
    expect(gh.writeRequests()).toEqual([]);
  });

  it('a checkout without an origin remote fails the step with one line, before any write', async () => {
    const { gh, clone } = await harness();
    await runGit(['remote', 'remove', 'origin'], { cwd: clone });
    const run = await step(h as Harness);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::error'))).toEqual([expect.stringMatching(/^::error::.* is not a clone with an origin remote: /)]);
    expect(printed(run)).not.toMatch(/\n\s+at /);
    expect(gh.requests).toEqual([]);
  });

  it('exits 1 when a group fails, with an error annotation naming the repository setting, and never prints the token', async () => {
    h = await startHarness(git, { files: CLOCK_FREE_POLICIES, settings: { actionsMayCreatePRs: false } });
    const run = await step(h, { 'group-by': 'single' });
    expect(run.code).toBe(1);
    expect(run.annotations.filter((a) => a.level === 'error')).toEqual([
      { level: 'error', properties: { title: 'kerf: ActionsMayNotCreatePullRequests' }, message: expect.stringContaining('kerf/_all: GitHub Actions may not open pull requests') },
      { level: 'error', properties: {}, message: '1 pull request group(s) failed; the others went on (see the errors above)' },
    ]);
    expect(run.summary).toContain('### Errors (1)');
    expect(run.summary).toContain('`kerf/_all` ActionsMayNotCreatePullRequests: GitHub Actions may not open pull requests');
    expect(run.outputs.opened).toBe('0');
    expect(printed(run)).not.toContain(TOKEN);
    expect(printed(run)).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
  });
});
