import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { V1MutatingWebhookConfiguration, V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pod } from './builders.js';
import { failure } from './expect-status.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';
import { createTestCertificate, hasOpenssl } from './test-certificate.js';
import type { TestCertificate } from './test-certificate.js';

interface Review {
  request: { uid: string; operation: string; kind: { kind: string }; namespace: string; object: { metadata: { labels?: Record<string, string> }; spec: { containers: unknown[] } } };
}

type Behaviour = 'patch' | 'deny' | 'hang';

describe.skipIf(!hasOpenssl())('mutating admission webhooks [needs openssl for the webhook certificate]', () => {
  let api: KubeApi;
  let core: CoreV1Api;
  let certificate: TestCertificate;
  let webhook: Server;
  let webhookUrl: string;
  let behaviour: Behaviour = 'patch';
  const reviews: Review[] = [];

  beforeAll(async () => {
    certificate = createTestCertificate();
    webhook = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        reviews.push(review);
        if (behaviour === 'hang') return;
        const patch = [{ op: 'replace', path: '/spec/containers/0/resources', value: { requests: { cpu: '250m', memory: '256Mi' } } }, { op: 'add', path: '/metadata/annotations', value: { 'kerf.getkerf.dev/admitted': 'true' } }];
        const answer = behaviour === 'deny'
          ? { uid: review.request.uid, allowed: false, status: { code: 403, message: 'not today' } }
          : { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: answer }));
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    webhookUrl = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/mutate`;
    api = await startKubeApi();
    core = api.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await api.close();
    webhook.closeAllConnections();
    await new Promise((resolve) => webhook.close(resolve));
  });
  afterEach(async () => {
    behaviour = 'patch';
    reviews.length = 0;
    await api.kubeConfig().makeApiClient(AdmissionregistrationV1Api).deleteMutatingWebhookConfiguration({ name: 'kerf' }).catch(() => undefined);
  });

  function register(options: { failurePolicy?: 'Fail' | 'Ignore'; timeoutSeconds?: number; url?: string; objectSelector?: Record<string, string> } = {}): Promise<V1MutatingWebhookConfiguration> {
    return api.kubeConfig().makeApiClient(AdmissionregistrationV1Api).createMutatingWebhookConfiguration({
      body: {
        metadata: { name: 'kerf' },
        webhooks: [{
          name: 'pods.kerf.getkerf.dev',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { url: options.url ?? webhookUrl, caBundle: certificate.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          failurePolicy: options.failurePolicy ?? 'Fail',
          timeoutSeconds: options.timeoutSeconds ?? 2,
          ...(options.objectSelector ? { objectSelector: { matchLabels: options.objectSelector } } : {}),
        }],
      },
    });
  }

  it('calls the webhook over TLS on pod CREATE with an AdmissionReview and applies its JSONPatch', async () => {
    await register();
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('admitted') as V1Pod });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.request).toMatchObject({ operation: 'CREATE', kind: { kind: 'Pod' }, namespace: 'default' });
    expect(created.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '250m', memory: '256Mi' });
    expect(created.metadata?.annotations).toEqual({ 'kerf.getkerf.dev/admitted': 'true' });

    await core.patchNamespacedPod({ name: 'admitted', namespace: 'default', body: [{ op: 'add', path: '/metadata/labels/touched', value: 'yes' }] });
    expect(reviews).toHaveLength(1);
  });

  it('skips pods outside the objectSelector', async () => {
    await register({ objectSelector: { 'kerf.getkerf.dev/managed': 'true' } });
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('unselected') as V1Pod });
    expect(reviews).toHaveLength(0);
    expect(created.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '100m', memory: '128Mi' });
  });

  it('passes the webhook error to the client: a denial is refused with its message', async () => {
    behaviour = 'deny';
    await register();
    const status = await failure(core.createNamespacedPod({ namespace: 'default', body: pod('denied') as V1Pod }));
    expect(status).toMatchObject({ code: 403, message: 'admission webhook "pods.kerf.getkerf.dev" denied the request: not today' });
  });

  it('honours failurePolicy: Fail refuses the pod when the webhook is down, Ignore admits it unchanged', async () => {
    const deadUrl = 'https://127.0.0.1:1/mutate';
    await register({ url: deadUrl });
    const refused = await failure(core.createNamespacedPod({ namespace: 'default', body: pod('refused') as V1Pod }));
    expect(refused).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(refused.message).toContain('failed calling webhook "pods.kerf.getkerf.dev"');

    await api.kubeConfig().makeApiClient(AdmissionregistrationV1Api).deleteMutatingWebhookConfiguration({ name: 'kerf' });
    await register({ url: deadUrl, failurePolicy: 'Ignore' });
    const admitted = await core.createNamespacedPod({ namespace: 'default', body: pod('ignored') as V1Pod });
    expect(admitted.spec?.containers[0]?.resources?.requests).toEqual({ cpu: '100m', memory: '128Mi' });
  });

  it('gives up on a webhook after timeoutSeconds', async () => {
    behaviour = 'hang';
    await register({ timeoutSeconds: 1, failurePolicy: 'Ignore' });
    const started = Date.now();
    const admitted = await core.createNamespacedPod({ namespace: 'default', body: pod('slow') as V1Pod });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(reviews).toHaveLength(1);
    expect(admitted.metadata?.annotations).toBeUndefined();
  });
});
