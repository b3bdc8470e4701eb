// `kerf-gitops helper`: the controller loop (leader-elected), the pod webhook (every replica) and
// health endpoints, wired from options. The only place in the helper that reads files, the
// environment and the clock.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { KubeClient } from '../cluster/kube-client.js';
import type { KerfConfig } from '../model/types.js';
import { CONFIG_DEFAULTS } from '../model/validate.js';
import { readConfigText } from '../manifests/config-file.js';
import { kubeClusterPort } from '../cluster/kube-cluster-port.js';
import { kubeClusterWatch } from '../cluster/kube-watch.js';
import { Controller } from './controller.js';
import { LeaderElector } from './leader-election.js';
import type { Logger } from '../util/logger.js';
import { startWebhookServer } from './webhook.js';
import { CertificateRotation, keepRenewed } from './certificate-rotation.js';

export const LEASE_NAME = 'kerf-gitops-helper';

export class HelperOptionsError extends Error {
  readonly code = 'InvalidHelperOptions';
}

export class HelperConfigError extends Error {
  readonly code = 'InvalidConfig';
}

export interface HelperOptions {
  /** The config file (the mounted ConfigMap); re-read when it changes. */
  config?: string;
  webhookPort?: number;
  tlsCert?: string;
  tlsKey?: string;
  /** The helper makes, stores and renews its own serving certificate (instead of tlsCert/tlsKey files). */
  selfSignedCertificate?: SelfSignedCertificateOptions;
  /** Run only the controller loop (local runs, tests). */
  noWebhook?: boolean;
  healthPort?: number;
  /** The Kubernetes API, as the service account or a kubeconfig reaches it. */
  client: KubeClient;
  now?: () => Date;
  logger: Logger;
  /** This replica's name (reportingInstance, Lease holder); default $POD_NAME, else the host name. */
  identity?: string;
  /** Where the Lease lives; default $POD_NAMESPACE, else kerf-system. */
  namespace?: string;
  leaseDurationSeconds?: number;
  /** How often the Lease is renewed or retried; default a third of its duration. */
  leaseRetryMs?: number;
  /** Pass at least this often (time-based rules); default 5 s. */
  resyncMs?: number;
  /** Address the webhook and health listeners bind (`--bind-address`); default all interfaces (0.0.0.0), as in the pod. */
  host?: string;
}

export interface SelfSignedCertificateOptions {
  /** The Secret holding the CA and the serving certificate, in the helper's namespace. */
  secretName: string;
  /** The MutatingWebhookConfiguration whose caBundle the helper writes. */
  webhookConfiguration: string;
  /** The Service the API server calls; the certificate names <service>.<namespace>.svc(.cluster.local). */
  service: string;
  /** Names for the certificate instead of the Service's (tests call 127.0.0.1). */
  hosts?: string[];
  /** How often the Secret and the caBundle are checked; default 10 minutes. */
  checkIntervalMs?: number;
}

export interface RunningHelper {
  controller: Controller;
  elector: LeaderElector;
  webhookPort?: number;
  healthPort?: number;
  stop(): Promise<void>;
}

/** The mounted config through the one validation pipeline; throws naming every error. */
function readConfig(file: string): KerfConfig {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new HelperConfigError(`cannot read config ${file}: ${(error as Error).message}`, { cause: error });
  }
  const { config, errors } = readConfigText(file, bytes);
  const failing = errors.filter((error) => error.severity !== 'warning');
  if (failing.length > 0) throw new HelperConfigError(failing.map((e) => e.message).join('; '));
  return config;
}

/**
 * The config as of the file's last change. A reload that fails (unreadable, or any validation
 * error) freezes the helper until a valid config arrives: the broken edit may be the emergency
 * freeze an operator is writing, so the last good (unfrozen) config must not stay in force.
 */
export function configSource(file: string | undefined, logger: Logger): () => KerfConfig {
  if (!file) return () => CONFIG_DEFAULTS;
  let current = readConfig(file);
  let seen = statSync(file).mtimeMs;
  return () => {
    try {
      const mtime = statSync(file).mtimeMs;
      if (mtime !== seen) {
        seen = mtime;
        current = readConfig(file);
        logger.info('config reloaded', { file });
      }
    } catch (error) {
      if (!current.freeze.now) logger.error('config invalid: frozen until a valid config arrives', { file, error: (error as Error).message });
      current = { ...current, freeze: { ...current.freeze, now: true } };
    }
    return current;
  };
}

