// The npm package as a user gets it: `npm pack` of this checkout, installed from the tarball into a
// temporary prefix with npm itself, offline and with a registry that does not answer, then run by its bin.
// The package needs nothing from the registry: the bundle carries every dependency.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');
const example = join(root, 'examples/shop');
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

let temp: string;
let packed: { filename: string; files: { path: string }[] };
let bin: string;

/** npm with its own empty cache and a registry nobody listens on: any fetch fails the test. */
function npm(args: string[], cwd = root) {
  return run('npm', [...args, '--cache', join(temp, 'cache'), '--registry', 'http://127.0.0.1:9/', '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    env: { ...process.env, npm_config_userconfig: join(temp, 'npmrc') },
  });
}

async function kerf(args: string[]) {
  try {
    const { stdout, stderr } = await run(bin, args, { cwd: temp, env: { PATH: `${join(temp, 'prefix/bin')}:${process.env.PATH ?? ''}`, KERF_PAUSE: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'kerf-npm-'));
  // --ignore-scripts: the suite runs after `npm run build`; prepack would rebuild dist/ as well.
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', temp]);
  packed = (JSON.parse(stdout) as (typeof packed)[])[0] as typeof packed;
  await npm(['install', '--global', '--offline', '--prefix', join(temp, 'prefix'), join(temp, packed.filename)], temp);
  bin = join(temp, 'prefix/bin', Object.keys(manifest.bin)[0] as string);
}, 120_000);

afterAll(() => rm(temp, { recursive: true, force: true }));

describe('the npm package', () => {
  it('holds exactly the bundle and its chunks, the licence, the README and package.json', () => {
    const chunks = readdirSync(join(root, 'lib/kerf-gitops-chunks')).map((name) => `lib/kerf-gitops-chunks/${name}`);
    expect(chunks.length).toBeGreaterThan(1);
    expect(packed.files.map((file) => file.path).sort()).toEqual(['LICENSE', 'README.md', 'lib/kerf-gitops.mjs', ...chunks, 'package.json'].sort());
  });

  it('declares no runtime dependency, so installing it fetches nothing', () => {
    const installed = JSON.parse(readFileSync(join(temp, 'prefix/lib/node_modules/kerf-gitops/package.json'), 'utf8'));
    expect(installed.dependencies).toBeUndefined();
    expect(installed.bin).toEqual({ 'kerf-gitops': 'lib/kerf-gitops.mjs' });
  });

  it('kerf-gitops --version prints the package version', async () => {
    expect(await kerf(['--version'])).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });

  it('kerf-gitops plan --repo <the example> plans it, as the checkout does', async () => {
    const args = ['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--output', 'json'];
    const installed = await kerf(args);
    expect(installed).toMatchObject({ code: 0, stderr: '' });
    const { stdout } = await run(process.execPath, [join(root, 'lib/cli.js'), ...args], { env: { ...process.env, KERF_PAUSE: '' } });
    expect(parse(installed.stdout)).toEqual(parse(stdout));
  });

  it('kerf-gitops reconcile --dry-run renders PR bodies without a templates folder', async () => {
    const { code, stdout } = await kerf(['reconcile', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--dry-run']);
    expect(code).toBe(0);
    expect(stdout).toContain('Body:');
  });
});
