// The built CLI as a user runs it: a real process, real files, exit codes and output.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const cli = join(root, 'lib/cli.js');
const example = join(root, 'examples/shop');
const run = promisify(execFile);
const temps: string[] = [];

async function kerf(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run('node', [cli, ...args], { env: { ...process.env, KERF_PAUSE: '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('kerf-gitops plan', () => {
  it('prints the JSON contract of DESIGN.md for the example', async () => {
    const { code, stdout } = await kerf(['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--output', 'json']);
    expect(code).toBe(0);
    const plan = JSON.parse(stdout);
    expect(plan.now).toBe('2026-12-02T10:00:00.000Z');
    expect(plan.errors).toEqual([]);
    // The batch policy's Thursday window sits inside its release-train freeze: warned, never promised.
    expect(plan.warnings).toEqual([expect.objectContaining({ code: 'WindowAlwaysFrozen', file: 'policies/shop.yaml', field: 'spec.apply.maintenanceWindows[1]' })]);
    const byName = Object.fromEntries(plan.decisions.map((d: { target: { name: string } }) => [d.target.name, d]));
    expect(byName.reports).toEqual({
      target: { namespace: 'shop', kind: 'Deployment', name: 'reports' },
      configuredStrategy: 'deferred',
      strategy: 'deferred',
      action: 'pull-request',
      phase: 'Deferred',
      reason: 'OutsideMaintenanceWindow',
      nextWindow: '2026-12-05T00:00:00.000Z',
      nextWindowSpan: { end: '2026-12-05T04:00:00.000Z', timeZone: 'Europe/Berlin' },
      changes: [
        { container: 'worker', field: 'requests.cpu', from: '2', to: '1500m', file: 'apps/shop/reports.yaml' },
        { container: 'worker', field: 'requests.memory', from: '4Gi', to: '3Gi', file: 'apps/shop/reports.yaml' },
        { container: 'worker', field: 'limits.memory', from: '4Gi', to: '3Gi', file: 'apps/shop/reports.yaml' },
      ],
    });
    expect(byName.ledger).toMatchObject({ action: 'blocked', reason: 'FreezeWindow' });
    expect(byName.redis).toMatchObject({ action: 'blocked', reason: 'SingleReplicaUnsafe' });
    expect(byName.frontend).toMatchObject({ strategy: 'rollout', reason: 'HPACoordination' });
    expect(byName.orders).toMatchObject({ strategy: 'rollout', reason: 'JVMMemory' });
    expect(byName.cart).toMatchObject({ action: 'in-place', phase: 'InPlace' });
    expect(byName.catalog).toMatchObject({ action: 'none', phase: 'UpToDate' });
    expect(byName.billing).toMatchObject({ action: 'none', phase: 'Recommended' });
    expect(byName.grafana).toMatchObject({ action: 'none', phase: 'Unmanaged' });
    const order = plan.decisions.map((d: { target: { namespace: string; kind: string; name: string } }) => `${d.target.namespace}/${d.target.kind}/${d.target.name}`);
    expect(order).toEqual([...order].sort());
  });

  it('prints a table for people with the change in short', async () => {
    const { code, stdout } = await kerf(['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/shop\/Deployment\/cart\s+in-place\s+in-place\s+InPlace\s+-\s+-\s+cpu 500m→250m, memory 512Mi→384Mi, limit memory 1Gi→768Mi/);
  });

  it('Z4: KERF_PAUSE=true pauses the fleet', async () => {
    const { stdout } = await kerf(['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--output', 'json'], { KERF_PAUSE: 'true' });
    const actionable = JSON.parse(stdout).decisions.filter((d: { phase: string }) => !['UpToDate', 'Recommended', 'Unmanaged'].includes(d.phase));
    expect(actionable.length).toBeGreaterThan(0);
    for (const decision of actionable) expect(decision).toMatchObject({ action: 'blocked', reason: 'Paused' });
  });

  it('--recommendations takes a glob and reports a missing target as an error entry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kerf-recs-'));
    temps.push(dir);
    await cp(join(example, 'recommendations/shop.yaml'), join(dir, 'a.yaml'));
    await writeFile(join(dir, 'b.yaml'), 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\nmetadata: {name: ghost, namespace: shop}\nspec: {targetRef: {kind: Deployment, name: ghost}, containers: [{name: a, requests: {cpu: 1}}]}\n');
    const { code, stdout } = await kerf(['plan', '--repo', example, '--recommendations', join(dir, '*.yaml'), '--output', 'json']);
    // Any error exits 1 (the rest of the plan is still printed); exit 0 with errors was a green run that hid them.
    expect(code).toBe(1);
    const plan = JSON.parse(stdout);
    expect(plan.decisions).toHaveLength(8);
    expect(plan.errors).toEqual([expect.objectContaining({ code: 'TargetNotFound', field: 'spec.targetRef', message: expect.stringMatching(/target shop\/Deployment\/ghost is not in the repo/) })]);
  });

  it.each([
    [['plan', '--repo', '/nonexistent/repo'], /^kerf-gitops: no such repo: \/nonexistent\/repo\n$/],
    [['plan', '--repo', example, '--recommendations', '/nonexistent/recs.yaml'], /^kerf-gitops: cannot read recommendations \/nonexistent\/recs\.yaml/],
    [['plan', '--repo', example, '--now', 'tomorrow'], /^kerf-gitops: --now "tomorrow" is not an RFC 3339 time/],
    [['plan', '--output', 'xml'], /^kerf-gitops: --output must be table or json/],
    [['plan', '--bogus'], /^kerf-gitops: Unknown option '--bogus'/],
    [['frobnicate'], /^kerf-gitops: unknown command "frobnicate"/],
  ])('%j exits 2 with one line on stderr', async (args, message) => {
    const { code, stdout, stderr } = await kerf(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('kerf-gitops write', () => {
  async function exampleCopy(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'kerf-write-'));
    temps.push(dir);
    await cp(example, dir, { recursive: true });
    return dir;
  }

  it('G1/G2: edits only the CPU/memory lines of pull-request decisions; in-place changes stay out of Git', async () => {
    const repo = await exampleCopy();
    const { code, stdout } = await kerf(['write', '--repo', repo, '--now', '2026-12-02T10:00:00Z', '--output', 'json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.written).toEqual(['apps/shop/checkout.yaml', 'apps/shop/frontend.yaml', 'apps/shop/orders.yaml', 'apps/shop/reports.yaml']);
    const before = (await readFile(join(example, 'apps/shop/orders.yaml'), 'utf8')).split('\n');
    const after = (await readFile(join(repo, 'apps/shop/orders.yaml'), 'utf8')).split('\n');
    const changed = before.flatMap((line, i) => (line === after[i] ? [] : [[line.trim(), after[i]?.trim()]]));
    expect(changed).toEqual([
      ['cpu: 750m', 'cpu: 500m'],
      ['memory: 2Gi', 'memory: 1536Mi'],
      ['memory: 2Gi', 'memory: 1536Mi'],
    ]);
    // cart is in-place: the helper resizes it, Git keeps the template.
    expect(await readFile(join(repo, 'apps/shop/cart.yaml'), 'utf8')).toBe(await readFile(join(example, 'apps/shop/cart.yaml'), 'utf8'));
  });

  it('a second write changes nothing: the plan is then up to date', async () => {
    const repo = await exampleCopy();
    await kerf(['write', '--repo', repo, '--now', '2026-12-02T10:00:00Z']);
    const { code, stdout } = await kerf(['write', '--repo', repo, '--now', '2026-12-02T10:00:00Z']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/No file changed\./);
  });

  it('an edit that would leave a request above its limit is refused, exit 1, file untouched', async () => {
    const repo = await exampleCopy();
    const recs = join(repo, 'recommendations/shop.yaml');
    await writeFile(recs, (await readFile(recs, 'utf8')).replace('requests: {cpu: 600m, memory: 640Mi}', 'requests: {cpu: 600m, memory: 2Gi}'));
    const { code, stdout } = await kerf(['write', '--repo', repo, '--now', '2026-12-02T10:00:00Z', '--output', 'json']);
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result.written).not.toContain('apps/shop/checkout.yaml');
    // The recommendation itself holds its limit (640Mi): it is refused whole, at its own file and line.
    expect(result.errors).toEqual([expect.objectContaining({ code: 'RequestAboveLimit', file: 'recommendations/shop.yaml', field: 'spec.containers[0].requests.memory', message: expect.stringMatching(/checkout.*memory/) })]);
    expect(await readFile(join(repo, 'apps/shop/checkout.yaml'), 'utf8')).toBe(await readFile(join(example, 'apps/shop/checkout.yaml'), 'utf8'));
  });
});

describe('the conventions of a CLI', () => {
  it.each(['plan', 'write', 'doctor', 'reconcile', 'status', 'helper'])('%s --help and -h print the usage and exit 0', async (command) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout } = await kerf([command, flag]);
      expect(code).toBe(0);
      expect(stdout).toMatch(command === 'helper' ? /^usage: kerf-gitops helper/ : /^usage: kerf-gitops <command>/);
    }
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(await kerf(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('-o is --output', async () => {
    const { code, stdout } = await kerf(['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z', '-o', 'json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).now).toBe('2026-12-02T10:00:00.000Z');
  });

  it('status without a kubeconfig exits 2 with one line saying so', async () => {
    const { code, stderr } = await kerf(['status'], { KUBECONFIG: '', HOME: '/nonexistent', KUBERNETES_SERVICE_HOST: '' });
    expect(code).toBe(2);
    expect(stderr).toBe('kerf-gitops: no cluster configured: set KUBECONFIG or run in a cluster\n');
  });

  it('the helper with a TLS file that does not exist exits 2 with one line, before it connects anywhere', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kerf-tls-'));
    temps.push(dir);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n');
    const { code, stderr } = await kerf(['helper', '--webhook-port', '0', '--tls-cert', join(dir, 'tls.crt'), '--tls-key', join(dir, 'tls.key')], { KUBECONFIG: kubeconfig });
    expect(code).toBe(2);
    expect(stderr).toBe(`kerf-gitops: cannot read --tls-cert ${join(dir, 'tls.crt')}: ENOENT\n`);
  });

  it('the helper with a kubeconfig that does not exist exits 2 with one line', async () => {
    const { code, stderr } = await kerf(['helper', '--no-webhook'], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(code).toBe(2);
    expect(stderr).toBe('kerf-gitops: cannot read KUBECONFIG /nonexistent/kubeconfig\n');
  });
});

describe('kerf-gitops doctor, the validator', () => {
  it('exits 1 on an error and lists every problem with its code in --output json, and what it could not check', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'kerf-doctor-'));
    temps.push(repo);
    await cp(example, repo, { recursive: true });
    const file = join(repo, 'policies/shop.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('mode: auto-patch', 'mode: recomend'));
    const { code, stdout } = await kerf(['doctor', '--repo', repo, '-o', 'json'], { GITHUB_TOKEN: '' });
    expect(code).toBe(1);
    const { findings, notChecked } = JSON.parse(stdout);
    expect(findings).toContainEqual(expect.objectContaining({ check: 'invalid-input', code: 'InvalidEnum', file: 'policies/shop.yaml', line: 7, field: 'spec.mode', message: expect.stringContaining('did you mean "recommend"?') }));
    expect(notChecked).toEqual([expect.stringContaining('kerf/window'), expect.stringContaining('cluster')]);
  });
});
