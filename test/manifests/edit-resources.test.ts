import { readdirSync, readFileSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, WriteFileError } from '../../src/util/atomic-write.js';
import { editResources, EditError } from '../../src/manifests/edit-resources.js';
import type { DocumentTarget, ResourceEdit } from '../../src/manifests/edit-resources.js';

const GOLDEN = join(import.meta.dirname, 'golden');

interface GoldenCase {
  description: string;
  target: DocumentTarget;
  edits: ResourceEdit[];
  /** An `EditError` code the edit must be refused with; no expected.yaml then. */
  error?: string;
}

const goldenCases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => {
    const dir = join(GOLDEN, entry.name);
    const spec = JSON.parse(readFileSync(join(dir, 'edits.json'), 'utf8')) as GoldenCase;
    return { name: `${spec.description} [${entry.name}]`, dir, spec };
  });

describe('editResources golden files', () => {
  it.each(goldenCases)('$name', ({ dir, spec }) => {
    const original = readFileSync(join(dir, 'original.yaml'), 'utf8');
    const edit = (): string => editResources(original, spec.target, spec.edits, 'original.yaml');
    if (spec.error) {
      expect(edit).toThrow(expect.objectContaining({ code: spec.error }));
      return;
    }
    const expected = readFileSync(join(dir, 'expected.yaml'), 'utf8');
    expect(edit()).toBe(expected);
    // Applying the same edits again finds everything in place and changes nothing.
    expect(editResources(expected, spec.target, spec.edits, 'expected.yaml')).toBe(expected);
  });
});

/** A one-document Deployment `web` whose container `app` has `lines` (already indented) after its name. */
function deployment(lines: string[], extra: string[] = []): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    ...extra,
    'spec:',
    '  template:',
    '    spec:',
    '      containers:',
    '      - name: app',
    ...lines,
    '',
  ].join('\n');
}

const WEB: DocumentTarget = { document: 0, kind: 'Deployment', name: 'web' };

