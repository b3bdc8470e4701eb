// Helm-rendered workloads end to end: examples/helm (Flux HelmReleases and Argo CD Applications)
// through real git over smart HTTP and octokit against the GitHub stand-in, and the built CLI.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';

const example = join(import.meta.dirname, '../../examples/helm');
const cli = join(import.meta.dirname, '../../lib/cli.js');
const run = promisify(execFile);
let git: GitServer;
let h: Harness | undefined;
const temps: string[] = [];

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function exampleFiles(dir = example): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) files[relative(example, join(entry.parentPath, entry.name)).split(sep).join('/')] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

async function kerf(args: string[]) {
  try {
    const { stdout, stderr } = await run('node', [cli, ...args, '--now', '2026-12-02T10:00:00Z'], { env: { ...process.env, KERF_PAUSE: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('Helm workloads get pull requests', () => {
  it('a Flux HelmRelease and an Argo CD Application each get a PR editing only their values', async () => {
    h = await startHarness(git, { baseFiles: await exampleFiles(), settings: {} });
    const result = await h.run();
    const branches = h.gh.state.prs.map((pr) => pr.head).sort();
    // prHourlyLimit (4) holds the fifth.
    expect(branches).toEqual(['kerf/api/deployment/api', 'kerf/echo/deployment/echo', 'kerf/guestbook/deployment/guestbook-helm-guestbook', 'kerf/ingress-nginx/deployment/ingress-nginx-controller']);
    expect(result.pullRequests.find((pr) => pr.branch === 'kerf/echo/deployment/echo')).toMatchObject({ action: 'opened', targets: ['echo/Deployment/echo'] });
    expect(result.pullRequests.find((pr) => pr.branch === 'kerf/podinfo/deployment/podinfo')).toMatchObject({ action: 'held' });
    // The HelmRelease itself is left alone: its values come from the ConfigMap.
    // (show() gives the blob as git prints it, without its last newline.)
    expect(await h.show('kerf/echo/deployment/echo', 'apps/echo/release.yaml')).toBe((await readFile(join(example, 'apps/echo/release.yaml'), 'utf8')).trimEnd());
    const echo = await h.show('kerf/echo/deployment/echo', 'apps/echo/values.yaml');
    expect(echo).toBe((await readFile(join(example, 'apps/echo/values.yaml'), 'utf8')).replace('cpu: 10m\n                memory: 64Mi\n', 'cpu: 20m\n                memory: 48Mi\n              limits:\n                memory: 96Mi\n').trimEnd());
    const guestbook = await h.show('kerf/guestbook/deployment/guestbook-helm-guestbook', 'argocd/guestbook.yaml');
    expect(guestbook).toBe((await readFile(join(example, 'argocd/guestbook.yaml'), 'utf8')).replace('memory: 512Mi', 'memory: 256Mi').replace('{cpu: 100m, memory: 128Mi}', '{cpu: 50m, memory: 96Mi}').trimEnd());
    const body = h.gh.state.prs.find((pr) => pr.head === 'kerf/guestbook/deployment/guestbook-helm-guestbook')?.body ?? '';
    expect(body).toContain('| `guestbook/Deployment/guestbook-helm-guestbook` | `helm-guestbook` | `limits.memory` | 512Mi | 256Mi |');
  });
});

describe('the built CLI on a Helm repo', () => {
  it('plan --output json names the unmapped release; write edits the values files only', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'kerf-helm-cli-'));
    temps.push(repo);
    await cp(example, repo, { recursive: true });
    const planned = await kerf(['plan', '--repo', repo, '--output', 'json']);
    expect(planned.code).toBe(1);
    const plan = JSON.parse(planned.stdout);
    expect(plan.errors.map((error: { code: string }) => error.code)).toEqual(['HelmWorkloadNotMapped']);
    expect(plan.decisions.find((d: { target: { name: string } }) => d.target.name === 'podinfo').changes[0]).toEqual({ container: 'podinfo', field: 'requests.cpu', from: '100m', to: '50m', file: 'apps/podinfo/release.yaml' });
    const written = await kerf(['write', '--repo', repo, '--output', 'json']);
    expect(JSON.parse(written.stdout).written.sort()).toEqual(['apps/echo/values.yaml', 'apps/podinfo/release.yaml', 'argocd/guestbook.yaml', 'argocd/ingress-nginx.yaml', 'charts/api/values-prod.yaml']);
    expect(await readFile(join(repo, 'apps/podinfo/release.yaml'), 'utf8')).toBe(
      (await readFile(join(example, 'apps/podinfo/release.yaml'), 'utf8')).replace('memory: 256Mi', 'memory: 192Mi').replace('cpu: 100m', 'cpu: 50m').replace('memory: 64Mi', 'memory: 96Mi'),
    );
    // Everything landed: a second write has nothing to do.
    const again = await kerf(['write', '--repo', repo]);
    expect(again.stdout).toMatch(/No file changed\./);
  });
});
