// The Kubernetes stand-in for the helper benchmarks, and a realistic in-place workload in it: a
// Deployment `shop/cart` (an app container and a log-shipping sidecar) under an in-place
// auto-patch policy, its pods running, and the helper process watching it all.
import { join } from 'node:path';
import type { KubeObject } from '../test/standins/kube/object-store.js';
import { startKubeApi } from '../test/standins/kube/start-kube-api.js';
import type { KubeApi } from '../test/standins/kube/start-kube-api.js';
import type { Pod } from '../test/standins/kube/pods.js';
import { repoRoot } from './paths.js';

export const NAMESPACE = 'shop';
export const WORKLOAD = 'cart';

/** The stand-in serving kerf's CRDs from templates/crds, with the helper's namespace. */
export async function startCluster(options: { kubeletIntervalMs?: number } = {}): Promise<KubeApi> {
  const api = await startKubeApi({ crdDirectory: join(repoRoot(), 'templates', 'crds'), ...options });
  api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kerf-system' } });
  return api;
}

/** POST through the API (admission, validation, defaulting, watch events), as a client would. */
export async function create(api: KubeApi, path: string, object: unknown): Promise<KubeObject> {
  const response = await fetch(new URL(path, api.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(object) });
  const body = (await response.json()) as KubeObject;
  if (response.status !== 201) throw new Error(`benchmark: POST ${path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

const template = {
  app: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } },
  shipper: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
};

/** What the recommendation asks for, per container (requests only: limits stay). */
export const RECOMMENDED = {
  app: { cpu: '250m', memory: '384Mi' },
  'log-shipper': { cpu: '50m', memory: '96Mi' },
} as const;

function cartDeployment(replicas: number): KubeObject {
  const labels = { app: WORKLOAD, 'app.kubernetes.io/part-of': 'shop' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: WORKLOAD, namespace: NAMESPACE, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: WORKLOAD } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'ghcr.io/example/cart:2.4.1',
              ports: [{ name: 'http', containerPort: 8080 }],
              env: [{ name: 'LOG_LEVEL', value: 'info' }],
              resources: template.app,
            },
            { name: 'log-shipper', image: 'fluent/fluent-bit:3.1', resources: template.shipper },
          ],
        },
      },
    },
  };
}

export function recommendation(): unknown {
  return {
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingRecommendation',
    metadata: { name: WORKLOAD, namespace: NAMESPACE },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: WORKLOAD },
      containers: Object.entries(RECOMMENDED).map(([name, requests]) => ({ name, requests })),
    },
  };
}

export const RECOMMENDATIONS_PATH = `/apis/kerf.getkerf.dev/v1alpha1/namespaces/${NAMESPACE}/rightsizingrecommendations`;

/** Namespace, nodes, the in-place policy and the Deployment with all its pods running (no recommendation yet). */
export async function setUpCart(api: KubeApi, replicas: number): Promise<void> {
  await create(api, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  for (const name of ['node-a', 'node-b']) api.nodes.addNode({ name, capacity: { cpu: '32', memory: '128Gi' } });
  await create(api, `/apis/kerf.getkerf.dev/v1alpha1/namespaces/${NAMESPACE}/rightsizingpolicies`, {
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingPolicy',
    metadata: { name: 'default', namespace: NAMESPACE },
    spec: { mode: 'auto-patch', apply: { strategy: 'in-place' } },
  });
  await create(api, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, cartDeployment(replicas));
  // One pass makes the ReplicaSet, the next its pods (through the API).
  for (let pass = 0; pass < 3 && cartPods(api).length < replicas; pass++) await api.store.reconcileWorkloads();
  const running = cartPods(api).filter((pod) => pod.status?.phase === 'Running').length;
  if (running !== replicas) throw new Error(`benchmark: ${running} of ${replicas} cart pods running`);
}

export function cartPods(api: KubeApi): Pod[] {
  return (api.store.list('pods', NAMESPACE) as Pod[]).filter((pod) => pod.metadata.labels?.app === WORKLOAD);
}

/** Resized: the kubelet has synced the pod's generation, no resize is pending or in progress, and it runs with the recommended requests. */
export function resized(pod: Pod): boolean {
  const synced = (pod.status?.observedGeneration ?? 0) >= (pod.metadata.generation ?? 1);
  const busy = pod.status?.conditions?.some((condition) => condition.type === 'PodResizePending' || condition.type === 'PodResizeInProgress');
  const running = Object.entries(RECOMMENDED).every(([name, requests]) => {
    const actual = pod.status?.containerStatuses?.find((status) => status.name === name)?.resources?.requests;
    return actual?.cpu === requests.cpu && actual?.memory === requests.memory;
  });
  return synced && !busy && running;
}

export function recommendationPhase(api: KubeApi): string | undefined {
  return (api.store.get('rightsizingrecommendations', NAMESPACE, WORKLOAD)?.status as { phase?: string } | undefined)?.phase;
}

/** Polls `check` every few ms until it holds; the elapsed ms, or an error after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs: number, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`benchmark: ${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
