// The Git port over simple-git: read what origin holds, build kerf branches in a throw-away
// work tree (the user's checkout is never touched), and push with an explicit lease.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { writeFilesAtomic } from '../util/atomic-write.js';
import { redact } from '../util/redact.js';

export interface GitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_AUTHOR: GitIdentity = { name: 'kerf-gitops', email: 'kerf-gitops@users.noreply.github.com' };


export interface CommitInfo {
  sha: string;
  parents: string[];
  authorEmail: string;
  committerEmail: string;
  message: string;
}

export type PushResult =
  | { kind: 'pushed' }
  /** Someone else moved the branch since kerf looked: its head is now `remoteSha` (null: deleted). */
  | { kind: 'lease-rejected'; remoteSha: string | null }
  /** Refused for another reason (a hook, a rule), with git's words. */
  | { kind: 'rejected'; message: string };

export interface Worktree {
  readonly root: string;
  /** Back to `sha`, every change dropped. */
  reset(sha: string): Promise<void>;
  /** Writes the files, commits them as `author` (author and committer), and resolves with the commit. */
  commit(files: readonly { path: string; content: string }[], message: string, author: GitIdentity): Promise<string>;
  close(): Promise<void>;
}

export interface GitPort {
  /** Origin's default branch (where its HEAD points). */
  defaultBranch(): Promise<string>;
  /** Origin's branches under `prefix` now: name → head sha. */
  branches(prefix: string): Promise<Map<string, string>>;
  /** Fetches branches to `refs/remotes/origin/*` (in a shallow clone only `depth` commits of each); name → fetched head. */
  fetch(branches: readonly string[], depth: number): Promise<Map<string, string>>;
  commitInfo(sha: string): Promise<CommitInfo>;
  /** Whether the change `parent → head` still applies to `base` without conflicts (a three-way merge per file). */
  mergesCleanly(parent: string, head: string, base: string): Promise<boolean>;
  openWorktree(sha: string): Promise<Worktree>;
  /** Pushes `sha` to `branch` only if origin's branch is still at `expected` (null: must not exist). */
  push(sha: string, branch: string, expected: string | null): Promise<PushResult>;
  /** Deletes `branch` only if origin's branch is still at `expected`: a commit pushed since is never dropped. */
  deleteBranch(branch: string, expected: string): Promise<PushResult>;
}

export type GitErrorCode = 'GitFailed' | 'NoOrigin';

export class GitError extends Error {
  constructor(
    readonly code: GitErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  /** The clone, with `origin` the repository (as actions/checkout leaves it). */
  repo: string;
  /** Sent as the Authorization header of actions/checkout's shape; optional when the clone already authenticates (a token in origin's URL is moved there too). */
  token?: string;
}

const STALE_LEASE = /stale info/;

/** Origin's URL without user name and password, and the password it carried (a token in the URL). */
export function withoutCredentials(url: string): { url: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url }; // scp-like (`git@host:repo`) or a path: nothing to strip
  }
  if (!/^https?:$/.test(parsed.protocol) || (parsed.username === '' && parsed.password === '')) return { url };
  // `https://<token>@host/…` carries a GitHub token as the user name (their prefixes say so).
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password) || (/^(gh[pousr]_|github_pat_)/.test(user) ? user : '');
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), ...(password && { password }) };
}

/**
 * Settings on every command, passed as git's `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`
 * environment so none of them is in any process's argv (other local users read `/proc/<pid>/cmdline`):
 * no line-ending conversion (edits are byte-exact), and the token as an extra header for origin's
 * URL, the shape actions/checkout persists. An empty value first clears a header persisted for
 * that URL, so exactly one Authorization header goes out.
 */
