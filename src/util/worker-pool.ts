// Maps tasks over a few worker threads: contiguous chunks dealt out as workers come free, results
// put back in the tasks' order. A worker that fails fails the whole map: no partial results.
import { parentPort, Worker } from 'node:worker_threads';

export interface PoolOptions {
  /** The module each worker starts from, and the job it is told to serve (see worker-entry.ts). */
  entry: URL;
  job: string;
  workers: number;
  chunkSize: number;
}

export async function mapInWorkers<T, R>(tasks: readonly T[], { entry, job, workers, chunkSize }: PoolOptions): Promise<R[]> {
  const chunks: T[][] = [];
  for (let start = 0; start < tasks.length; start += chunkSize) chunks.push(tasks.slice(start, start + chunkSize));
  const results: R[][] = new Array(chunks.length);
  const pool = Array.from({ length: Math.min(workers, chunks.length) }, () => new Worker(entry, { workerData: { kerfWorker: job } }));
  let next = 0;
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current = -1;
            const deal = (): void => {
              if (next >= chunks.length) return resolve();
              current = next++;
              worker.postMessage(chunks[current]);
            };
            worker.on('message', (reply: R[]) => {
              results[current] = reply;
              deal();
            });
            worker.on('error', reject);
            worker.on('messageerror', reject);
            worker.on('exit', (code) => reject(new Error(`a ${job} worker exited (code ${code}) before its work was done`)));
            deal();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
  return results.flat();
}

/** The worker's side: answers each chunk with its tasks' results, in order. */
export function serveChunks<T, R>(work: (task: T) => R): void {
  const port = parentPort;
  if (!port) throw new Error('serveChunks runs in a worker thread');
  port.on('message', (chunk: T[]) => port.postMessage(chunk.map(work)));
}
