import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { GitCommandError, runGit, type GitIdentity } from './run-git.js';

/** Path → content; `null` removes the path. */
export type FileChanges = Record<string, string | null>;

const ZERO_OID = '0'.repeat(40);

export interface CommitOptions {
  branch: string;
  files: FileChanges;
  identity: GitIdentity;
  message: string;
  /** Where a branch that does not exist yet starts (a revision, e.g. `HEAD`); without it, a root commit. */
  from?: string;
}

/** The commit a branch points at, or null when the branch does not exist. */
export async function branchHead(bareDir: string, branch: string): Promise<string | null> {
  try {
    return await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: bareDir });
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === 1) return null;
    throw error;
  }
}

/**
 * Commits `files` on top of the branch (or as its first commit) straight into a
 * bare repository, through a throw-away index, so no work tree is needed. The
 * ref moves only if nobody moved it meanwhile (compare-and-swap).
 */
export async function commitToBranch(bareDir: string, options: CommitOptions): Promise<string> {
  const current = await branchHead(bareDir, options.branch);
  const parent =
    current ??
    (options.from ? await runGit(['rev-parse', '--verify', `${options.from}^{commit}`], { cwd: bareDir }) : null);
  const indexFile = path.join(bareDir, `standin-index-${randomUUID()}`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    if (parent) await runGit(['read-tree', parent], { cwd: bareDir, env });
    const lines: string[] = [];
    for (const [file, content] of Object.entries(options.files)) {
      if (content === null) {
        lines.push(`0 ${ZERO_OID}\t${file}`);
      } else {
        const blob = await runGit(['hash-object', '-w', '--stdin'], { cwd: bareDir, input: content });
        lines.push(`100644 ${blob}\t${file}`);
      }
    }
    if (lines.length > 0) {
      await runGit(['update-index', '--index-info'], { cwd: bareDir, env, input: `${lines.join('\n')}\n` });
    }
    const tree = await runGit(['write-tree'], { cwd: bareDir, env });
    const parents = parent ? ['-p', parent] : [];
    const commit = await runGit(['commit-tree', tree, ...parents, '-m', options.message], {
      cwd: bareDir,
      identity: options.identity,
    });
    await runGit(['update-ref', `refs/heads/${options.branch}`, commit, current ?? ZERO_OID], { cwd: bareDir });
    return commit;
  } finally {
    await rm(indexFile, { force: true });
  }
}

export class MergeConflictError extends Error {
  readonly code = 'MERGE_CONFLICT';
}

/** The tree of merging `headSha` into `baseSha` (`git merge-tree`, no work tree), or null on conflicts. */
export async function mergedTree(bareDir: string, baseSha: string, headSha: string): Promise<string | null> {
  try {
    return (await runGit(['merge-tree', '--write-tree', baseSha, headSha], { cwd: bareDir })).split('\n')[0] ?? null;
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === 1) return null;
    throw error;
  }
}

/** A real two-parent merge commit of `head` into `base`. */
export async function mergeBranch(
  bareDir: string,
  options: { base: string; head: string; message: string; identity: GitIdentity },
): Promise<string> {
  const [baseSha, headSha] = await Promise.all([branchHead(bareDir, options.base), branchHead(bareDir, options.head)]);
  if (!baseSha || !headSha) throw new Error(`cannot merge ${options.head} into ${options.base}: a branch is missing`);
  const tree = await mergedTree(bareDir, baseSha, headSha);
  if (!tree) throw new MergeConflictError(`${options.head} does not merge cleanly into ${options.base}`);
  const commit = await runGit(['commit-tree', tree, '-p', baseSha, '-p', headSha, '-m', options.message], {
    cwd: bareDir,
    identity: options.identity,
  });
  await runGit(['update-ref', `refs/heads/${options.base}`, commit, baseSha], { cwd: bareDir });
  return commit;
}

export async function deleteBranch(bareDir: string, branch: string): Promise<void> {
  await runGit(['update-ref', '-d', `refs/heads/${branch}`], { cwd: bareDir });
}
