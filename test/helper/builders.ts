// Builders for the helper's tests (VPA style): a plain running pod, node, StatefulSet, with
// options for what a row is about.
import type { Condition, KubeObject, Node, Pod, PodContainer } from '../../src/cluster/objects.js';

export interface PodOptions {
  name?: string;
  namespace?: string;
  node?: string;
  generation?: number;
  /** Pod status.observedGeneration; null leaves it out (clusters before 1.34). */
  observedGeneration?: number | null;
  containers?: PodContainer[];
  conditions?: Condition[];
  /** Actual resources per container as the kubelet reports them; defaults to the spec's. */
  actual?: Record<string, PodContainer['resources']>;
  labels?: Record<string, string>;
  owner?: { kind: string; name: string };
  ready?: { since: string } | false;
}

export function aPodContainer(overrides: Partial<PodContainer> = {}): PodContainer {
  return {
    name: 'app',
    image: 'ghcr.io/example/app:1.0',
    resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } },
    ...overrides,
  };
}

export function aPod(options: PodOptions = {}): Pod {
  const {
    name = 'cart-abc-1',
    namespace = 'shop',
    node = 'node-a',
    generation = 1,
    observedGeneration = generation,
    containers = [aPodContainer()],
    conditions = [],
    actual = {},
    labels = { app: 'cart', 'pod-template-hash': 'abc' },
    owner = { kind: 'ReplicaSet', name: 'cart-abc' },
    ready = { since: '2026-01-01T00:00:00Z' },
  } = options;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      generation,
      labels,
      creationTimestamp: '2026-01-01T00:00:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, controller: true }],
    },
    spec: { nodeName: node, containers },
    status: {
      phase: 'Running',
      ...(observedGeneration !== null && { observedGeneration }),
      conditions: [
        ...(ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: ready.since }] : [{ type: 'Ready', status: 'False' }]),
        ...conditions,
      ],
      containerStatuses: containers.map((c) => ({ name: c.name, ready: ready !== false, resources: actual[c.name] ?? c.resources })),
    },
  };
}

export function aNode(name = 'node-a', options: { swap?: boolean; labels?: Record<string, string> } = {}): Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...options.labels } },
    status: { nodeInfo: options.swap ? { swap: { capacity: 8 * 1024 ** 3 } } : {} },
  };
}

export function aDeployment(name = 'cart', overrides: { replicas?: number; annotations?: Record<string, string>; containers?: PodContainer[] } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop', labels: { app: name }, annotations: overrides.annotations ?? {} },
    spec: {
      replicas: overrides.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: overrides.containers ?? [aPodContainer()] } },
    },
    // Its controller has observed it and reports every replica at the current template.
    status: { observedGeneration: 1, replicas: overrides.replicas ?? 3, updatedReplicas: overrides.replicas ?? 3 },
  };
}