describe('editResources values', () => {
  it.each([
    { was: 'cpu: 100m', to: '2', now: 'cpu: 2' },
    { was: 'cpu: 100m', to: '0.5', now: 'cpu: 0.5' },
    { was: 'cpu: 100m', to: '.5', now: 'cpu: ".5"' },
    { was: 'cpu: 100m', to: '1e3', now: 'cpu: "1e3"' },
    { was: "cpu: '1'", to: '2', now: "cpu: '2'" },
    { was: 'cpu: "1"', to: '1500m', now: 'cpu: "1500m"' },
    { was: 'cpu: !!str 1', to: '2', now: 'cpu: !!str 2' },
    { was: 'cpu: &unused 1', to: '2', now: 'cpu: &unused 2' },
    { was: 'cpu:', to: '250m', now: 'cpu: 250m' },
    { was: 'cpu: ~ # unset', to: '250m', now: 'cpu: 250m # unset' },
  ])('$was set to $to reads $now', ({ was, to, now }) => {
    const text = deployment(['        resources:', '          requests:', `            ${was}`]);
    const edited = editResources(text, WEB, [{ container: 'app', field: 'requests.cpu', to }], 'web.yaml');
    expect(edited).toBe(text.replace(was, now));
  });

  it('a value that is an alias of a scalar is replaced by the new value; the anchor stays', () => {
    const text = deployment(['        resources:', '          requests:', '            cpu: *base'], ['  annotations:', '    base-cpu: &base "1"']);
    const edited = editResources(text, WEB, [{ container: 'app', field: 'requests.cpu', to: '2' }], 'web.yaml');
    expect(edited).toBe(text.replace('cpu: *base', 'cpu: 2'));
  });

  it('resources is added after a keep-chomped block scalar, outside its kept blank lines', () => {
    const text = deployment(['        script: |+', '          run', '', '      - name: next']);
    const edited = editResources(text, WEB, [{ container: 'app', field: 'limits.memory', to: '1Gi' }], 'web.yaml');
    expect(edited).toBe(text.replace('          run\n\n', '          run\n\n        resources:\n          limits:\n            memory: 1Gi\n'));
  });

  it.each([
    {
      name: '2 spaces',
      text: 'kind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n',
      now: '      - name: app\n        resources:\n          requests:\n            cpu: 1\n',
    },
    {
      name: '4 spaces',
      text: 'kind: Deployment\nmetadata:\n    name: web\nspec:\n    template:\n        spec:\n            containers:\n            -   name: app\n',
      now: '            -   name: app\n                resources:\n                    requests:\n                        cpu: 1\n',
    },
  ])('the indentation step is read from the file ($name)', ({ text, now }) => {
    const edited = editResources(text, WEB, [{ container: 'app', field: 'requests.cpu', to: '1' }], 'web.yaml');
    expect(edited.endsWith(now)).toBe(true);
    expect(edited.slice(0, -now.length)).toBe(text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
  });

  it('N4: removing a request or limit that is not there returns the text unchanged', () => {
    const text = deployment(['        resources:', '          requests: {cpu: 1}']);
    const edits: ResourceEdit[] = [
      { container: 'app', field: 'limits.cpu', to: null },
      { container: 'app', field: 'requests.memory', to: null },
    ];
    expect(editResources(text, WEB, edits, 'web.yaml')).toBe(text);
  });

  it('N4: removing an absent limit from a container whose resources is an alias copies nothing', () => {
    const text = deployment(['        resources: &r {requests: {cpu: 1}}', '      - name: b', '        resources: *r']).replace('name: app', 'name: a').replace('name: b', 'name: app');
    expect(editResources(text, WEB, [{ container: 'app', field: 'limits.cpu', to: null }], 'web.yaml')).toBe(text);
  });

  it('N4: a field set and then removed in one call ends up absent', () => {
    const text = deployment(['        resources:', '          requests: {cpu: 1}']);
    const edits: ResourceEdit[] = [
      { container: 'app', field: 'limits.memory', to: '1Gi' },
      { container: 'app', field: 'limits.memory', to: null },
    ];
    expect(editResources(text, WEB, edits, 'web.yaml')).toBe(text);
  });

  it('a later document with its own %TAG directive is edited with the directive in force', () => {
    const text = `kind: ConfigMap\n...\n%TAG !k! tag:kerf.getkerf.dev,2026:\n---\n${deployment(['        image: !k!image x'])}`;
    const edited = editResources(text, { ...WEB, document: 1 }, [{ container: 'app', field: 'limits.cpu', to: '2' }], 'web.yaml');
    expect(edited).toBe(`${text}        resources:\n          limits:\n            cpu: 2\n`);
  });

  it('a later edit of the same field wins', () => {
    const text = deployment(['        resources:', '          requests: {cpu: 1}']);
    const edits: ResourceEdit[] = [
      { container: 'app', field: 'requests.cpu', to: '2' },
      { container: 'app', field: 'requests.cpu', to: '3' },
    ];
    expect(editResources(text, WEB, edits, 'web.yaml')).toBe(text.replace('{cpu: 1}', '{cpu: 3}'));
  });
});

describe('editResources refusals', () => {
  const sized = deployment(['        resources:', '          requests:', '            cpu: 500m', '          limits:', '            cpu: "1"', '            memory: 1Gi']);
  it.each([
    { name: 'a document index past the end', text: sized, target: { ...WEB, document: 1 }, edits: [], code: 'DocumentMismatch', says: 'has no document 1' },
    { name: 'another object at the index', text: sized, target: { ...WEB, name: 'api' }, edits: [], code: 'DocumentMismatch', says: 'document 0 is Deployment/web' },
    { name: 'another kind at the index', text: sized, target: { ...WEB, kind: 'StatefulSet' }, edits: [], code: 'DocumentMismatch', says: 'StatefulSet/web' },
    { name: 'an unknown container', text: sized, target: WEB, edits: [{ container: 'db', field: 'requests.cpu', to: '1' }], code: 'ContainerNotFound', says: 'container "db"' },
    { name: 'a document without containers', text: 'kind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n', target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1' }], code: 'ContainerNotFound', says: 'container "app"' },
    { name: 'text that does not parse', text: `${sized}kind: [\n`, target: WEB, edits: [], code: 'InvalidYaml', says: 'does not parse at line' },
    { name: 'a cpu request above the kept limit', text: sized, target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1500m' }], code: 'RequestAboveLimit', says: 'requests.cpu: request 1500m would be above limit 1' },
    { name: 'a memory request above a new limit', text: sized, target: WEB, edits: [{ container: 'app', field: 'requests.memory', to: '1Gi' }, { container: 'app', field: 'limits.memory', to: '1000Mi' }], code: 'RequestAboveLimit', says: 'requests.memory' },
    { name: 'a value that is not a quantity', text: sized, target: WEB, edits: [{ container: 'app', field: 'limits.memory', to: 'lots' }], code: 'InvalidQuantity', says: 'invalid quantity "lots"' },
    { name: 'a negative quantity', text: sized, target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '-250m' }], code: 'InvalidQuantity', says: 'container "app" requests.cpu: -250m is negative' },
    { name: 'a block scalar value', text: deployment(['        resources:', '          requests:', '            cpu: |', '              1']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '2' }], code: 'UnsupportedNode', says: 'block scalar' },
    { name: 'a mapping value', text: deployment(['        resources:', '          requests:', '            cpu: {value: 1}']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: null }], code: 'UnsupportedNode', says: 'not a scalar' },
    { name: 'resources given as a list', text: deployment(['        resources: [cpu]']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1' }], code: 'UnsupportedNode', says: 'resources is not a mapping' },
    { name: 'a $patch directive in resources', text: deployment(['        resources:', '          $patch: delete']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1' }], code: 'UnsupportedNode', says: '$patch' },
    { name: 'a merge key in the container', text: deployment(['        <<: {image: x}']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1' }], code: 'UnsupportedNode', says: '<<' },
    { name: 'requests anchored and aliased by another container', text: deployment(['        resources:', '          requests: &r {cpu: 1}', '      - name: b', '        resources: {requests: *r}']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '2' }], code: 'SharedAnchor', says: 'anchor &r' },
    { name: 'a value anchored and aliased elsewhere', text: deployment(['        resources:', '          requests: {cpu: &one 1}', '      - name: b', '        resources: {limits: {cpu: *one}}']), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '500m' }], code: 'SharedAnchor', says: 'anchor &one' },
    { name: 'a container that is an alias', text: 'kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      initContainers: [&c {name: app}]\n      containers: [*c]\n', target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '1' }], code: 'SharedAnchor', says: 'anchor &c' },
    { name: 'an aliased mapping that holds anchors of its own', text: deployment(['        resources: &r', '          requests: &inner {cpu: 1}', '      - name: b', '        resources: *r']).replace('      - name: app', '      - name: a').replace('      - name: b', '      - name: app'), target: WEB, edits: [{ container: 'app', field: 'requests.cpu', to: '2' }], code: 'SharedAnchor', says: 'alias *r' },
  ])('$name is refused with $code', ({ text, target, edits, code, says }) => {
    let thrown: unknown;
    try {
      editResources(text, target, edits as ResourceEdit[], 'apps/web.yaml');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EditError);
    expect(thrown).toMatchObject({ code, file: 'apps/web.yaml', object: `${target.kind}/${target.name}` });
    expect((thrown as Error).message).toContain('apps/web.yaml');
    expect((thrown as Error).message).toContain(says);
  });

  it('a memory request equal to its limit in other units is accepted (compared as quantities)', () => {
    const text = deployment(['        resources:', '          limits:', '            memory: 1Gi']);
    const edited = editResources(text, WEB, [{ container: 'app', field: 'requests.memory', to: '1024Mi' }], 'web.yaml');
    expect(edited).toContain('          requests:\n            memory: 1024Mi\n');
  });
});

