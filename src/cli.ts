#!/usr/bin/env node
import { registerWorkerEntry, workerJob } from './util/worker-entry.js';

// A big repo's scan and edits run on worker threads started from this module (the bundle has no other file to start them from).
registerWorkerEntry(import.meta.url);
// The helper's process imports only the helper's command: the CLI's others (plans, git, GitHub)
// would cost every cluster's helper memory it never uses.
const args = process.argv.slice(2);
const job = workerJob();
if (job !== undefined) await (await import('./worker-jobs.js')).serveJob(job);
else process.exitCode = args[0] === 'helper' ? await (await import('./cli/helper-command.js')).helperMain(args.slice(1)) : await (await import('./cli/main.js')).main(args, process.env);
