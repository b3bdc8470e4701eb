// The scan on worker threads gives what the scan in one thread gives: the same files in the same
// order, the same errors in the same order, and so the same plan, byte for byte, on every real repo
// at hand; the edits on worker threads write the same files. The workers start from the built CLI
// (npm run build), as they do for a user.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateRepo } from '../../bench/generate.js';
import { readRepoFiles } from '../../src/manifests/scan.js';
import { registerWorkerEntry } from '../../src/util/worker-entry.js';
import { corpusDir, hasCorpus } from '../support/corpus.js';
import { tempRepos } from '../support/temp-repo.js';

const root = join(import.meta.dirname, '../..');
const cli = join(root, 'lib/cli.js');
const bundledCli = join(root, 'lib/kerf-gitops.mjs');
const run = promisify(execFile);

const realworldCandidates = [process.env.KERF_REALWORLD, join(import.meta.dirname, '../../../shared/realworld/repos'), '/work/shared/realworld/repos'];
const realworldDir = realworldCandidates.find((dir): dir is string => dir !== undefined && dir !== '' && existsSync(dir));
const subdirs = (dir: string | undefined): string[] =>
  dir === undefined || !existsSync(dir) ? [] : readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).sort();
const repos = [...subdirs(realworldDir), ...(hasCorpus ? subdirs(corpusDir) : [])];

registerWorkerEntry(pathToFileURL(cli).href);
const repoWith = tempRepos('kerf-scan-pool-');

async function plan(entry: string, repo: string, workers: number, command = 'plan'): Promise<{ code: number; stdout: string }> {
  const args = [entry, command, '--repo', repo, '--now', '2026-12-02T10:00:00Z', '--output', 'json'];
  try {
    const { stdout } = await run('node', args, { env: { ...process.env, KERF_PAUSE: '', KERF_WORKERS: String(workers) }, maxBuffer: 1 << 28 });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

/** Both scans, compared in full: Map contents and insertion order, errors and their order. */
async function expectSameScans(repo: string): Promise<void> {
  const alone = await readRepoFiles(repo, { workers: 0 });
  const pooled = await readRepoFiles(repo, { workers: 2 });
  expect([...pooled.files.keys()]).toEqual([...alone.files.keys()]);
  expect(isDeepStrictEqual(pooled.files, alone.files)).toBe(true);
  expect(pooled.errors).toEqual(alone.errors);
}

describe('the scan on worker threads', () => {
  it('keeps what does not parse, is not UTF-8, or is read whole as the scan in one thread does', async () => {
    const repo = await repoWith({
      'base/kustomization.yaml': 'resources: [app.yaml, secret.yaml]\n',
      // YAML 1.1's tags parse to a Date, a Buffer, a Set and a Map: each must come back as itself.
      'base/secret.yaml': '%YAML 1.1\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {when: 2001-12-14, bin: !!binary aGVsbG8=, set: !!set {a, b}, om: !!omap [a: 1]}\n',
      'base/app.yaml': 'apiVersion: v1\nkind: Service\nmetadata: {name: app}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec: {replicas: -0}\n',
      'bad/kustomization.yaml': Buffer.from([0x72, 0x3a, 0xff, 0x0a]),
      'plain/latin1.yaml': Buffer.from('kind: Deployment\nmetadata: {name: caf\xe9}\n', 'latin1'),
      'plain/broken.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, name: b}\n---\nkind: Deployment\nmetadata: [unclosed\n',
      'plain/bomb.yaml': `kind: RightsizingPolicy\napiVersion: kerf.getkerf.dev/v1alpha1\na: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`).join('\n')}\n`,
      'plain/kinds.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: skipped}\n---\nkind: RightsizingPolicie\nmetadata: {name: near}\n---\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {template: {spec: {containers: [{name: app, resources: {requests: {cpu: .nan, memory: .inf}}}]}}}\n',
    });
    const alone = await readRepoFiles(repo, { workers: 0 });
    expect(alone.errors.map((error) => error.code)).toEqual(['NotUtf8', 'AliasLimit', 'DuplicateKey', 'YamlSyntax', 'NotUtf8']);
    await expectSameScans(repo);
  });

  it('rejects, rather than scan in part, when a worker fails', async () => {
    const repo = await repoWith({ 'a.yaml': 'kind: Deployment\n', 'b.yaml': 'kind: Deployment\n' });
    registerWorkerEntry(pathToFileURL(join(root, 'missing-entry.js')).href);
    try {
      await expect(readRepoFiles(repo, { workers: 2 })).rejects.toThrow(/Cannot find module/);
    } finally {
      registerWorkerEntry(pathToFileURL(cli).href);
    }
  });

  if (repos.length === 0) it.skip('every real repo (none at ../shared/realworld/repos or ../shared/corpus)', () => {});
  for (const repo of repos) {
    it(`scans ${repo} alike, and plans it byte for byte alike`, async () => {
      await expectSameScans(repo);
      const [alone, pooled] = [await plan(cli, repo, 0), await plan(cli, repo, 2)];
      expect(pooled).toEqual(alone);
    });
  }

  it('starts its workers from the bundled CLI too', async () => {
    const repo = repos[0] ?? join(root, 'examples/shop');
    const [alone, pooled] = [await plan(cli, repo, 0), await plan(bundledCli, repo, 2)];
    expect(pooled).toEqual(alone);
  });
});

/** Every file under `dir` with its text, by path. */
function tree(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
      .map((path) => [path.slice(dir.length), readFileSync(path, 'utf8')]),
  );
}

describe('the edits on worker threads', () => {
  it('write the same files, and plan and write say the same, as one thread does', async () => {
    const repo = await repoWith({
      // Refused (an anchor shared by two containers) beside one that lands, in a plain file.
      'apps/team-002/refused.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: shared, namespace: team-002}
spec:
  template:
    spec:
      containers:
        - {name: app, resources: &res {requests: {cpu: 100m, memory: 128Mi}}}
        - {name: proxy, resources: *res}
---
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: shared, namespace: team-002}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: shared}
  containers: [{name: app, requests: {cpu: 300m, memory: 256Mi}}]
`,
    });
    // Plain files and kustomize overlays, whose files stay with the main thread.
    await generateRepo(repo, { namespaces: 6, perNamespace: 9, perFile: 3, kustomizeEvery: 3 });
    const [one, two] = [`${repo}-one`, `${repo}-two`];
    cpSync(repo, one, { recursive: true });
    cpSync(repo, two, { recursive: true });
    try {
      const [alone, pooled] = [await plan(cli, one, 0, 'write'), await plan(cli, two, 2, 'write')];
      expect(pooled.stdout.replaceAll(two, one)).toEqual(alone.stdout);
      const written = JSON.parse(alone.stdout) as { written: string[]; errors: { code: string }[] };
      expect(written.written.length).toBeGreaterThan(5);
      expect(written.errors.map((error) => error.code)).toEqual(['SharedAnchor']);
      expect(tree(two)).toEqual(tree(one));
      expect(await plan(cli, repo, 2)).toEqual(await plan(cli, repo, 0));
    } finally {
      await Promise.all([one, two].map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });
});
