import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container, deployment } from './builders.js';
import { failure } from './expect-status.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from './patch.js';
import type { Json } from './patch.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

describe('patch formats', () => {
  const base: Json = {
    spec: {
      containers: [
        { name: 'app', image: 'a:1', env: [{ name: 'A', value: '1' }] },
        { name: 'sidecar', image: 's:1' },
      ],
      args: ['x', 'y'],
    },
  };

  it.each([
    ['add into a list', [{ op: 'add', path: '/spec/args/1', value: 'z' }], ['x', 'z', 'y']],
    ['append with -', [{ op: 'add', path: '/spec/args/-', value: 'z' }], ['x', 'y', 'z']],
    ['replace', [{ op: 'replace', path: '/spec/args/0', value: 'w' }], ['w', 'y']],
    ['remove', [{ op: 'remove', path: '/spec/args/0' }], ['y']],
    ['move', [{ op: 'move', from: '/spec/args/0', path: '/spec/args/-' }], ['y', 'x']],
    ['copy after a passing test', [{ op: 'test', path: '/spec/args/0', value: 'x' }, { op: 'copy', from: '/spec/args/0', path: '/spec/args/-' }], ['x', 'y', 'x']],
  ])('JSON patch: %s', (_name, operations, args) => {
    expect((applyJsonPatch(base, operations) as { spec: { args: Json } }).spec.args).toEqual(args);
  });

  it('JSON patch: a failed test or a missing path is an error and leaves the input untouched', () => {
    expect(() => applyJsonPatch(base, [{ op: 'test', path: '/spec/args/0', value: 'nope' }])).toThrow(PatchError);
    expect(() => applyJsonPatch(base, [{ op: 'replace', path: '/spec/missing/x', value: 1 }])).toThrow(PatchError);
    expect((base as { spec: { args: Json } }).spec.args).toEqual(['x', 'y']);
  });

  it('merge patch replaces lists whole and deletes with null', () => {
    const merged = applyMergePatch(base, { spec: { containers: [{ name: 'app', image: 'a:2' }], args: null } }) as { spec: Record<string, Json> };
    expect(merged.spec).toEqual({ containers: [{ name: 'app', image: 'a:2' }] });
  });

  it('strategic merge patch merges containers and env by name, deletes with $patch, and ignores ordering directives', () => {
    const merged = applyStrategicMergePatch(base, {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
        containers: [
          { name: 'app', resources: { requests: { cpu: '250m' } }, env: [{ name: 'B', value: '2' }] },
          { name: 'sidecar', $patch: 'delete' },
          { name: 'new', image: 'n:1' },
        ],
        args: ['only'],
      },
    } as Json) as { spec: { containers: Json[]; args: Json } };
    expect(merged.spec.containers).toEqual([
      { name: 'app', image: 'a:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], resources: { requests: { cpu: '250m' } } },
      { name: 'new', image: 'n:1' },
    ]);
    expect(merged.spec.args).toEqual(['only']);
  });
});

describe('PATCH over the wire', () => {
  let api: KubeApi;
  let apps: AppsV1Api;
  const name = 'patched';
  const read = (): Promise<V1Deployment> => apps.readNamespacedDeployment({ name, namespace: 'default' });

  beforeAll(async () => {
    api = await startKubeApi();
    apps = api.kubeConfig().makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: deployment(name, { containers: [container({ requests: { cpu: '100m', memory: '128Mi' } }), container({ name: 'proxy', requests: { cpu: '50m' } })] }) as V1Deployment,
    });
  });
  afterAll(async () => api.close());

  it('applies a JSON patch (client-node default content type) and bumps generation', async () => {
    const patched = await apps.patchNamespacedDeployment({ name, namespace: 'default', body: [{ op: 'replace', path: '/spec/replicas', value: 3 }] });
    expect(patched.spec?.replicas).toBe(3);
    expect(patched.metadata?.generation).toBe(2);
  });

  it('applies a merge patch that replaces the containers list', async () => {
    const before = await read();
    const containers = before.spec!.template.spec!.containers.slice(0, 1);
    const patched = await apps.patchNamespacedDeployment({ name, namespace: 'default', body: { spec: { template: { spec: { containers } } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    expect(patched.spec?.template.spec?.containers.map((item) => item.name)).toEqual(['app']);
  });

  it('applies a strategic merge patch that changes one container by name', async () => {
    await apps.patchNamespacedDeployment({ name, namespace: 'default', body: { spec: { template: { spec: { containers: [{ name: 'proxy', image: 'proxy:1' }] } } } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    const patched = await apps.patchNamespacedDeployment({ name, namespace: 'default', body: { spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '300m' } } }] } } } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    const containers = patched.spec?.template.spec?.containers ?? [];
    expect(containers.map((item) => item.name)).toEqual(['app', 'proxy']);
    expect(containers[0]?.resources?.requests).toEqual({ cpu: '300m', memory: '128Mi' });
    expect(containers[1]?.image).toBe('proxy:1');
  });

  it('treats a resourceVersion in a merge patch as a precondition', async () => {
    const status = await failure(apps.patchNamespacedDeployment({ name, namespace: 'default', body: { metadata: { resourceVersion: '1' }, spec: { replicas: 9 } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
    expect(status).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('answers 422 to a JSON patch whose test fails and 415 to an unknown patch type', async () => {
    const failed = await failure(apps.patchNamespacedDeployment({ name, namespace: 'default', body: [{ op: 'test', path: '/spec/replicas', value: 42 }] }));
    expect(failed).toMatchObject({ code: 422, reason: 'Invalid' });
    const response = await fetch(`${api.url}/apis/apps/v1/namespaces/default/deployments/${name}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
  });

  it('server-side apply creates, records the field manager, refuses conflicting owners unless forced, and removes fields its manager dropped', async () => {
    const ssaApply = (manager: string, cpu: Record<string, string>, force = false) =>
      apps.patchNamespacedDeployment(
        {
          name: 'ssa',
          namespace: 'default',
          fieldManager: manager,
          ...(force ? { force } : {}),
          body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ssa' }, spec: { selector: { matchLabels: { app: 'ssa' } }, template: { metadata: { labels: { app: 'ssa' } }, spec: { containers: [{ name: 'app', image: 'app:1', resources: { requests: cpu } }] } } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    const created = await ssaApply('kerf', { cpu: '100m', memory: '64Mi' });
    expect(created.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation])).toEqual([['kerf', 'Apply']]);

    const conflict = await failure(ssaApply('someone-else', { cpu: '999m' }));
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(conflict.message).toContain('conflict with "kerf"');

    const forced = await ssaApply('someone-else', { cpu: '200m' }, true);
    expect(forced.spec?.template.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '200m', memory: '64Mi' });

    // kerf stops applying memory: the field goes, cpu (now someone-else's) stays.
    const released = await ssaApply('kerf', {});
    expect(released.spec?.template.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '200m' });
  });
});
