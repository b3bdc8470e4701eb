// The token never in any process's argv (other local users read /proc/<pid>/cmdline on a shared
// runner) and never in output. A `git` shim first on PATH records /proc/$$/cmdline of every git
// kerf starts, and GIT_TRACE, set by the shim, records the argv of every process git starts in
// turn (the remote helpers, which get origin's URL).
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGit } from '../../src/git/git.js';
import { redact } from '../../src/util/redact.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { OWNER, TOKEN, recommendationsWithout, SOMEONE, startHarness, type Harness } from '../reconcile/reconcile-harness.js';

let git: GitServer;
let h: Harness;
let shim: string;
const realPath = process.env.PATH;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git.close();
});
beforeEach(async () => {
  shim = await mkdtemp(join(tmpdir(), 'kerf-git-shim-'));
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await writeFile(
    join(shim, 'git'),
    `#!/bin/sh\n{ tr '\\0' ' ' < /proc/$$/cmdline; echo; } >> '${shim}/cmdlines'\nGIT_TRACE='${shim}/trace' exec '${realGit}' "$@"\n`,
  );
  await chmod(join(shim, 'git'), 0o755);
});
afterEach(async () => {
  process.env.PATH = realPath;
  await h?.close();
  await rm(shim, { recursive: true, force: true });
});

/** Runs `work` with the shim first on PATH; resolves with every recorded command line and trace line. */
async function recorded(work: () => Promise<unknown>): Promise<{ output: unknown; argv: string }> {
  process.env.PATH = `${shim}:${realPath}`;
  let output: unknown;
  try {
    output = await work();
  } finally {
    process.env.PATH = realPath;
  }
  const read = (name: string) => readFile(join(shim, name), 'utf8').catch(() => '');
  return { output, argv: `${await read('cmdlines')}\n${await read('trace')}` };
}

/** Whether `text` holds the token in any form it travels in (as is, URL-encoded, base64 in a header). */
function holdsToken(text: string): boolean {
  return redact(text, [TOKEN]) !== text;
}

describe('the token never in argv', () => {
  it('a whole reconcile run (fetch, push, conditional delete) passes the token through the environment only', async () => {
    h = await startHarness(git);
    await h.run();
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'recommendations/shop.yaml': await recommendationsWithout('orders') });
    const { output, argv } = await recorded(() => h.run());
    // The recording saw the pushes and the remote helpers, so it would have seen a token.
    expect(argv).toMatch(/ push --quiet/);
    expect(argv).toMatch(/git-remote-http/);
    expect(holdsToken(argv)).toBe(false);
    expect((output as { errors: unknown[] }).errors).toEqual([]);
    expect(holdsToken(JSON.stringify(output))).toBe(false);
    expect(await h.head('kerf/shop/deployment/orders')).toBeNull();
  });

  it('credentials in origin\'s URL are stripped before use and sent as the header instead', async () => {
    h = await startHarness(git);
    await runGit(['remote', 'set-url', 'origin', git.url(OWNER, h.repo, { token: TOKEN })], { cwd: h.clone });
    const { output, argv } = await recorded(async () => {
      const port = await createGit({ repo: h.clone });
      const main = (await port.fetch([await port.defaultBranch()], 1)).get('main') as string;
      const pushed = await port.push(main, 'kerf/probe', null);
      const deleted = await port.deleteBranch('kerf/probe', main);
      const failed = await port.fetch(['no-such-branch'], 1).catch((error: Error) => error.message);
      return { pushed, deleted, failed };
    });
    expect(output).toMatchObject({ pushed: { kind: 'pushed' }, deleted: { kind: 'pushed' }, failed: expect.stringContaining('no-such-branch') });
    expect(argv).toMatch(/git-remote-http/);
    expect(holdsToken(argv)).toBe(false);
    expect(holdsToken(JSON.stringify(output))).toBe(false);
    expect(await h.head('kerf/probe')).toBeNull();
  });

  it('a wrong token fails with git\'s words and without any form of the token', async () => {
    h = await startHarness(git);
    const { output, argv } = await recorded(async () => {
      const port = await createGit({ repo: h.clone, token: `${TOKEN}-wrong` });
      return port.defaultBranch().catch((error: Error) => error.message);
    });
    expect(output).toMatch(/^git: cannot list the branches of origin: fatal: could not read Username/);
    expect(redact(argv + String(output), [`${TOKEN}-wrong`])).toBe(argv + String(output));
  });
});
