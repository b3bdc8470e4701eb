// Transpiles src/ to lib/ (one file per module, for `npm run demo` and the tests), bundles the
// benchmarks into lib/bench/, the Action into dist/index.js and the CLI with the helper into
// lib/kerf-gitops.mjs and its chunks (the npm package's bin and the image's files) with esbuild.
import { build } from 'esbuild';
import { readFileSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * A command as one file. ESM, as @actions/core 3 and octokit are; CommonJS dependencies (simple-git's
 * `debug`, cron-parser) call `require` for Node's built-ins, which an ESM file lacks, so the banner
 * provides one. No source map and paths relative to the root: the same sources give the same bytes
 * anywhere, which the dist check relies on. Minified: with client-node the bundle is 18 MB as
 * source, 5 MB minified.
 */
function bundle(entryPoint, output, define = {}) {
  return build({
    absWorkingDir: ROOT,
    entryPoints: [entryPoint],
    ...output,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: "import { createRequire as __kerfCreateRequire } from 'node:module';\nconst require = __kerfCreateRequire(import.meta.url);" },
    legalComments: 'eof',
    minify: true,
    define,
    logLevel: 'warning',
  });
}

/** The Action: the runner fetches the action's repo without node_modules, and every clone carries it. */
export function buildAction(outfile) {
  return bundle('src/index.ts', { outfile });
}

/**
 * The CLI and the helper: the image's runtime layer and the npm package hold this file and its
 * chunks, and no node_modules. `.mjs`, because next to them there is no package.json to say
 * `"type": "module"`. Split into chunks that each command imports as it needs them: as one file,
 * every process parsed all 4.8 MB (client-node, octokit, git) and the helper idled ~20 MiB higher.
 */
export const CLI_BUNDLE = 'lib/kerf-gitops.mjs';
export const CLI_CHUNKS = 'lib/kerf-gitops-chunks';

/** The files of templates/ the code reads at run time: the PR body, and the schemas validation checks against. */
const EMBEDDED_TEMPLATES = ['pr/body.md', 'crds/rightsizingpolicies.yaml', 'crds/rightsizingrecommendations.yaml', 'kerf-config.schema.json'];

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
    // 20.10: the first Node 20 with import attributes; for older targets esbuild silently drops
    // `with { type: 'json' }` (src/version.ts), and Node then refuses the import.
    target: 'node20.10',
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
  // The templates the code reads go into the file (src/embedded-templates.ts); the Action reads them beside dist/.
  // Old chunks, named by their hashes, would otherwise pile up in the package.
  rmSync(join(ROOT, CLI_CHUNKS), { recursive: true, force: true });
  const split = { outdir: 'lib', splitting: true, entryNames: 'kerf-gitops', chunkNames: 'kerf-gitops-chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } };
  await bundle('src/cli.ts', split, { KERF_TEMPLATES: JSON.stringify(Object.fromEntries(EMBEDDED_TEMPLATES.map((name) => [name, readFileSync(join(ROOT, 'templates', name), 'utf8')]))) });
}

// Run as a script (`npm run build`); imported, it only lends buildAction to the dist check.
// Node runs the script by its real path, so a checkout reached through a symlink still counts.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await buildAll();
