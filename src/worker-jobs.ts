// What a worker thread started from an entry module (src/cli.ts, src/index.ts) runs instead of
// its command: the job it was started for, each loading only its own modules.
import { EDIT_JOB, SCAN_JOB } from './util/worker-entry.js';

export async function serveJob(job: string): Promise<void> {
  if (job === SCAN_JOB) (await import('./manifests/scan-worker.js')).serveScans();
  else if (job === EDIT_JOB) (await import('./plan/edit-worker.js')).serveEdits();
  else throw new Error(`no such worker job: ${job}`);
}
