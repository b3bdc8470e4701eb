// One release number everywhere a user meets it: package.json (the npm package and `--version`), the
// helper's image tag and version label in templates/, the Dockerfile's default VERSION, the README's
// install.yaml link, and the Action's major tag (`@vMAJOR` in the example workflow; release.yml moves
// it). `node scripts/versions.mjs [TAG]` prints each disagreement and exits 1; with a tag (release.yml)
// the tag must be v<version> too. test/versions.test.ts runs the same check.
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IMAGE = 'ghcr.io/getkerf/kerf-gitops';

const read = (root, path) => readFileSync(join(root, path), 'utf8');

/** Each place's version, as found (undefined when the place no longer says one). */
export function versionsIn(root = ROOT) {
  const deployment = read(root, 'templates/install/deployment.yaml');
  const readme = read(root, 'README.md');
  return {
    'package.json': JSON.parse(read(root, 'package.json')).version,
    'package-lock.json': JSON.parse(read(root, 'package-lock.json')).version,
    'templates/install/deployment.yaml image': deployment.match(new RegExp(`image: ${IMAGE}:(\\S+)`))?.[1],
    'templates/install/deployment.yaml app.kubernetes.io/version': deployment.match(/app\.kubernetes\.io\/version: (\S+)/)?.[1],
    'Dockerfile ARG VERSION': read(root, 'Dockerfile').match(/^ARG VERSION=(\S+)$/m)?.[1],
    'README.md install.yaml': readme.match(/releases\/download\/v([^/]+)\/install\.yaml/)?.[1],
  };
}

/** What disagrees with package.json's version (and with `tag`, when given). */
export function versionProblems(root = ROOT, tag) {
  const found = versionsIn(root);
  const version = found['package.json'];
  const problems = [];
  if (!/^\d+\.\d+\.\d+$/.test(version ?? '')) problems.push(`package.json: version ${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  for (const [place, value] of Object.entries(found)) {
    if (value !== version) problems.push(`${place}: ${value === undefined ? 'no version found' : value} (package.json: ${version})`);
  }
  const major = `v${String(version).split('.')[0]}`;
  for (const uses of read(root, 'examples/workflows/kerf.yml').matchAll(/uses: getkerf\/kerf-gitops@(\S+)/g)) {
    if (uses[1] !== major) problems.push(`examples/workflows/kerf.yml: uses getkerf/kerf-gitops@${uses[1]}, the Action's major tag is ${major}`);
  }
  if (tag !== undefined && tag !== `v${version}`) problems.push(`tag ${tag} is not v${version} (package.json)`);
  return problems;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = versionProblems(ROOT, process.argv[2]);
  for (const problem of problems) console.error(`versions: ${problem}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
