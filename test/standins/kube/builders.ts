// Object builders for tests that use the stand-in.
import type { KubeObject } from './object-store.js';
import type { Container, Pod } from './pods.js';

export interface ContainerOptions {
  name?: string;
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  /** Resources whose resize restarts the container (`resizePolicy: RestartContainer`). */
  restartOn?: ('cpu' | 'memory')[];
}

export function container(options: ContainerOptions = {}): Container {
  const resources = { ...(options.requests ? { requests: options.requests } : {}), ...(options.limits ? { limits: options.limits } : {}) };
  return {
    name: options.name ?? 'app',
    image: 'registry.example/app:1',
    resources,
    ...(options.restartOn
      ? { resizePolicy: (['cpu', 'memory'] as const).map((resourceName) => ({ resourceName, restartPolicy: options.restartOn!.includes(resourceName) ? 'RestartContainer' : 'NotRequired' })) }
      : {}),
  };
}

export function pod(name: string, options: { namespace?: string; labels?: Record<string, string>; nodeName?: string; containers?: Container[] } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', labels: options.labels ?? { app: name } },
    spec: { ...(options.nodeName ? { nodeName: options.nodeName } : {}), containers: options.containers ?? [container({ requests: { cpu: '100m', memory: '128Mi' } })] },
  };
}

export function deployment(name: string, options: { namespace?: string; replicas?: number; containers?: Container[] } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: options.namespace ?? 'default', labels: { app: name } },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: options.containers ?? [container({ requests: { cpu: '100m', memory: '128Mi' } })] } },
    },
  };
}

export function statefulSet(name: string, options: { namespace?: string; replicas?: number; onDelete?: boolean; containers?: Container[] } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: options.namespace ?? 'default', labels: { app: name } },
    spec: {
      replicas: options.replicas ?? 1,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      ...(options.onDelete ? { updateStrategy: { type: 'OnDelete' } } : {}),
      template: { metadata: { labels: { app: name } }, spec: { containers: options.containers ?? [container({ requests: { cpu: '100m', memory: '128Mi' } })] } },
    },
  };
}

export function podDisruptionBudget(name: string, selector: Record<string, string>, budget: { minAvailable?: number | string; maxUnavailable?: number | string }, namespace = 'default'): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace },
    spec: { selector: { matchLabels: selector }, ...budget },
  };
}
