// Fails when the committed Action bundle (dist/) is not what the sources build: the runner runs
// dist/index.js, never src/. Rebuilds into a temporary folder and compares bytes, since clones
// keep no file times.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAction } from './build.mjs';

const committed = new URL('../dist/', import.meta.url);
const fresh = await mkdtemp(join(tmpdir(), 'kerf-dist-'));
try {
  await buildAction(join(fresh, 'index.js'));
  const [want, have] = await Promise.all([readdir(fresh), readdir(committed).catch(() => [])]);
  const stale = [];
  for (const name of new Set([...want, ...have])) {
    const [a, b] = await Promise.all([readFile(join(fresh, name)).catch(() => null), readFile(new URL(name, committed)).catch(() => null)]);
    if (a === null || b === null || !a.equals(b)) stale.push(`dist/${name}`);
  }
  if (stale.length > 0) {
    console.error(`check-dist: ${stale.join(', ')} ${stale.length === 1 ? 'is' : 'are'} not what the sources build. Run \`npm run build\` and commit dist/.`);
    process.exitCode = 1;
  }
} finally {
  await rm(fresh, { recursive: true, force: true });
}