describe('writeFileAtomic', () => {
  let base: string;
  let repo: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'kerf-atomic-'));
    repo = join(base, 'repo');
    await mkdir(join(repo, 'apps'), { recursive: true });
    await mkdir(join(base, 'elsewhere'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('replaces a file, keeps its mode and leaves no temporary file behind', async () => {
    const file = join(repo, 'apps', 'web.yaml');
    await writeFile(file, 'old\n');
    await chmod(file, 0o640);
    await writeFileAtomic(repo, 'apps/web.yaml', 'new\r\n');
    expect(await readFile(file, 'utf8')).toBe('new\r\n');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readdir(join(repo, 'apps'))).toEqual(['web.yaml']);
  });

  it('creates a file that does not exist yet', async () => {
    await writeFileAtomic(repo, 'apps/new.yaml', 'kind: Deployment\n');
    expect(await readFile(join(repo, 'apps', 'new.yaml'), 'utf8')).toBe('kind: Deployment\n');
  });

  it('writes through a symlinked file that points inside the repository, keeping the link', async () => {
    await writeFile(join(repo, 'apps', 'real.yaml'), 'old\n');
    await symlink('real.yaml', join(repo, 'apps', 'link.yaml'));
    await writeFileAtomic(repo, 'apps/link.yaml', 'new\n');
    expect((await lstat(join(repo, 'apps', 'link.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(repo, 'apps', 'real.yaml'), 'utf8')).toBe('new\n');
  });

  it.each([
    { name: 'a path climbing out with ..', setup: async () => {}, path: '../elsewhere/x.yaml' },
    { name: 'an absolute path', setup: async () => {}, path: '/tmp/kerf-never.yaml' },
    { name: 'a directory symlinked outside', setup: (r: string, b: string) => symlink(join(b, 'elsewhere'), join(r, 'out')), path: 'out/x.yaml' },
    { name: 'a file symlinked outside', setup: (r: string, b: string) => writeFile(join(b, 'elsewhere', 'x.yaml'), 'keep\n').then(() => symlink(join(b, 'elsewhere', 'x.yaml'), join(r, 'x.yaml'))), path: 'x.yaml' },
  ])('refuses $name, naming the path', async ({ setup, path }) => {
    await setup(repo, base);
    await expect(writeFileAtomic(repo, path, 'x\n')).rejects.toMatchObject({ code: 'OutsideRepository', path, message: expect.stringContaining(JSON.stringify(path)) });
    await expect(writeFileAtomic(repo, path, 'x\n')).rejects.toBeInstanceOf(WriteFileError);
    expect(await readdir(join(base, 'elsewhere'))).toEqual(path === 'x.yaml' ? ['x.yaml'] : []);
    if (path === 'x.yaml') expect(await readFile(join(base, 'elsewhere', 'x.yaml'), 'utf8')).toBe('keep\n');
  });
});
