// Writing an edited manifest: never outside the repository, never half-written.
import { randomBytes } from 'node:crypto';
import { lstat, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type WriteFileErrorCode = 'OutsideRepository' | 'NotAFile';

export class WriteFileError extends Error {
  readonly code: WriteFileErrorCode;
  /** The path as the caller gave it. */
  readonly path: string;

  constructor(code: WriteFileErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WriteFileError';
    this.code = code;
    this.path = path;
  }
}

/**
 * Replaces `relativePath` under `repoRoot` with `content` through a temporary file in the same
 * directory and a rename, so readers see the old or the new file, never a torn one. The path
 * must stay inside the repository once `..` and symbolic links are resolved; a symlinked file is
 * written at its target (the link stays), and an existing file keeps its mode.
 */
export async function writeFileAtomic(repoRoot: string, relativePath: string, content: string): Promise<void> {
  const root = await realpath(repoRoot);
  const requested = resolve(root, relativePath);
  const outside = (where: string): WriteFileError =>
    new WriteFileError('OutsideRepository', relativePath, `refusing to write ${JSON.stringify(relativePath)}: it resolves to ${where}, outside the repository ${root}`);
  let target = join(await realpath(dirname(requested)), basename(requested));
  if (!isInside(root, target)) throw outside(target);
  const existing = await lstat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing?.isSymbolicLink()) {
    target = await realpath(target);
    if (!isInside(root, target)) throw outside(target);
  }
  const info = existing ? await stat(target) : undefined;
  const mode = info ? info.mode & 0o7777 : undefined;
  if (info && !info.isFile()) {
    throw new WriteFileError('NotAFile', relativePath, `refusing to write ${JSON.stringify(relativePath)}: ${target} is not a regular file`);
  }

  const temporary = join(dirname(target), `.${basename(target)}.kerf-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(content, 'utf8');
      // The creation mode is filtered by the umask; an existing file's mode is restored exactly.
      if (mode !== undefined) await handle.chmod(mode);
      // No fsync: the rename already gives readers all or nothing, and surviving a power cut is the
      // commit's job (git's own), not the working tree's; an fsync per file tripled write's time.
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Parallel writes: each file is written on its own, so a few at a time overlap their I/O. */
const WRITES_IN_FLIGHT = 8;

/** Writes several files with `writeFileAtomic`; every file is tried, then the first refusal is thrown. */
export async function writeFilesAtomic(repoRoot: string, files: readonly { path: string; content: string }[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const file = files[next++] as { path: string; content: string };
      await writeFileAtomic(repoRoot, file.path, file.content);
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(WRITES_IN_FLIGHT, files.length) }, worker));
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}
