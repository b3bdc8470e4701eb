// The helper's own webhook certificate, kept in the Kubernetes API: one Secret shared by every replica
// (filled once, then reused; renewed before expiry, src/helper/serving-certificate.ts) and the caBundle of
// every webhook in the MutatingWebhookConfiguration. Every replica runs it; optimistic concurrency
// (AlreadyExists, Conflict) settles races: the loser reads what the winner wrote and uses that.
import type { Server as HttpsServer } from 'node:https';
import { ClusterError } from '../cluster/cluster-port.js';
import type { KubeClient } from '../cluster/kube-client.js';
import type { Logger } from '../util/logger.js';
import { fromSecretData, renew, renewalDue, toSecretData, type ServingMaterial } from './serving-certificate.js';

export class WebhookCertificateError extends Error {
  readonly code = 'WebhookCertificate';
}

export interface CertificateRotationOptions {
  client: KubeClient;
  namespace: string;
  /** The Secret the install creates empty (so the helper needs no `create` on Secrets). */
  secretName: string;
  webhookConfiguration: string;
  /** The names the API server calls the webhook by (the Service's DNS names). */
  hosts: readonly string[];
  now: () => Date;
  logger: Logger;
}

/** Races lost in a row before giving up for this pass (the next pass tries again). */
const ATTEMPTS = 5;

/** As read and written whole: a replace sends back every field it was given. */
interface Secret {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

interface WebhookConfiguration {
  webhooks?: { clientConfig: { caBundle?: string } }[];
}

const secrets = (namespace: string) => `/api/v1/namespaces/${namespace}/secrets`;
const webhookConfiguration = (name: string) => `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`;

export class CertificateRotation {
  constructor(private readonly options: CertificateRotationOptions) {}

  /** The material to serve now: the Secret's if still good, else renewed and stored; the caBundle made to match. */
  async ensure(): Promise<ServingMaterial> {
    const material = await this.ensureSecret();
    await this.ensureCaBundle(material.caBundle);
    return material;
  }

  private async ensureSecret(): Promise<ServingMaterial> {
    const { namespace, secretName: name, hosts, logger } = this.options;
    const what = `Secret ${namespace}/${name}`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const now = this.options.now();
      const secret = await this.readSecret();
      const current = fromSecretData(secret?.data);
      const renewal = current ? renewalDue(current, hosts, now) : 'ca';
      if (current && renewal === 'none') return current;
      const next = renew(current, renewal, hosts, now);
      try {
        if (secret) {
          // The resourceVersion makes this a compare-and-swap: a replica that renewed first wins.
          await this.options.client.call(`update ${what}`, 'PUT', `${secrets(namespace)}/${name}`, { ...secret, data: { ...secret.data, ...toSecretData(next) } });
        } else {
          await this.options.client.call(`create ${what}`, 'POST', secrets(namespace), {
            apiVersion: 'v1',
            kind: 'Secret',
            type: 'Opaque',
            metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'kerf-gitops' } },
            data: toSecretData(next),
          });
        }
        logger.info('webhook certificate stored', { secret: what, renewed: current ? renewal : 'new' });
        return next;
      } catch (error) {
        if (error instanceof ClusterError && (error.code === 'Conflict' || error.code === 'AlreadyExists')) continue;
        throw this.failed(error, secret ? undefined : `the install creates ${what} empty; create it, or grant the helper create on Secrets`);
      }
    }
    throw new WebhookCertificateError(`${what}: still changing under us after ${ATTEMPTS} attempts`);
  }

  private async readSecret(): Promise<Secret | undefined> {
    const { namespace, secretName: name } = this.options;
    try {
      return await this.options.client.call<Secret>(`read Secret ${namespace}/${name}`, 'GET', `${secrets(namespace)}/${name}`);
    } catch (error) {
      if (error instanceof ClusterError && error.code === 'NotFound') return undefined;
      throw this.failed(error);
    }
  }

  /** Every webhook of the configuration trusts `bundle`; written only when one does not yet. */
  private async ensureCaBundle(bundle: string): Promise<void> {
    const { webhookConfiguration: name, logger } = this.options;
    const caBundle = Buffer.from(bundle).toString('base64');
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let configuration: WebhookConfiguration;
      try {
        configuration = await this.options.client.call<WebhookConfiguration>(`read MutatingWebhookConfiguration ${name}`, 'GET', webhookConfiguration(name));
      } catch (error) {
        throw this.failed(error);
      }
      const webhooks = configuration.webhooks ?? [];
      if (webhooks.every((webhook) => webhook.clientConfig.caBundle === caBundle)) return;
      const body = { ...configuration, webhooks: webhooks.map((webhook) => ({ ...webhook, clientConfig: { ...webhook.clientConfig, caBundle } })) };
      try {
        await this.options.client.call(`update MutatingWebhookConfiguration ${name}`, 'PUT', webhookConfiguration(name), body);
        logger.info('webhook caBundle written', { webhookConfiguration: name, webhooks: webhooks.length });
        return;
      } catch (error) {
        if (error instanceof ClusterError && error.code === 'Conflict') continue;
        throw this.failed(error);
      }
    }
    throw new WebhookCertificateError(`MutatingWebhookConfiguration ${name}: still changing under us after ${ATTEMPTS} attempts`);
  }

  private failed(error: unknown, hint?: string): WebhookCertificateError {
    return new WebhookCertificateError(`${(error as Error).message}${hint ? ` (${hint})` : ''}`, { cause: error });
  }
}

/**
 * Runs `ensure` every `intervalMs` while `server` serves `served`: a renewal, made here or by another
 * replica, reaches the server without a restart. A failed pass keeps the current certificate and says so.
 */
export function keepRenewed(rotation: CertificateRotation, server: HttpsServer, served: ServingMaterial, intervalMs: number, logger: Logger): () => void {
  let current = served;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    rotation
      .ensure()
      .then((material) => {
        if (material.tlsCert === current.tlsCert && material.tlsKey === current.tlsKey) return;
        server.setSecureContext({ cert: material.tlsCert, key: material.tlsKey });
        current = material;
        logger.info('webhook certificate reloaded', { source: 'secret' });
      })
      .catch((error: unknown) => logger.warn('webhook certificate not checked, keeping the current one', { error: (error as Error).message }))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
