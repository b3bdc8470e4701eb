import { execFile } from 'node:child_process';

export interface GitIdentity {
  name: string;
  email: string;
}

export interface RunGitOptions {
  cwd: string;
  /** Written to git's stdin. */
  input?: string;
  /** Extra environment, e.g. GIT_INDEX_FILE. */
  env?: Record<string, string>;
  /** Author and committer of commits this command makes. */
  identity?: GitIdentity;
}

export class GitCommandError extends Error {
  readonly code = 'GIT_FAILED';
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly stdout: string,
  ) {
    super(`git ${args.join(' ')} failed (exit ${exitCode}): ${stderr.trim()}`);
  }
}

/**
 * Environment that keeps git from prompting, from reading the machine's or the
 * user's config, and from picking up the identity of whoever runs the tests.
 */
export function isolatedGitEnv(identity?: GitIdentity): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  // A stray repo from the caller's environment must never be the target.
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY']) delete env[key];
  if (identity) {
    env.GIT_AUTHOR_NAME = identity.name;
    env.GIT_AUTHOR_EMAIL = identity.email;
    env.GIT_COMMITTER_NAME = identity.name;
    env.GIT_COMMITTER_EMAIL = identity.email;
  }
  return env;
}

/** Runs git and resolves with its stdout (trailing newline removed); rejects with GitCommandError. */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: { ...isolatedGitEnv(options.identity), ...options.env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const exitCode = typeof error.code === 'number' ? error.code : null;
          reject(new GitCommandError(args, exitCode, stderr, stdout));
        } else {
          resolve(stdout.replace(/\n$/, ''));
        }
      },
    );
    // git may exit before reading stdin (e.g. a failing command); its exit code reports that, not EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}
