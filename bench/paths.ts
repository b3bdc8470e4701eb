// The repository root, found from this module: the benchmarks run bundled from lib/bench/, where
// paths that modules compute from their own location (templates/crds, lib/cli.js) would be off.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`benchmark: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}
