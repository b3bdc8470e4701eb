import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFilesAtomic } from '../../src/util/atomic-write.js';

let root = '';
afterEach(() => rm(root, { recursive: true, force: true }));

describe('writeFilesAtomic', () => {
  it('writes every file, more than run at once', async () => {
    root = await mkdtemp(join(tmpdir(), 'kerf-write-files-'));
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `f${i}.yaml`, content: `n: ${i}\n` }));
    await writeFilesAtomic(root, files);
    expect((await readdir(root)).sort()).toEqual(files.map((f) => f.path).sort());
    expect(await readFile(join(root, 'f13.yaml'), 'utf8')).toBe('n: 13\n');
  });

  it('rejects a path outside the repository and leaves no temporary file', async () => {
    root = await mkdtemp(join(tmpdir(), 'kerf-write-files-'));
    await expect(writeFilesAtomic(root, [{ path: 'ok.yaml', content: 'a' }, { path: '../escape.yaml', content: 'b' }])).rejects.toThrow(/outside the repository/);
    expect(await readdir(root)).toEqual(['ok.yaml']);
  });
});
