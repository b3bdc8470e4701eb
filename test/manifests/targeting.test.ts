// Which objects are this cluster's and in which namespace: Argo CD / Flux objects in the repo, the
// `namespaces:` and `roots:` config keys, and the errors that name what was meant.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanRepo } from '../../src/plan/inputs.js';
import { makePlan } from '../../src/plan/plan.js';
import { CONFIG_DEFAULTS, validateConfig } from '../../src/model/validate.js';

let root = '';
afterEach(() => rm(root, { recursive: true, force: true }));

async function repoWith(files: Record<string, string>): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'kerf-targeting-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const deployment = (name: string, namespace?: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
${namespace === undefined ? '' : `  namespace: ${namespace}\n`}spec:
  template:
    spec:
      containers:
        - name: app
          image: registry.example/${name}:1
          resources: {requests: {cpu: 100m}}
`;

const GITOPS_REPO = {
  'argocd/guestbook.yaml': `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: guestbook, namespace: argocd}
spec:
  source: {repoURL: https://example.invalid/repo.git, path: apps/guestbook}
  destination: {server: https://kubernetes.default.svc, namespace: guestbook}
`,
  'apps/guestbook/deployment.yaml': deployment('guestbook-ui'),
  // Its own namespace stays: Argo CD's destination only fills in missing ones.
  'apps/guestbook/redis.yaml': deployment('redis', 'cache'),
  'argocd/envs.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: envs, namespace: argocd}
spec:
  generators:
    - list:
        elements:
          - {env: dev}
          - {env: stage}
  template:
    metadata: {name: 'cart-{{env}}'}
    spec:
      source: {repoURL: https://example.invalid/repo.git, path: 'envs/{{env}}'}
      destination: {server: https://kubernetes.default.svc, namespace: 'shop-{{ .env }}'}
`,
  'envs/dev/cart.yaml': deployment('cart'),
  'envs/stage/cart.yaml': deployment('cart'),
  'clusters/prod/podinfo.yaml': `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: podinfo, namespace: flux-system}
spec:
  path: ./apps/podinfo/overlays/prod/
  targetNamespace: podinfo
  sourceRef: {kind: GitRepository, name: flux-system}
`,
  'apps/podinfo/base/kustomization.yaml': 'resources: [deployment.yaml]\n',
  'apps/podinfo/base/deployment.yaml': deployment('podinfo', 'written-here'),
  'apps/podinfo/overlays/prod/kustomization.yaml': 'resources: [../../base/]\n',
  'legacy/app.yaml': deployment('legacy'),
};

describe('namespaces from the GitOps objects in the repo', () => {
  it('Argo CD Application and ApplicationSet (list generator) destinations, Flux targetNamespace', async () => {
    const index = await scanRepo(await repoWith(GITOPS_REPO), CONFIG_DEFAULTS);
    expect(index.errors).toEqual([]);
    expect([...index.workloads.keys()].sort()).toEqual([
      'cache/Deployment/redis',
      'default/Deployment/legacy',
      'guestbook/Deployment/guestbook-ui',
      // Flux's targetNamespace replaces the namespace the manifest writes.
      'podinfo/Deployment/podinfo',
      'shop-dev/Deployment/cart',
      'shop-stage/Deployment/cart',
    ]);
  });

  it('`namespaces:` in .kerf/config.yaml wins over the GitOps objects', async () => {
    const { config, errors } = validateConfig({ namespaces: { 'apps/guestbook/': 'gb', legacy: 'old' } }, '.kerf/config.yaml');
    expect(errors).toEqual([]);
    const index = await scanRepo(await repoWith(GITOPS_REPO), config);
    expect(index.workloads.has('gb/Deployment/guestbook-ui')).toBe(true);
    expect(index.workloads.has('old/Deployment/legacy')).toBe(true);
  });

  it('a namespace that is not a namespace name is an error naming its path', () => {
    const { config, errors } = validateConfig({ namespaces: { apps: 'Not_A_Namespace', web: 'shop' } }, '.kerf/config.yaml');
    expect(errors).toEqual([expect.objectContaining({ code: 'InvalidName', field: 'namespaces.apps', message: expect.stringContaining('is not a valid Kubernetes namespace') })]);
    expect(config.namespaces).toEqual({ web: 'shop' });
    expect(validateConfig({ roots: ['env/a'] }, '.kerf/config.yaml').config).toMatchObject({ roots: ['env/a'], namespaces: {} });
  });
});

describe('targets', () => {
  it('a target that is not found gets the nearest match in its error', async () => {
    const index = await scanRepo(await repoWith(GITOPS_REPO), CONFIG_DEFAULTS);
    const recommendation = {
      name: 'r', namespace: 'default', targetRef: { kind: 'Deployment', name: 'guestbook-ui' },
      containers: [{ name: 'app', requests: { cpu: '50m' } }], status: {}, source: { file: 'r.yaml', line: 1 },
    };
    const plan = makePlan({ index, recommendations: [recommendation as never], config: CONFIG_DEFAULTS, fleetPaused: false, now: new Date('2026-12-02T10:00:00Z') });
    expect(plan.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('target default/Deployment/guestbook-ui is not in the repo; nearest: guestbook/Deployment/guestbook-ui') })]);
  });

  it('a `roots` entry that is no root is an error naming the roots there are, or what includes it', async () => {
    const repo = await repoWith(GITOPS_REPO);
    const typo = await scanRepo(repo, { ...CONFIG_DEFAULTS, roots: ['apps/podinfo/overlays/prd'] });
    expect(typo.errors).toEqual([expect.objectContaining({ code: 'UnknownRoot', message: expect.stringContaining('nearest: apps/podinfo/overlays/prod') })]);
    const base = await scanRepo(repo, { ...CONFIG_DEFAULTS, roots: ['./apps/podinfo/base'] });
    expect(base.errors).toEqual([expect.objectContaining({ code: 'UnknownRoot', message: expect.stringContaining('apps/podinfo/base is included by apps/podinfo/overlays/prod') })]);
  });

  it('a `paths` entry that holds no manifest is an error naming it', async () => {
    const index = await scanRepo(await repoWith(GITOPS_REPO), { ...CONFIG_DEFAULTS, paths: ['apps/guestbok'] });
    expect(index.errors).toEqual([expect.objectContaining({ code: 'UnknownPath', message: expect.stringContaining('paths entry apps/guestbok holds no manifest') })]);
  });

  it('a remote resource is reported by name, not followed', async () => {
    const index = await scanRepo(await repoWith({ 'kustomization.yaml': 'resources:\n  - https://github.com/example/base?ref=v1\n  - app.yaml\n', 'app.yaml': deployment('app') }), CONFIG_DEFAULTS);
    expect(index.errors).toEqual([expect.objectContaining({ code: 'RemoteResource', message: expect.stringContaining('https://github.com/example/base?ref=v1 is remote') })]);
    expect(index.workloads.has('default/Deployment/app')).toBe(true);
  });
});

