// The helper's own webhook certificate against the Kubernetes stand-in, driven by kerf's own client:
// the Secret is filled (or created) once and reused by every replica, the caBundle of every webhook is
// written, and both certificates are renewed before they expire without a replica losing trust.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CertificateRotation, WebhookCertificateError } from '../../src/helper/certificate-rotation.js';
import { fromSecretData, splitPem, CA_LIFETIME_MS, CA_RENEW_BEFORE_MS, SERVING_LIFETIME_MS, SERVING_RENEW_BEFORE_MS } from '../../src/helper/serving-certificate.js';
import type { ServingMaterial } from '../../src/helper/serving-certificate.js';
import type { Logger } from '../../src/util/logger.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { standinClient } from '../support/kube-client.js';

const START = new Date('2026-12-02T10:00:00Z');
const HOSTS = ['kerf-gitops-helper.kerf-system.svc', 'kerf-gitops-helper.kerf-system.svc.cluster.local'];
const DAY = 24 * 60 * 60 * 1000;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

let api: KubeApi;
let now: Date;

function replica(hosts: readonly string[] = HOSTS): CertificateRotation {
  return new CertificateRotation({ client: standinClient(api), namespace: 'kerf-system', secretName: 'kerf-gitops-webhook-tls', webhookConfiguration: 'kerf-gitops', hosts, now: () => now, logger: quiet });
}

type Stored = { metadata: { resourceVersion: string }; data?: Record<string, string>; type?: string };
const secret = () => api.store.get('secrets', 'kerf-system', 'kerf-gitops-webhook-tls') as unknown as Stored | undefined;
const webhookConfiguration = () => api.store.get('mutatingwebhookconfigurations', '', 'kerf-gitops') as unknown as { metadata: { resourceVersion: string }; webhooks: { clientConfig: { caBundle?: string } }[] };
const caBundles = () => webhookConfiguration().webhooks.map((webhook) => Buffer.from(webhook.clientConfig.caBundle ?? '', 'base64').toString('utf8'));

/** Whether `material`'s serving certificate is trusted by `bundle` for `host` at `at`, as a TLS client checks. */
function trusted(material: ServingMaterial, bundle: string, host: string, at: Date): boolean {
  const serving = new X509Certificate(material.tlsCert);
  const inTime = new Date(serving.validFrom) <= at && at < new Date(serving.validTo);
  return inTime && serving.checkHost(host) !== undefined && splitPem(bundle).some((pem) => serving.verify(new X509Certificate(pem).publicKey));
}

beforeEach(async () => {
  now = START;
  api = await startKubeApi();
  // As the install leaves them: the webhook configuration without caBundle, the Secret empty.
  const manifest = parse(readFileSync(new URL('../../templates/install/webhook.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
  api.store.put(manifest as never);
  api.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'kerf-gitops-webhook-tls', namespace: 'kerf-system' } } as never);
});

afterEach(() => api.close());

