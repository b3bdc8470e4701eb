// Repos of a few files under the temp dir, for tests that scan or plan them; removed after each test.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

/** A `repoWith(files)` that writes each file (path → text or bytes) into a fresh temp dir; call at the top of a test file. */
export function tempRepos(prefix: string): (files: Record<string, string | Buffer>) => Promise<string> {
  let dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    dirs = [];
  });
  return async (files) => {
    const root = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(root);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    return root;
  };
}
