import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from './git-server.js';
import { GitCommandError, runGit } from './run-git.js';

const TOKEN = 'ghs_test_token';
const OWNER = 'acme';
const someoneElse = { name: 'Someone Else', email: 'someone@example.test' };

let git: GitServer;
let work: string;
let repoCounter = 0;
let repo: string;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
beforeEach(async (context) => {
  work = await mkdtemp(path.join(tmpdir(), 'kerf-git-standin-test-'));
  context.onTestFinished(() => rm(work, { recursive: true, force: true }));
  repo = `deploy-${++repoCounter}`;
  await git.createBareRepo(OWNER, repo, {
    files: { 'apps/cart/deployment.yaml': 'kind: Deployment\n', 'README.md': '# deploy\n' },
  });
});

/** Clones into `work/<dir>` and gives the clone a local identity (a fresh runner has none). */
async function clone(dir: string, extraArgs: string[] = []): Promise<string> {
  await runGit(['clone', '--quiet', ...extraArgs, git.url(OWNER, repo), dir], { cwd: work });
  const cwd = path.join(work, dir);
  await runGit(['config', 'user.name', 'Kerf Test'], { cwd });
  await runGit(['config', 'user.email', 'kerf-test@example.test'], { cwd });
  return cwd;
}

async function commitFile(cwd: string, file: string, content: string): Promise<string> {
  await writeFile(path.join(cwd, file), content);
  await runGit(['add', file], { cwd });
  await runGit(['commit', '--quiet', '-m', `edit ${file}`], { cwd });
  return runGit(['rev-parse', 'HEAD'], { cwd });
}

describe('git smart-HTTP stand-in', () => {
  it('answers a missing or wrong token with 401 and a Basic challenge, as GitHub does', async () => {
    const infoRefs = `${git.baseUrl}/${OWNER}/${repo}.git/info/refs?service=git-upload-pack`;
    const missing = await fetch(infoRefs);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Basic realm="GitHub"');
    const wrong = await fetch(infoRefs, {
      headers: { authorization: `Basic ${Buffer.from('x-access-token:nope').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);

    const failure = runGit(['clone', git.url(OWNER, repo, { token: 'nope' }), 'denied'], { cwd: work });
    // GIT_TERMINAL_PROMPT=0: git fails at once instead of asking for a password.
    await expect(failure).rejects.toThrow(/Authentication failed/);
  });

  it('clones over HTTP, full and shallow (--depth 1)', async () => {
    const full = await clone('full');
    expect(await readFile(path.join(full, 'apps/cart/deployment.yaml'), 'utf8')).toBe('kind: Deployment\n');
    await git.pushAs(OWNER, repo, someoneElse, 'main', { 'README.md': '# deploy v2\n' });

    const shallow = await clone('shallow', ['--depth', '1']);
    expect(await runGit(['rev-parse', '--is-shallow-repository'], { cwd: shallow })).toBe('true');
    expect(await runGit(['rev-list', '--count', 'HEAD'], { cwd: shallow })).toBe('1');
    expect(await runGit(['rev-parse', 'HEAD'], { cwd: shallow })).toBe(await git.headOf(OWNER, repo, 'main'));
    expect(await readFile(path.join(shallow, 'README.md'), 'utf8')).toBe('# deploy v2\n');
  });

  it('accepts a clone URL without credentials plus an Authorization extraheader (the actions/checkout shape)', async () => {
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    await runGit(
      ['-c', `http.extraheader=AUTHORIZATION: basic ${basic}`, 'clone', '--quiet', git.url(OWNER, repo, { token: null }), 'co'],
      { cwd: work },
    );
    expect(await readFile(path.join(work, 'co/README.md'), 'utf8')).toBe('# deploy\n');
  });

  it('takes a push of a new branch from a shallow clone with a lease that says "must not exist"', async () => {
    const cwd = await clone('shallow', ['--depth', '1']);
    await runGit(['checkout', '--quiet', '-b', 'kerf/shop/deployment/cart'], { cwd });
    const sha = await commitFile(cwd, 'apps/cart/deployment.yaml', 'kind: Deployment\n# resized\n');
    await runGit(['push', '--quiet', '--force-with-lease=kerf/shop/deployment/cart:', 'origin', 'HEAD:kerf/shop/deployment/cart'], {
      cwd,
    });
    expect(await git.headOf(OWNER, repo, 'kerf/shop/deployment/cart')).toBe(sha);
    const pushes = git.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git-receive-pack'));
    expect(pushes.at(-1)?.status).toBe(200);
  });

  it('honours --force-with-lease=<branch>:<sha>: a rewrite over the expected head goes in', async () => {
    const cwd = await clone('co');
    await runGit(['checkout', '--quiet', '-b', 'kerf/a'], { cwd });
    const first = await commitFile(cwd, 'x.txt', 'one\n');
    await runGit(['push', '--quiet', 'origin', 'kerf/a'], { cwd });
    // Rebuild the branch from main (a force push, not a fast-forward).
    await runGit(['reset', '--quiet', '--hard', 'origin/main'], { cwd });
    const rebuilt = await commitFile(cwd, 'x.txt', 'two\n');
    await runGit(['push', '--quiet', `--force-with-lease=kerf/a:${first}`, 'origin', 'HEAD:kerf/a'], { cwd });
    expect(await git.headOf(OWNER, repo, 'kerf/a')).toBe(rebuilt);
  });

  it('rejects a lease once someone else pushed to the branch, and keeps their commit', async () => {
    const cwd = await clone('co');
    await runGit(['checkout', '--quiet', '-b', 'kerf/a'], { cwd });
    const ours = await commitFile(cwd, 'x.txt', 'ours\n');
    await runGit(['push', '--quiet', 'origin', 'kerf/a'], { cwd });
    const theirs = await git.pushAs(OWNER, repo, someoneElse, 'kerf/a', { 'x.txt': 'theirs\n' });
    expect(theirs).not.toBe(ours);

    await commitFile(cwd, 'x.txt', 'ours again\n');
    const push = runGit(['push', `--force-with-lease=kerf/a:${ours}`, 'origin', 'HEAD:kerf/a'], { cwd });
    await expect(push).rejects.toThrow(/stale info/);
    expect(await git.headOf(OWNER, repo, 'kerf/a')).toBe(theirs);
  });

  it('pushAs commits as the given author on top of the branch and can remove files', async () => {
    const before = await git.headOf(OWNER, repo, 'main');
    const after = await git.pushAs(OWNER, repo, someoneElse, 'main', { 'README.md': null, 'new.txt': 'n\n' });
    const dir = git.bareDir(OWNER, repo);
    expect(await runGit(['rev-parse', `${after}^`], { cwd: dir })).toBe(before);
    expect(await runGit(['log', '-1', '--format=%an <%ae>', after], { cwd: dir })).toBe(
      'Someone Else <someone@example.test>',
    );
    expect((await runGit(['ls-tree', '-r', '--name-only', after], { cwd: dir })).split('\n')).toEqual([
      'apps/cart/deployment.yaml',
      'new.txt',
    ]);
    expect(await git.headOf(OWNER, repo, 'no/such/branch')).toBeNull();
  });

  it('reports a git failure with its exit code and stderr', async () => {
    const failure = await runGit(['rev-parse', '--verify', 'nope'], { cwd: git.bareDir(OWNER, repo) }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).exitCode).toBe(128);
  });
});
