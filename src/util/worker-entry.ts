// Worker threads start from the process's own entry module: the bundles (the CLI's, the Action's)
// hold no other file to start one from. The entry registers itself here and, when it finds itself
// running as one of kerf's workers, serves that job instead of running its command.
import { isMainThread, workerData } from 'node:worker_threads';

/** The job of a worker that scans a repo's files (manifests/scan-worker.ts). */
export const SCAN_JOB = 'scan';
/** The job of a worker that edits files only their own workloads' decisions edit (plan/edit-worker.ts). */
export const EDIT_JOB = 'edit';

let entry: URL | undefined;

export function registerWorkerEntry(url: string): void {
  entry = new URL(url);
}

/** The module workers start from; undefined where no entry registered one (tests of the sources, library use). */
export function workerEntry(): URL | undefined {
  return entry;
}

/** The job this thread was started for, when it is one of kerf's workers. */
export function workerJob(): string | undefined {
  if (isMainThread) return undefined;
  const job = (workerData as { kerfWorker?: unknown } | null)?.kerfWorker;
  return typeof job === 'string' ? job : undefined;
}