function configEnv(remoteUrl: string, token: string | undefined, extra: readonly [string, string][] = []): Record<string, string> {
  const config: [string, string][] = [['core.autocrlf', 'false'], ['core.safecrlf', 'false'], ...extra];
  if (token) {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    config.push([`http.${remoteUrl}.extraheader`, ''], [`http.${remoteUrl}.extraheader`, `AUTHORIZATION: basic ${basic}`]);
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !GUARDED_ENV.test(key)) env[key] = value;
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * What simple-git drops from the inherited environment (and refuses in an explicit one): GIT_*
 * (a caller's GIT_DIR must not pick the repo) and the editors, pagers and askpass programs.
 */
const GUARDED_ENV = /^(git_.*|editor|visual|pager|prefix|ssh_askpass)$/i;

/** A simple-git client whose config arrives through the environment (which simple-git blocks unless told). */
function gitIn(baseDir: string, env: Record<string, string>): SimpleGit {
  const allowEnvironment = Object.keys(env).filter((key) => key.startsWith('GIT_CONFIG_'));
  return simpleGit({ baseDir, allowEnvironment, allowConfig: ['http.*.extraheader', 'core.autocrlf', 'core.safecrlf', 'user.name', 'user.email'], unsafe: { allowUnsafeConfigEnvCount: true } }).env(env);
}

export async function createGit(options: GitOptions): Promise<GitPort> {
  let origin: string;
  try {
    origin = (await simpleGit({ baseDir: options.repo }).remote(['get-url', 'origin']))?.trim() ?? '';
  } catch (error) {
    throw new GitError('NoOrigin', `${options.repo} is not a clone with an origin remote: ${redact((error as Error).message.trim(), options.token ? [options.token] : [])}`, { cause: error });
  }
  // Commands name origin by its bare URL: a remote helper gets the URL in its argv, so credentials
  // in origin's URL would be readable there; the token they held goes into the header instead.
  const { url: remote, password } = withoutCredentials(origin);
  const token = options.token || password;
  const secrets = [token, password].filter((secret): secret is string => Boolean(secret));
  const fail = (what: string, error: unknown): GitError =>
    new GitError('GitFailed', redact(`git: cannot ${what}: ${String((error as Error)?.message ?? error).trim()}`, secrets), { cause: error });
  const git = gitIn(options.repo, configEnv(remote, token));
  const run = async (what: string, args: string[], in_: SimpleGit = git): Promise<string> => {
    try {
      return await in_.raw(args);
    } catch (error) {
      throw fail(what, error);
    }
  };
  const shallow = async () => (await run('inspect the clone', ['rev-parse', '--is-shallow-repository'])).trim() === 'true';
  const lsRemote = async (args: string[]): Promise<string> => run('list the branches of origin', ['ls-remote', ...args]);
  /** Pushes `refspec` (an empty source deletes) only while origin's `branch` is still at `expected`. */
  const pushWithLease = async (refspec: string, branch: string, expected: string | null): Promise<PushResult> => {
    const ref = `refs/heads/${branch}`;
    try {
      await git.raw(['push', '--quiet', '--no-verify', `--force-with-lease=${ref}:${expected ?? ''}`, remote, refspec]);
      return { kind: 'pushed' };
    } catch (error) {
      const message = redact(String((error as Error).message).trim(), secrets);
      // The lease is the only judge of "someone else moved it"; confirm with what origin holds now.
      const now = (await lsRemote([remote, ref])).split('\n').map((line) => /^([0-9a-f]{40,64})\t/.exec(line)?.[1]).find(Boolean) ?? null;
      if (STALE_LEASE.test(message) || now !== expected) return { kind: 'lease-rejected', remoteSha: now };
      return { kind: 'rejected', message };
    }
  };

  return {
    async defaultBranch() {
      const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(await lsRemote(['--symref', remote, 'HEAD']));
      if (!symref?.[1]) throw new GitError('GitFailed', 'git: origin does not say which branch is its default (HEAD)');
      return symref[1];
    },

    async branches(prefix) {
      const heads = new Map<string, string>();
      for (const line of (await lsRemote(['--heads', remote, `refs/heads/${prefix}*`])).split('\n')) {
        const ref = /^([0-9a-f]{40,64})\trefs\/heads\/(\S+)$/.exec(line);
        if (ref?.[1] && ref[2]) heads.set(ref[2], ref[1]);
      }
      return heads;
    },

    async fetch(branches, depth) {
      const heads = new Map<string, string>();
      if (branches.length === 0) return heads;
      const refspecs = branches.map((branch) => `+refs/heads/${branch}:refs/remotes/origin/${branch}`);
      // --depth in a full clone would make it shallow; only a shallow clone needs the limit.
      const limit = (await shallow()) ? [`--depth=${depth}`] : [];
      await run(`fetch ${branches.join(', ')}`, ['fetch', '--quiet', '--no-tags', ...limit, remote, ...refspecs]);
      for (const branch of branches) {
        heads.set(branch, (await run(`read origin/${branch}`, ['rev-parse', '--verify', `refs/remotes/origin/${branch}^{commit}`])).trim());
      }
      return heads;
    },

    async commitInfo(sha) {
      const out = await run(`read commit ${sha}`, ['log', '-1', '--format=%H%x00%P%x00%ae%x00%ce%x00%B', sha]);
      const [full = sha, parents = '', authorEmail = '', committerEmail = '', message = ''] = out.split('\0');
      return { sha: full, parents: parents.split(' ').filter(Boolean), authorEmail, committerEmail, message };
    },

    async mergesCleanly(parent, head, base) {
      const changed = (await run('diff a kerf branch', ['diff', '--name-only', '-z', '--no-renames', parent, head])).split('\0').filter(Boolean);
      const blob = async (sha: string, path: string): Promise<string | null> => {
        const listed = (await run(`list ${path}`, ['ls-tree', '-z', sha, '--', path])).split('\0')[0] ?? '';
        return /^\d+ blob ([0-9a-f]+)\t/.exec(listed)?.[1] ?? null;
      };
      const scratch = await mkdtemp(join(tmpdir(), 'kerf-merge-'));
      try {
        for (const path of changed) {
          const [before, after, current] = await Promise.all([blob(parent, path), blob(head, path), blob(base, path)]);
          if (current === before || current === after) continue;
          if (current === null || before === null || after === null) return false;
          const files = await Promise.all(
            [current, before, after].map(async (sha, i) => {
              const file = join(scratch, String(i));
              await writeFile(file, await run(`read ${path}`, ['cat-file', 'blob', sha]));
              return file;
            }),
          );
          // Exit status = number of conflicts; simple-git turns a non-zero status into an error.
          const clean = await git.raw(['merge-file', '--quiet', '-p', ...files]).then(() => true, () => false);
          if (!clean) return false;
        }
        return true;
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },

    async openWorktree(sha) {
      const root = await mkdtemp(join(tmpdir(), 'kerf-worktree-'));
      await run('create a work tree', ['worktree', 'add', '--quiet', '--detach', root, sha]);
      const tree = gitIn(root, configEnv(remote, token));
      return {
        root,
        async reset(to) {
          await run(`reset the work tree to ${to}`, ['checkout', '--quiet', '--force', '--detach', to], tree);
          await run('clean the work tree', ['clean', '--quiet', '-d', '--force'], tree);
        },
        async commit(files, message, author) {
          await writeFilesAtomic(root, files);
          await run('stage the edits', ['add', '--', ...files.map((file) => file.path)], tree);
          const identity = gitIn(root, configEnv(remote, token, [['user.name', author.name], ['user.email', author.email]]));
          // --no-verify: a repository's pre-commit hooks (formatters) must not rewrite kerf's byte-exact edits.
          await run('commit', ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--message', message], identity);
          return (await run('read the new commit', ['rev-parse', 'HEAD'], tree)).trim();
        },
        async close() {
          await git.raw(['worktree', 'remove', '--force', root]).catch(() => undefined);
          await rm(root, { recursive: true, force: true });
          await git.raw(['worktree', 'prune']).catch(() => undefined);
        },
      };
    },

    push(sha, branch, expected) {
      return pushWithLease(`${sha}:refs/heads/${branch}`, branch, expected);
    },

    deleteBranch(branch, expected) {
      return pushWithLease(`:refs/heads/${branch}`, branch, expected);
    },
  };
}
