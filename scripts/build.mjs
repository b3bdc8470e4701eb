// Transpiles src/ to lib/ (one file per module, for the CLI's `bin`) and bundles the benchmarks
// into lib/bench/ with esbuild.
import { build } from 'esbuild';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function sources(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

await build({
  entryPoints: sources('src'),
  outdir: 'lib',
  outbase: 'src',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});

await build({
  entryPoints: ['bench/index.ts'],
  outfile: 'lib/bench/index.js',
  bundle: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});