describe('the self-managed webhook certificate', () => {
  it('fills the install\'s empty Secret once; the next replica reuses it without a write', async () => {
    const first = await replica().ensure();
    const stored = secret()!;
    expect(fromSecretData(stored.data)).toEqual(first);
    expect(stored.type).toBe('Opaque');
    const second = await replica().ensure();
    expect(second).toEqual(first);
    expect(secret()!.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect(trusted(first, first.caBundle, HOSTS[0]!, now)).toBe(true);
    expect(new X509Certificate(splitPem(first.caBundle)[0]!).ca).toBe(true);
  });

  it('creates the Secret when it is missing, and two replicas starting together end with one certificate', async () => {
    api.store.delete('secrets', 'kerf-system', 'kerf-gitops-webhook-tls');
    const [a, b] = await Promise.all([replica().ensure(), replica().ensure()]);
    expect(a).toEqual(b);
    expect(fromSecretData(secret()!.data)).toEqual(a);
  });

  it('writes the CA into every webhook\'s caBundle, and leaves a matching configuration alone', async () => {
    const material = await replica().ensure();
    expect(caBundles()).toEqual([material.caBundle, material.caBundle]);
    const version = webhookConfiguration().metadata.resourceVersion;
    await replica().ensure();
    expect(webhookConfiguration().metadata.resourceVersion).toBe(version);
  });

  it('puts the caBundle back when something wiped it', async () => {
    const material = await replica().ensure();
    const configuration = webhookConfiguration();
    api.store.put({ ...configuration, webhooks: configuration.webhooks.map((webhook) => ({ ...webhook, clientConfig: { ...webhook.clientConfig, caBundle: undefined } })) } as never);
    await replica().ensure();
    expect(caBundles()).toEqual([material.caBundle, material.caBundle]);
  });

  it('renews the serving certificate before it expires, from the same CA (the caBundle stays)', async () => {
    const first = await replica().ensure();
    now = new Date(START.getTime() + SERVING_LIFETIME_MS - SERVING_RENEW_BEFORE_MS - DAY);
    expect(await replica().ensure()).toEqual(first);
    now = new Date(START.getTime() + SERVING_LIFETIME_MS - SERVING_RENEW_BEFORE_MS + DAY);
    const renewed = await replica().ensure();
    expect(renewed.tlsCert).not.toBe(first.tlsCert);
    expect(renewed.caBundle).toBe(first.caBundle);
    expect(new Date(new X509Certificate(renewed.tlsCert).validTo).getTime()).toBeGreaterThan(now.getTime() + SERVING_LIFETIME_MS - DAY);
    expect(caBundles()[0]).toBe(first.caBundle);
    expect(trusted(renewed, caBundles()[0]!, HOSTS[0]!, now)).toBe(true);
  });

  it('replaces the CA before it expires, keeping the old one trusted for replicas not yet reloaded', async () => {
    let material = await replica().ensure();
    const oldCa = splitPem(material.caBundle)[0]!;
    // Serving renewals along the way keep the CA.
    for (let at = START.getTime(); at < START.getTime() + CA_LIFETIME_MS - CA_RENEW_BEFORE_MS - DAY; at += 50 * DAY) {
      now = new Date(at);
      material = await replica().ensure();
      expect(splitPem(material.caBundle)).toEqual([oldCa]);
    }
    const beforeRotation = material;
    now = new Date(START.getTime() + CA_LIFETIME_MS - CA_RENEW_BEFORE_MS + DAY);
    const rotated = await replica().ensure();
    const bundle = splitPem(rotated.caBundle);
    expect(bundle).toHaveLength(2);
    expect(bundle[0]).not.toBe(oldCa);
    expect(bundle[1]).toBe(oldCa);
    expect(caBundles()[0]).toBe(rotated.caBundle);
    // Both the replica on the new certificate and the one still on the old are trusted.
    expect(trusted(rotated, caBundles()[0]!, HOSTS[0]!, now)).toBe(true);
    expect(trusted(beforeRotation, caBundles()[0]!, HOSTS[0]!, now)).toBe(true);
    // Once the old CA has expired, the next CA rotation drops it.
    now = new Date(START.getTime() + 2 * CA_LIFETIME_MS);
    const later = await replica().ensure();
    expect(splitPem(later.caBundle)).not.toContain(oldCa);
  });

  it('starts over with a new CA when the Secret holds something unusable', async () => {
    const first = await replica().ensure();
    const stored = secret()!;
    api.store.put({ ...stored, data: { ...stored.data, 'tls.key': Buffer.from('not a key').toString('base64'), 'ca.key': Buffer.from('not a key').toString('base64') } } as never);
    const fresh = await replica().ensure();
    expect(fresh.caBundle).not.toBe(first.caBundle);
    expect(trusted(fresh, caBundles()[0]!, HOSTS[0]!, now)).toBe(true);
  });

  it('reissues the serving certificate when the Service names change', async () => {
    const first = await replica().ensure();
    const moved = await replica(['kerf-gitops-helper.other.svc']).ensure();
    expect(moved.caBundle).toBe(first.caBundle);
    expect(trusted(moved, moved.caBundle, 'kerf-gitops-helper.other.svc', now)).toBe(true);
  });

  it('names what is missing when the webhook configuration is not installed', async () => {
    api.store.delete('mutatingwebhookconfigurations', '', 'kerf-gitops');
    const error = await replica().ensure().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookCertificateError);
    expect(error).toMatchObject({ code: 'WebhookCertificate', message: expect.stringContaining('MutatingWebhookConfiguration kerf-gitops') });
  });
});
