// The helper with its own certificate (--self-signed-cert), end to end against the stand-in: the helper fills
// the Secret and writes the caBundle, and the stand-in's admission calls the webhook over TLS trusting only
// that caBundle. A certificate the caBundle did not vouch for would fail the call, and with failurePolicy
// Ignore the new pod would keep the template's values.
import { readFileSync } from 'node:fs';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Pod } from '../../src/cluster/objects.js';
import { fromSecretData } from '../../src/helper/serving-certificate.js';
import { container, deployment } from '../standins/kube/builders.js';
import { eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness } from '../helper/cluster-harness.js';

let h: Harness;
const cartPods = () => (h.api.store.list('pods', 'shop') as unknown as Pod[]).filter((pod) => pod.metadata.labels?.app === 'cart');
type Configuration = { metadata: Record<string, unknown>; webhooks: { clientConfig: Record<string, unknown> }[] };
const configuration = () => h.api.store.get('mutatingwebhookconfigurations', '', 'kerf-gitops') as unknown as Configuration;

beforeEach(async () => {
  h = await startHarness();
  h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
  // As installed: the webhook configuration without caBundle and the empty Secret.
  const manifest = parse(readFileSync(new URL('../../templates/install/webhook.yaml', import.meta.url), 'utf8')) as Configuration;
  h.api.store.put({ ...manifest, metadata: { name: 'kerf-gitops' } } as never);
  h.api.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'kerf-gitops-webhook-tls', namespace: 'kerf-system' } } as never);
});

afterEach(() => h.close());

describe('helper --self-signed-cert', () => {
  it('serves the webhook with the certificate it stored, trusted through the caBundle it wrote', async () => {
    const helper = await h.helper({
      noWebhook: false,
      webhookPort: 0,
      namespace: 'kerf-system',
      selfSignedCertificate: { secretName: 'kerf-gitops-webhook-tls', webhookConfiguration: 'kerf-gitops', service: 'kerf-gitops-helper', hosts: ['127.0.0.1'] },
    });
    const material = fromSecretData((h.api.store.get('secrets', 'kerf-system', 'kerf-gitops-webhook-tls') as { data?: Record<string, string> }).data);
    expect(material).toBeDefined();
    const written = configuration();
    expect(written.webhooks.map((webhook) => webhook.clientConfig.caBundle)).toEqual(written.webhooks.map(() => Buffer.from(material!.caBundle).toString('base64')));
    // The Service is not reachable here; point the webhooks at the helper, keeping the caBundle it wrote.
    h.api.store.put({
      ...written,
      webhooks: written.webhooks.map((webhook) => ({ ...webhook, clientConfig: { url: `https://127.0.0.1:${helper.webhookPort}/mutate-pods`, caBundle: webhook.clientConfig.caBundle } })),
    } as never);

    await h.create(deployment('cart', { namespace: 'shop', replicas: 2, containers: [container({ requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } })] }) as KubernetesObject);
    await h.api.store.reconcileWorkloads();
    await h.api.store.reconcileWorkloads();
    await h.create(policy());
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m', memory: '384Mi' } }]));
    await eventually(() => h.recommendationStatus('cart').phase === 'Applied');

    const before = cartPods();
    h.api.store.delete('pods', 'shop', before[0]!.metadata.name);
    await h.api.store.reconcileWorkloads();
    const created = cartPods().find((pod) => !before.some((old) => old.metadata.name === pod.metadata.name));
    expect(created?.spec.containers[0]?.resources?.requests).toEqual({ cpu: '250m', memory: '384Mi' });
  });

  it('refuses certificate files together with --self-signed-cert', async () => {
    await expect(
      h.helper({ noWebhook: false, webhookPort: 0, tlsCert: 'tls.crt', tlsKey: 'tls.key', selfSignedCertificate: { secretName: 's', webhookConfiguration: 'w', service: 'x' } }),
    ).rejects.toMatchObject({ code: 'InvalidHelperOptions' });
  });
});
