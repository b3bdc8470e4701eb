// Entry point: a Kubernetes API server stand-in on 127.0.0.1 (plain HTTP; the kubeconfig marks
// it insecure-skip-tls-verify so client-node 1.4 accepts http://), with simulated kubelets and
// on-demand workload controllers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { Cluster } from './cluster.js';
import { DEFAULT_CRD_DIRECTORY, readCrdDirectory, withKerfFallbacks } from './custom-resources.js';
import { HttpApi } from './http-api.js';
import { NodeSimulators } from './kubelet-simulator.js';
import type { KubeObject } from './object-store.js';
import type { Schema } from './openapi-schema.js';
import { resourceKey } from './resources.js';
import { WorkloadControllers } from './workload-controllers.js';

export interface KubeApiOptions {
  /** CRD manifests to serve instead of those in `crdDirectory`. */
  crds?: KubeObject[];
  /** Where kerf's CRD manifests live; default `templates/crds` of this repository. */
  crdDirectory?: string;
  /** OpenAPI v3 schemas by kind for kerf CRDs that no manifest defines. */
  crdSchemas?: Record<string, Schema>;
  /** Watch events kept for resuming watches; older resourceVersions answer 410 Expired. Default 1000. */
  watchHistory?: number;
  /** Tick the kubelet simulators on this interval; default: only when a test calls `nodes.tick()`. */
  kubeletIntervalMs?: number;
  /** The clock for timestamps (creationTimestamp, condition times); default the real one. */
  clock?: () => Date;
  /** How long a scheduled pod stays Pending before its kubelet starts it (by `clock`); default 0, at once. */
  podStartDelayMs?: number;
  /** Pod deletes (and evictions) leave the pod Terminating for its grace period, as the apiserver does; default off, immediate. */
  gracefulPodDeletion?: boolean;
}

/** Direct access to stored objects, for test setup and assertions. */
export interface KubeStore {
  /** `resource` is a plural, kind or short name, optionally `.group`: `pods`, `Deployment`, `leases.coordination.k8s.io`. */
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(resource: string, namespace?: string): KubeObject[];
  /** Create or replace as given (status included), skipping admission and validation; creates a missing namespace. */
  put(object: KubeObject): KubeObject;
  delete(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Drops all watch history, so every earlier resourceVersion answers 410 Expired. */
  compact(): void;
  readonly resourceVersion: number;
  /** Runs the Deployment/ReplicaSet/StatefulSet/DaemonSet/PDB controllers once. */
  reconcileWorkloads(): Promise<void>;
}

export interface KubeApi {
  url: string;
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
  store: KubeStore;
  nodes: NodeSimulators;
  /** Sends a BOOKMARK event on every open watch that allows bookmarks. */
  sendBookmarks(): void;
  /**
   * The next `count` evictions answer 429 TooManyRequests without a DisruptionBudget cause, with
   * `Retry-After` (API Priority and Fairness: `Too many requests, please try again later.`; or
   * `storage is (re)initializing`).
   */
  throttleEvictions(count: number, options?: { message?: string; retryAfterSeconds?: number }): void;
  close(): Promise<void>;
}

export async function startKubeApi(options: KubeApiOptions = {}): Promise<KubeApi> {
  const cluster = new Cluster({ historyLimit: options.watchHistory ?? 1000, clock: options.clock ?? (() => new Date()), gracefulPodDeletion: options.gracefulPodDeletion ?? false });
  const crds = withKerfFallbacks(options.crds ?? readCrdDirectory(options.crdDirectory ?? DEFAULT_CRD_DIRECTORY), options.crdSchemas ?? {});
  for (const crd of crds) cluster.put(crd);
  const nodes = new NodeSimulators(cluster, options.podStartDelayMs ?? 0);
  const controllers = new WorkloadControllers(cluster);
  const http = new HttpApi(cluster);

  const server = createServer(http.handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const directory = mkdtempSync(join(tmpdir(), 'kerf-kube-'));
  const kubeconfigPath = join(directory, 'kubeconfig');
  writeFileSync(kubeconfigPath, stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'standin', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'admin', user: { token: 'standin-token' } }],
    contexts: [{ name: 'standin', context: { cluster: 'standin', user: 'admin', namespace: 'default' } }],
    'current-context': 'standin',
  }));
  const timer = options.kubeletIntervalMs ? setInterval(() => nodes.tick(), options.kubeletIntervalMs) : undefined;

  const key = (resource: string): string => resourceKey(cluster.registry.resolve(resource));
  const store: KubeStore = {
    get: (resource, namespace, name) => cluster.store.get(key(resource), cluster.registry.resolve(resource).namespaced ? namespace : undefined, name),
    list: (resource, namespace) => cluster.store.list(key(resource), namespace),
    put: (object) => cluster.put(object),
    delete: (resource, namespace, name) => cluster.store.remove(key(resource), cluster.registry.resolve(resource).namespaced ? namespace : undefined, name),
    compact: () => cluster.store.compact(),
    get resourceVersion() {
      return cluster.store.resourceVersion;
    },
    reconcileWorkloads: () => controllers.reconcile(),
  };

  return {
    url,
    kubeconfigPath,
    kubeConfig() {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      return config;
    },
    store,
    nodes,
    sendBookmarks: () => http.sendBookmarks(),
    throttleEvictions: (count, throttle = {}) =>
      cluster.throttleEvictions({ count, message: throttle.message ?? 'Too many requests, please try again later.', retryAfterSeconds: throttle.retryAfterSeconds ?? 1 }),
    async close() {
      clearInterval(timer);
      http.closeWatches();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
