// Transpiles src/ to lib/ (one file per module, for the CLI's `bin`), bundles the benchmarks into
// lib/bench/ and the Action into dist/index.js with esbuild.
import { build } from 'esbuild';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The Action as one file: the runner fetches the action's repo without node_modules. ESM, as
 * @actions/core 3 and octokit are; CommonJS dependencies (simple-git's `debug`, cron-parser)
 * call `require` for Node's built-ins, which an ESM file lacks, so the banner provides one.
 * No source map and paths relative to the root: the same sources give the same bytes anywhere,
 * which the dist check relies on. Minified: with client-node (for `recommendations: cluster`) the
 * bundle is 18 MB as source, and every clone of the action's repo carries it; 5 MB minified.
 */
export function buildAction(outfile) {
  return build({
    absWorkingDir: ROOT,
    entryPoints: ['src/index.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: "import { createRequire as __kerfCreateRequire } from 'node:module';\nconst require = __kerfCreateRequire(import.meta.url);" },
    legalComments: 'eof',
    minify: true,
    logLevel: 'warning',
  });
}

function sources(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

async function buildAll() {
  await build({
    absWorkingDir: ROOT,
    entryPoints: sources(join(ROOT, 'src')),
    outdir: 'lib',
    outbase: 'src',
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });

  // Split: the benchmarks that need the stand-ins import them dynamically, so their packages
  // (kubernetes-models, client-node, octokit) are not loaded while plan and write are measured.
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['bench/index.ts', 'bench/bare-parse.ts'],
    outdir: 'lib/bench',
    splitting: true,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });

  await buildAction('dist/index.js');
}

// Run as a script (`npm run build`); imported, it only lends buildAction to the dist check.
// Node runs the script by its real path, so a checkout reached through a symlink still counts.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await buildAll();
