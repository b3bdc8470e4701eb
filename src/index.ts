// The Action's entry (action.yml → dist/index.js, bundled by scripts/build.mjs).
import { registerWorkerEntry, SCAN_JOB, workerJob } from './util/worker-entry.js';

// A big repo's scan runs on worker threads started from this file, the Action's only one.
registerWorkerEntry(import.meta.url);
if (workerJob() === SCAN_JOB) (await import('./manifests/scan-worker.js')).serveScans();
else await (await import('./action.js')).run();
