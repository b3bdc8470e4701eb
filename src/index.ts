// The Action's entry (action.yml → dist/index.js, bundled by scripts/build.mjs).
import { run } from './action.js';

await run();
