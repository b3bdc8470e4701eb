// The pool's dealing and reassembly, with real worker threads running small scripts that answer
// chunks as serveChunks does (the scan's own worker runs from the built CLI: test/integration/scan-pool.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mapInWorkers } from '../../src/util/worker-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'kerf-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker that answers each chunk with `answer(task)` for every task, after a random pause so chunks come back out of order. */
function workerScript(name: string, answer: string): URL {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { serialize } from 'node:v8';
import { parentPort, threadId, workerData } from 'node:worker_threads';
const answer = ${answer};
parentPort.on('message', (chunk) => setTimeout(() => parentPort.postMessage(serialize(chunk.map(answer))), Math.random() * 20));
`,
  );
  return pathToFileURL(file);
}

const tasks = Array.from({ length: 103 }, (_, i) => i);

describe('mapInWorkers', () => {
  it('deals chunks to every worker and puts the results back in the order of the tasks', async () => {
    const entry = workerScript('echo', '(task) => ({ task, thread: threadId, job: workerData.kerfWorker })');
    const results = await mapInWorkers<number, { task: number; thread: number; job: string }>(tasks, { entry, job: 'test', workers: 3, chunkSize: 4 });
    expect(results.map((result) => result.task)).toEqual(tasks);
    expect(new Set(results.map((result) => result.job))).toEqual(new Set(['test']));
    expect(new Set(results.map((result) => result.thread)).size).toBe(3);
    // Chunks are contiguous: the four tasks of a chunk are answered by one worker.
    for (let start = 0; start < tasks.length; start += 4) expect(new Set(results.slice(start, start + 4).map((result) => result.thread)).size).toBe(1);
  });

  it('gives back what the work returned: a Buffer stays a Buffer, a Map a Map', async () => {
    const entry = workerScript('kinds', '(task) => ({ bytes: Buffer.from([task]), plain: new Uint8Array([task]), map: new Map([[task, new Date(task)]]), zero: -0 })');
    const [first] = await mapInWorkers<number, Record<string, unknown>>([7], { entry, job: 'test', workers: 1, chunkSize: 1 });
    expect(first).toStrictEqual({ bytes: Buffer.from([7]), plain: new Uint8Array([7]), map: new Map([[7, new Date(7)]]), zero: -0 });
    expect(Buffer.isBuffer(first?.bytes)).toBe(true);
    expect(Buffer.isBuffer(first?.plain)).toBe(false);
  });

  it('starts no worker for no tasks', async () => {
    expect(await mapInWorkers([], { entry: pathToFileURL(join(dir, 'none.mjs')), job: 'test', workers: 2, chunkSize: 4 })).toEqual([]);
  });

  it('rejects with the error a worker throws, not a partial result', async () => {
    const entry = workerScript('throws', '(task) => { if (task === 57) throw new Error(`cannot read task ${task}`); return task; }');
    await expect(mapInWorkers(tasks, { entry, job: 'test', workers: 2, chunkSize: 4 })).rejects.toThrow('cannot read task 57');
  });

  it('rejects when a worker exits before its work is done', async () => {
    const entry = workerScript('exits', '(task) => (task === 30 ? process.exit(3) : task)');
    await expect(mapInWorkers(tasks, { entry, job: 'test', workers: 2, chunkSize: 4 })).rejects.toThrow('a test worker exited (code 3) before its work was done');
  });

  it('rejects when a worker cannot start', async () => {
    await expect(mapInWorkers(tasks, { entry: pathToFileURL(join(dir, 'missing.mjs')), job: 'test', workers: 2, chunkSize: 4 })).rejects.toThrow(/Cannot find module/);
  });
});
