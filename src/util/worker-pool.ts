// Maps tasks over a few worker threads: contiguous chunks dealt out as workers come free, results
// put back in the tasks' order. A worker that fails fails the whole map: no partial results.
// Results travel as v8.serialize bytes, not structured clones: those turn a Buffer (what the yaml
// parser gives for !!binary) into a plain Uint8Array, and the results must be what the work returned.
import { availableParallelism } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { parentPort, Worker } from 'node:worker_threads';

export interface PoolOptions {
  /** The module each worker starts from, and the job it is told to serve (see worker-entry.ts). */
  entry: URL;
  job: string;
  workers: number;
  /** Tasks per message; by default few enough that the workers finish together, enough that messages cost little. */
  chunkSize?: number;
}

const MAX_WORKERS = 4;
const MAX_CHUNK = 32;

/** The workers worth starting on this machine: one per core, up to four; none on one core. */
export function machineWorkers(): number {
  const workers = Math.min(availableParallelism(), MAX_WORKERS);
  return workers < 2 ? 0 : workers;
}

export async function mapInWorkers<T, R>(tasks: readonly T[], { entry, job, workers, chunkSize = Math.max(1, Math.min(MAX_CHUNK, Math.ceil(tasks.length / (workers * 4)))) }: PoolOptions): Promise<R[]> {
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
            worker.on('message', (reply: Uint8Array) => {
              // A reply that is not what serveChunks sends (a worker from another build) fails the map, not the process.
              try {
                results[current] = deserialize(reply) as R[];
              } catch (error) {
                return reject(error);
              }
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

/** The worker's side: answers each chunk with its tasks' results, in order, serialized. */
export function serveChunks<T, R>(work: (task: T) => R): void {
  const port = parentPort;
  if (!port) throw new Error('serveChunks runs in a worker thread');
  port.on('message', (chunk: T[]) => port.postMessage(serialize(chunk.map(work))));
}
