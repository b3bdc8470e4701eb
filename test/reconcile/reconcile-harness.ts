// End-to-end setup for reconcile tests: a copy of examples/shop in a bare repo behind the git
// smart-HTTP stand-in, the GitHub stand-in over it, and a clone as actions/checkout leaves it
// (origin without credentials, shallow unless asked otherwise). Real git, real octokit, real HTTP.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { createGit, type GitPort } from '../../src/git/git.js';
import { createGitHub, type GitHubOptions, type GitHubPort } from '../../src/github/github.js';
import type { ReconcileOptions } from '../../src/reconcile/reconcile.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import type { LoopPorts } from '../../src/reconcile/close-loop.js';
import { reconcileThenCloseLoop } from '../../src/reconcile/reconcile-command.js';
import type { FileChanges } from '../standins/git/bare-repo.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import { startGitHub, type GitHubStandIn } from '../standins/github/github-server.js';
import type { GitHubSettings } from '../standins/github/github-routes.js';

export const TOKEN = 'ghs_reconcile_secret_token_0123456789';
export const OWNER = 'acme';
export const NOW = new Date('2026-12-02T10:00:00Z');
export const KERF = { name: 'kerf-gitops', email: 'kerf-gitops@users.noreply.github.com' };
export const SOMEONE = { name: 'Dana Dev', email: 'dana@example.test' };
export const EXAMPLE = join(import.meta.dirname, '../../examples/shop');

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** examples/shop as path → content, for a bare repo's first commit. */
export async function exampleFiles(): Promise<FileChanges> {
  const files: FileChanges = {};
  for (const path of await filesUnder(EXAMPLE)) files[relative(EXAMPLE, path).split(sep).join('/')] = await readFile(path, 'utf8');
  return files;
}

export interface Harness {
  readonly repo: string;
  readonly gh: GitHubStandIn;
  readonly clone: string;
  readonly bare: string;
  /** A reconcile run with real ports (then the loop, with `wrap.loop`); `wrap` decorates them (to inject races). */
  run(
    options?: Partial<ReconcileOptions>,
    wrap?: {
      git?: (port: GitPort) => GitPort;
      github?: (port: GitHubPort) => GitHubPort;
      budget?: GitHubOptions['budget'];
      /** The loop's ports, built over the run's own; the loop is closed after the run, as the CLI does. */
      loop?: (ports: { git: GitPort; github: GitHubPort }) => LoopPorts;
    },
  ): Promise<ReconcileResult>;
  /** Pushes to origin's git receive-pack so far. */
  pushes(): number;
  head(branch: string): Promise<string | null>;
  /** A file as a branch of the bare repo holds it. */
  show(branch: string, path: string): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

export async function startHarness(
  git: GitServer,
  options: {
    shallow?: boolean;
    /** Added to (or replacing files of) the repo's first commit. */
    files?: FileChanges;
    /** The repo's files instead of examples/shop. */
    baseFiles?: FileChanges;
    settings?: Partial<GitHubSettings>;
  } = {},
): Promise<Harness> {
  const repo = `shop-${process.pid}-${++counter}`;
  await git.createBareRepo(OWNER, repo, { files: { ...(options.baseFiles ?? (await exampleFiles())), ...options.files } });
  const gh = await startGitHub({ git, token: TOKEN, owner: OWNER, repo, ...(options.settings && { settings: options.settings }) });
  const work = await mkdtemp(join(tmpdir(), 'kerf-reconcile-'));
  const clone = join(work, 'checkout');
  const depth = options.shallow === false ? [] : ['--depth', '1'];
  await runGit(['clone', '--quiet', ...depth, git.url(OWNER, repo, { token: TOKEN }), clone], { cwd: work });
  // As actions/checkout leaves it: origin without credentials (kerf sends the token itself).
  await runGit(['remote', 'set-url', 'origin', git.url(OWNER, repo, { token: null })], { cwd: clone });
  const bare = git.bareDir(OWNER, repo);
  const receivePacks = () => git.requests.filter((r) => r.method === 'POST' && r.path === `/${OWNER}/${repo}.git/git-receive-pack`).length;

  return {
    repo,
    gh,
    clone,
    bare,
    async run(overrides = {}, wrap = {}) {
      const gitPort = await createGit({ repo: clone, token: TOKEN });
      const github = createGitHub({
        token: TOKEN,
        apiUrl: gh.url,
        repository: `${OWNER}/${repo}`,
        budget: { baseMs: 10, ...wrap.budget },
        pacing: { writeMs: 0, notificationMs: 0 },
      });
      const ports = { git: wrap.git ? wrap.git(gitPort) : gitPort, github: wrap.github ? wrap.github(github) : github };
      return reconcileThenCloseLoop(
        { repo: clone, recommendations: [], now: NOW, fleetPaused: false, cwd: process.cwd(), dryRun: false, ...overrides },
        { ...ports, secrets: [TOKEN], clock: () => new Date() },
        wrap.loop?.(ports),
      );
    },
    pushes: receivePacks,
    head: (branch) => git.headOf(OWNER, repo, branch),
    show: (branch, path) => runGit(['show', `refs/heads/${branch}:${path}`], { cwd: bare }),
    async close() {
      await rm(work, { recursive: true, force: true });
      await gh.close();
    },
  };
}

/** The example's recommendations file without the documents of the named workloads. */
export async function recommendationsWithout(...names: string[]): Promise<string> {
  const text = await readFile(join(EXAMPLE, 'recommendations/shop.yaml'), 'utf8');
  return text
    .split(/^---\n/m)
    .filter((doc) => !names.some((name) => new RegExp(`^  name: ${name}$`, 'm').test(doc)))
    .join('---\n');
}

/** {@link harnessPerTest} with the git stand-in as a property. */
export function reconcileStandIns(): { readonly git: GitServer; start(options?: Parameters<typeof startHarness>[1]): Promise<Harness> } {
  const stands = harnessPerTest();
  return {
    get git() {
      return stands.git();
    },
    start: stands.start,
  };
}

/**
 * For a test file: one git stand-in for the file, and the harness a test starts closed after it
 * (which fails the test on any schema violation the GitHub stand-in saw).
 */
export function harnessPerTest(): { git: () => GitServer; start: (options?: Parameters<typeof startHarness>[1]) => Promise<Harness>; closeCurrent: () => Promise<void> } {
  let git: GitServer | undefined;
  let current: Harness | undefined;
  const closeCurrent = async () => {
    await current?.close();
    current = undefined;
  };
  beforeAll(async () => {
    git = await startGitServer({ token: TOKEN });
  });
  afterAll(async () => {
    await git?.close();
  });
  afterEach(closeCurrent);
  return {
    git: () => git as GitServer,
    start: async (options) => {
      await closeCurrent();
      current = await startHarness(git as GitServer, options);
      return current;
    },
    closeCurrent,
  };
}