describe('kustomize constructs kerf does not model', () => {
  it('replacements that write a name, a namespace or resources are reported by name; others are not', async () => {
    const kustomization = `resources: [app.yaml]
replacements:
  - source: {kind: ConfigMap, name: env, fieldPath: data.ns}
    targets:
      - select: {kind: Deployment}
        fieldPaths: [metadata.namespace]
  - source: {kind: ConfigMap, name: env, fieldPath: data.image}
    targets:
      - select: {kind: Deployment}
        fieldPaths: [spec.template.spec.containers.0.image]
  - path: sizes.yaml
`;
    const sizes = `- source: {kind: ConfigMap, name: env, fieldPath: data.cpu}
  targets:
    - select: {kind: Deployment}
      fieldPaths: ['spec.template.spec.containers.[name=app].resources.requests.cpu']
`;
    const index = await scanRepo(await repoWith({ 'kustomization.yaml': kustomization, 'sizes.yaml': sizes, 'app.yaml': deployment('app') }), CONFIG_DEFAULTS);
    expect(index.errors.map((e) => [e.code, e.message])).toEqual([
      ['UnsupportedTransformer', expect.stringContaining('replacements[0] writes metadata.namespace')],
      ['UnsupportedTransformer', expect.stringContaining('replacements[2] writes spec.template.spec.containers.[name=app].resources.requests.cpu')],
    ]);
    // Its workloads are refused by name, not guessed at.
    expect(index.workloads.size).toBe(0);
    expect(index.conflicts.get('default/Deployment/app')?.message).toMatch(/^Deployment default\/app is rendered by \., where kustomization\.yaml: replacements\[0\] writes metadata\.namespace.*kerf leaves it alone/);
  });
});
