import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment } from './builders.js';
import { readCrdDirectory, DEFAULT_CRD_DIRECTORY } from './custom-resources.js';
import { failure } from './expect-status.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

const policies = { group: 'kerf.getkerf.dev', version: 'v1alpha1', namespace: 'default', plural: 'rightsizingpolicies' };
const hasCrdTemplates = readCrdDirectory(DEFAULT_CRD_DIRECTORY).length > 0;

function policy(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingPolicy', metadata: { name }, spec };
}

describe('validation of built-in kinds (kubernetes-models schemas and apiserver rules)', () => {
  let api: KubeApi;
  let apps: AppsV1Api;
  beforeAll(async () => {
    api = await startKubeApi();
    apps = api.kubeConfig().makeApiClient(AppsV1Api);
  });
  afterAll(async () => api.close());

  it.each([
    ['a container without a name', (object: V1Deployment) => delete (object.spec!.template.spec!.containers[0] as { name?: string }).name, 'spec.template.spec.containers[0]'],
    ['replicas as a string', (object: V1Deployment) => ((object.spec as unknown as Record<string, unknown>).replicas = 'three'), 'spec.replicas'],
    ['a selector that misses the template labels', (object: V1Deployment) => (object.spec!.selector = { matchLabels: { app: 'other' } }), 'spec.template.metadata.labels'],
    ['an invalid name', (object: V1Deployment) => (object.metadata!.name = 'Not_Valid'), 'metadata.name'],
  ])('answers 422 Invalid to a Deployment with %s', async (_case, breakIt, field) => {
    const body = deployment('broken') as V1Deployment;
    breakIt(body);
    const status = await failure(apps.createNamespacedDeployment({ namespace: 'default', body }));
    expect(status).toMatchObject({ code: 422, reason: 'Invalid', details: { kind: 'Deployment', group: 'apps' } });
    expect(status.details?.causes?.map((cause) => cause.field)).toContain(field);
    expect(api.store.list('deployments', 'default')).toEqual([]);
  });
});

describe('validation of kerf custom resources by their CRD schema', () => {
  let api: KubeApi;
  let custom: CustomObjectsApi;
  beforeAll(async () => {
    api = await startKubeApi({
      crds: [],
      crdSchemas: {
        RightsizingPolicy: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['mode'],
              properties: {
                mode: { type: 'string', enum: ['auto-patch', 'recommend'] },
                apply: { type: 'object', properties: { fallbackAfter: { type: 'string', default: '10m' }, maintenanceWindows: { type: 'array', maxItems: 2, items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
              },
            },
            status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    });
    custom = api.kubeConfig().makeApiClient(CustomObjectsApi);
  });
  afterAll(async () => api.close());

  it('prunes unknown fields and fills schema defaults on create', async () => {
    const created = (await custom.createNamespacedCustomObject({ ...policies, body: policy('ok', { mode: 'recommend', apply: {}, unknown: true }) })) as { spec: Record<string, unknown> };
    expect(created.spec).toEqual({ mode: 'recommend', apply: { fallbackAfter: '10m' } });
  });

  it.each([
    ['an enum value outside the list', { mode: 'sometimes' }, 'spec.mode', 'Unsupported value: "sometimes": supported values: "auto-patch", "recommend"'],
    ['a missing required field', { apply: {} }, 'spec.mode', 'Required value'],
    ['more items than maxItems', { mode: 'recommend', apply: { maintenanceWindows: [{}, {}, {}] } }, 'spec.apply.maintenanceWindows', 'Too many: 3: must have at most 2 items'],
  ])('answers 422 to %s', async (_case, spec, field, message) => {
    const status = await failure(custom.createNamespacedCustomObject({ ...policies, body: policy('bad', spec) }));
    expect(status).toMatchObject({ code: 422, reason: 'Invalid', details: { group: 'kerf.getkerf.dev', kind: 'RightsizingPolicy', causes: [{ field, message }] } });
  });

  it.skipIf(!hasCrdTemplates)('loads the CRDs of templates/crds and enforces their maxItems of 16 windows [needs templates/crds/*.yaml]', async () => {
    const fromTemplates = await startKubeApi();
    try {
      const client = fromTemplates.kubeConfig().makeApiClient(CustomObjectsApi);
      const window = { schedule: '0 1 * * 6', duration: '2h' };
      const status = await failure(client.createNamespacedCustomObject({ ...policies, body: policy('many', { mode: 'auto-patch', apply: { strategy: 'deferred', maintenanceWindows: Array.from({ length: 17 }, () => window) } }) }));
      expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(status.message).toContain('must have at most 16 items');
      await client.createNamespacedCustomObject({ ...policies, body: policy('fine', { mode: 'auto-patch', apply: { strategy: 'deferred', maintenanceWindows: [window] } }) });
    } finally {
      await fromTemplates.close();
    }
  });
});
