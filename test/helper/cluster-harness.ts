// The Kubernetes stand-in plus a running helper, for integration scenarios driven over the wire
// with client-node: objects go in through the API, the helper runs from runHelper().
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { Logger } from '../../src/util/logger.js';
import { runHelper } from '../../src/helper/main.js';
import type { HelperOptions, RunningHelper } from '../../src/helper/main.js';
import type { KubeObject } from '../standins/kube/object-store.js';
import { startKubeApi } from '../standins/kube/start-kube-api.js';
import type { KubeApi, KubeApiOptions } from '../standins/kube/start-kube-api.js';
import { standinClient } from '../support/kube-client.js';

export interface LogLine {
  level: string;
  message: string;
  meta: Record<string, unknown>;
}

export function collectingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (message: string, meta: Record<string, unknown> = {}) => {
    lines.push({ level, message, meta });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface Harness {
  api: KubeApi;
  objects: KubernetesObjectApi;
  logs: LogLine[];
  /** Starts a helper against the stand-in (no webhook unless TLS options are given). */
  helper(options?: Partial<HelperOptions>): Promise<RunningHelper>;
  /** Writes the helper's config file (the mounted ConfigMap); its path. */
  writeConfig(config: Record<string, unknown>): string;
  create(object: KubernetesObject): Promise<KubernetesObject>;
  recommendationStatus(name: string, namespace?: string): Record<string, unknown>;
  events(namespace?: string): KubeObject[];
  close(): Promise<void>;
}

export async function startHarness(options: KubeApiOptions = {}): Promise<Harness> {
  const api = await startKubeApi({ ...options, kubeletIntervalMs: options.kubeletIntervalMs ?? 10 });
  const kubeConfig = api.kubeConfig();
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const logs: LogLine[] = [];
  const helpers: RunningHelper[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kerf-helper-'));
  for (const name of ['shop', 'kerf-system']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return {
    api,
    objects,
    logs,
    async helper(overrides = {}) {
      const helper = await runHelper({
        client: standinClient(api),
        noWebhook: true,
        logger: collectingLogger(logs),
        identity: 'helper-a',
        namespace: 'kerf-system',
        host: '127.0.0.1',
        resyncMs: 50,
        leaseDurationSeconds: 3,
        leaseRetryMs: 50,
        ...overrides,
      });
      helpers.push(helper);
      return helper;
    },
    writeConfig(config) {
      const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, stringify(config));
      return file;
    },
    create: (object) => objects.create(object),
    recommendationStatus: (name, namespace = 'shop') => (api.store.get('rightsizingrecommendations', namespace, name)?.status ?? {}) as Record<string, unknown>,
    events: (namespace = 'shop') => api.store.list('events.events.k8s.io', namespace),
    async close() {
      await Promise.all(helpers.map((helper) => helper.stop()));
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` holds (returning its value) or fails with the last reason after `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, tick?: () => unknown): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    await tick?.();
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not reached in ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function policy(apply: Record<string, unknown> = {}, name = 'default'): KubernetesObject {
  return {
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingPolicy',
    metadata: { name, namespace: 'shop' },
    spec: { mode: 'auto-patch', apply: { strategy: 'in-place', ...apply } },
  } as KubernetesObject;
}

export function recommendation(target: { kind: string; name: string }, containers: unknown[]): KubernetesObject {
  return {
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingRecommendation',
    metadata: { name: target.name, namespace: 'shop' },
    spec: { targetRef: { apiVersion: 'apps/v1', ...target }, containers },
  } as KubernetesObject;
}
