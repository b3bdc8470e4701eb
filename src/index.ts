// The Action's entry (action.yml → dist/index.js, bundled by scripts/build.mjs).
import { registerWorkerEntry, workerJob } from './util/worker-entry.js';

// A big repo's scan and edits run on worker threads started from this file, the Action's only one.
registerWorkerEntry(import.meta.url);
const job = workerJob();
if (job !== undefined) await (await import('./worker-jobs.js')).serveJob(job);
else await (await import('./action.js')).run();
