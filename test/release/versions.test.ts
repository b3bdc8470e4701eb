// One version number for the npm package, the image, the templates and the Action's tag (scripts/versions.mjs,
// which release.yml runs on the tag), and the release's install.yaml (scripts/render-install.mjs).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { renderInstall } from '../../scripts/render-install.mjs';
import { IMAGE, versionProblems, versionsIn } from '../../scripts/versions.mjs';

const root = join(import.meta.dirname, '../..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const temps: string[] = [];

/** The files the check reads, copied, with `file` edited. */
function copyWith(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kerf-versions-'));
  temps.push(dir);
  for (const path of ['package.json', 'package-lock.json', 'templates/install/deployment.yaml', 'Dockerfile', 'README.md', 'examples/workflows/kerf.yml']) {
    cpSync(join(root, path), join(dir, path), { recursive: true });
  }
  writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  return dir;
}

afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('versions', () => {
  it('package.json, the lock, the image tag and label, the Dockerfile and the README say one version', () => {
    expect(new Set(Object.values(versionsIn(root)))).toEqual(new Set([version]));
    expect(versionProblems(root)).toEqual([]);
  });

  it('the example workflow uses the Action by the major tag release.yml moves', () => {
    expect(readFileSync(join(root, 'examples/workflows/kerf.yml'), 'utf8')).toContain(`uses: getkerf/kerf-gitops@v${version.split('.')[0]}\n`);
  });

  it('a place left behind is named', () => {
    const dir = copyWith('templates/install/deployment.yaml', (text) => text.replace(`${IMAGE}:${version}`, `${IMAGE}:9.9.9`));
    expect(versionProblems(dir)).toEqual([`templates/install/deployment.yaml image: 9.9.9 (package.json: ${version})`]);
    const action = copyWith('examples/workflows/kerf.yml', (text) => text.replace('getkerf/kerf-gitops@v0', 'getkerf/kerf-gitops@v1'));
    expect(versionProblems(action)).toEqual([expect.stringContaining('uses getkerf/kerf-gitops@v1')]);
  });

  it('the release tag must be v<version>: the script exits 1 otherwise', () => {
    const script = join(root, 'scripts/versions.mjs');
    expect(spawnSync(process.execPath, [script, `v${version}`]).status).toBe(0);
    const wrong = spawnSync(process.execPath, [script, 'v9.9.9'], { encoding: 'utf8' });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`tag v9.9.9 is not v${version}`);
  });
});

describe.skipIf(!hasKubectl)('install.yaml', () => {
  const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
  const docs = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as { kind: string; spec?: { template?: { spec?: { containers?: { image: string }[] } } } });

  it('is the default install with the helper image pinned by digest, nothing else changed', () => {
    const rendered = docs(renderInstall(`ghcr.io/acme/kerf-gitops@${digest}`));
    const images = rendered.flatMap((doc) => doc.spec?.template?.spec?.containers?.map((container) => container.image) ?? []);
    expect(images).toEqual([`ghcr.io/acme/kerf-gitops@${digest}`]);
    const plain = spawnSync('kubectl', ['kustomize', join(root, 'templates')], { encoding: 'utf8' }).stdout;
    expect(JSON.stringify(rendered).replaceAll(`ghcr.io/acme/kerf-gitops@${digest}`, `${IMAGE}:${version}`)).toBe(JSON.stringify(docs(plain)));
  });

  it('refuses a tag: the release pins what it pushed', () => {
    expect(() => renderInstall(`${IMAGE}:${version}`)).toThrow(/is not IMAGE@sha256/);
  });
});
