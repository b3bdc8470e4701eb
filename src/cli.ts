#!/usr/bin/env node
// The helper's process imports only the helper's command: the CLI's others (plans, git, GitHub)
// would cost every cluster's helper memory it never uses.
const args = process.argv.slice(2);
process.exitCode = args[0] === 'helper' ? await (await import('./cli/helper-command.js')).helperMain(args.slice(1)) : await (await import('./cli/main.js')).main(args, process.env);