/** A TLS file the webhook cannot read is an options error (one line, exit 2), found before anything starts. */
function checkReadable(file: string, flag: string): void {
  try {
    readFileSync(file);
  } catch (error) {
    throw new HelperOptionsError(`cannot read ${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function listen(server: Server | HttpsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

const close = (server: Server | HttpsServer | undefined) =>
  new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

/** Starts the helper; resolves once caches are listed and servers listen. */
export async function runHelper(options: HelperOptions): Promise<RunningHelper> {
  const { logger, client } = options;
  const now = options.now ?? (() => new Date());
  const certificateFiles = options.tlsCert !== undefined || options.tlsKey !== undefined;
  if (!options.noWebhook && (options.webhookPort === undefined || (options.selfSignedCertificate ? certificateFiles : !options.tlsCert || !options.tlsKey))) {
    throw new HelperOptionsError('the webhook needs --webhook-port and either --tls-cert with --tls-key or --self-signed-cert (or --no-webhook)');
  }
  if (!options.noWebhook && !options.selfSignedCertificate) {
    checkReadable(options.tlsCert as string, '--tls-cert');
    checkReadable(options.tlsKey as string, '--tls-key');
  }
  const config = configSource(options.config, logger);
  const identity = options.identity ?? process.env.POD_NAME ?? hostname();
  const host = options.host ?? '0.0.0.0';
  const namespace = options.namespace ?? process.env.POD_NAMESPACE ?? 'kerf-system';
  const port = kubeClusterPort(client);
  const watch = kubeClusterWatch(client, { onError: (resource, error) => logger.warn('watch failed, restarting', { resource, error: (error as Error).message }) });
  let controller: Controller | undefined;
  const elector = new LeaderElector({
    port,
    namespace,
    name: LEASE_NAME,
    identity,
    ...(options.leaseDurationSeconds !== undefined && { durationSeconds: options.leaseDurationSeconds }),
    ...(options.leaseRetryMs !== undefined && { retryPeriodMs: options.leaseRetryMs }),
    now,
    logger,
    onChange: (leads) => {
      if (leads) controller?.trigger();
    },
  });
  controller = new Controller({
    port,
    watch,
    elector,
    config,
    identity,
    now,
    logger,
    ...(options.resyncMs !== undefined && { resyncMs: options.resyncMs }),
  });
  const running = controller;
  await running.start();
  elector.start();

  let webhook: HttpsServer | undefined;
  let health: Server | undefined;
  let stopRenewing = () => {};
  try {
    if (!options.noWebhook) {
      const served = { port: options.webhookPort as number, host, state: () => running.webhookState(), logger };
      const self = options.selfSignedCertificate;
      if (self) {
        const rotation = new CertificateRotation({
          client,
          namespace,
          secretName: self.secretName,
          webhookConfiguration: self.webhookConfiguration,
          hosts: self.hosts ?? [`${self.service}.${namespace}.svc`, `${self.service}.${namespace}.svc.cluster.local`],
          now,
          logger,
        });
        const material = await rotation.ensure();
        webhook = await startWebhookServer({ ...served, certificate: { cert: material.tlsCert, key: material.tlsKey } });
        stopRenewing = keepRenewed(rotation, webhook, material, self.checkIntervalMs ?? 10 * 60_000, logger);
      } else {
        webhook = await startWebhookServer({ ...served, tlsCert: options.tlsCert as string, tlsKey: options.tlsKey as string });
      }
    }
    let healthPort: number | undefined;
    if (options.healthPort !== undefined) {
      health = createServer((req, res) => {
        const path = req.url?.split('?')[0];
        if (path === '/healthz') res.writeHead(200).end('ok');
        else if (path === '/readyz') res.writeHead(running.ready() ? 200 : 503).end(running.ready() ? 'ok' : 'caches not synced');
        else res.writeHead(404).end();
      });
      healthPort = await listen(health, options.healthPort, host);
    }
    const webhookPort = webhook ? (webhook.address() as AddressInfo).port : undefined;
    logger.info('helper started', { identity, webhookPort, healthPort });
    return {
      controller: running,
      elector,
      ...(webhookPort !== undefined && { webhookPort }),
      ...(healthPort !== undefined && { healthPort }),
      async stop() {
        stopRenewing();
        await Promise.all([close(webhook), close(health)]);
        await elector.stop();
        await running.stop();
        logger.info('helper stopped', { identity });
      },
    };
  } catch (error) {
    stopRenewing();
    await Promise.all([close(webhook), close(health)]);
    await elector.stop();
    await running.stop();
    throw error;
  }
}
