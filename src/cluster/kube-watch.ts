// List+watch caches (informers) over everything the helper reads, on kube-client.ts. Lists are read
// a page at a time, and every object is cut down to what the helper reads (cached-objects.ts) as it
// arrives, from a list page or a watch event: 10,000 pods listed in one piece took more memory than
// the helper's Deployment allows. A watch resumes from the last resourceVersion it saw (bookmarks
// move it on); one too old to resume (410 Gone) lists again, as client-go's reflector does.
import { CACHED } from './cached-objects.js';
import { ClusterError } from './cluster-port.js';
import { listPaged } from './kube-client.js';
import type { KubeClient, KubeWatch, WatchEvent } from './kube-client.js';
import type { ClusterSnapshot } from './snapshot.js';
import type { KubeObject, Node, Pod } from './objects.js';

export interface ClusterWatch {
  /** Lists and watches everything; `onChange` runs after every add, update or delete. */
  start(onChange: () => void): Promise<void>;
  stop(): Promise<void>;
  snapshot(): ClusterSnapshot;
}

/** The list path of each kind the helper watches (and the reconciler reads once per run). */
export const SNAPSHOT_PATHS: Record<keyof ClusterSnapshot, string> = {
  recommendations: '/apis/kerf.getkerf.dev/v1alpha1/rightsizingrecommendations',
  policies: '/apis/kerf.getkerf.dev/v1alpha1/rightsizingpolicies',
  pods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  deployments: '/apis/apps/v1/deployments',
  statefulSets: '/apis/apps/v1/statefulsets',
  daemonSets: '/apis/apps/v1/daemonsets',
  replicaSets: '/apis/apps/v1/replicasets',
  pdbs: '/apis/policy/v1/poddisruptionbudgets',
  hpas: '/apis/autoscaling/v2/horizontalpodautoscalers',
};

const key = (object: KubeObject) => `${object.metadata.namespace ?? ''}/${object.metadata.name}`;

function resourceVersionOf(value: unknown): string | undefined {
  const version = (value as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' ? version : undefined;
}

function isKubeObject(value: unknown): value is KubeObject {
  return typeof value === 'object' && value !== null && typeof (value as { metadata?: unknown }).metadata === 'object' && (value as { metadata?: unknown }).metadata !== null;
}

export interface ClusterWatchOptions {
  /** After a failed list or watch, how long before the next try; default 1 s. */
  restartDelayMs?: number;
  onError?: (resource: string, error: unknown) => void;
}

export function kubeClusterWatch(client: KubeClient, options: ClusterWatchOptions = {}): ClusterWatch {
  const restartDelay = options.restartDelayMs ?? 1000;
  const caches = new Map<keyof ClusterSnapshot, Map<string, KubeObject>>();
  const watches = new Set<KubeWatch>();
  const wakers = new Set<() => void>();
  const loops: Promise<void>[] = [];
  let stopped = false;

  /** Waits `ms`, or less when stopped. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  /** Lists and watches one resource until stopped; `listed` runs after the first list, done or failed. */
  async function inform(resource: keyof ClusterSnapshot, onChange: () => void, listed: () => void): Promise<void> {
    const path = SNAPSHOT_PATHS[resource];
    const keep = CACHED[resource];
    let resourceVersion = '';

    const relist = async () => {
      const list = await listPaged(client, path, keep);
      caches.set(resource, new Map(list.items.map((item) => [key(item), item])));
      resourceVersion = list.metadata.resourceVersion;
      onChange();
    };

    /** One watch, to its end; an expired resourceVersion (410) clears it, so the loop lists again. */
    const watchOnce = async () => {
      let failed: ClusterError | undefined;
      const cache = caches.get(resource) ?? new Map<string, KubeObject>();
      const watch = client.watch(path, resourceVersion, ({ type, object }: WatchEvent) => {
        if (type === 'ERROR') {
          const status = object as { code?: number; message?: string } | undefined;
          if (status?.code === 410) resourceVersion = '';
          else failed = new ClusterError('Failed', `watch ${path}: ${status?.code ?? ''} ${status?.message ?? ''}`.trim(), status?.code);
          watch.stop();
          return;
        }
        resourceVersion = resourceVersionOf(object) ?? resourceVersion;
        if (!isKubeObject(object) || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) return;
        if (type === 'DELETED') cache.delete(key(object));
        else cache.set(key(object), keep(object));
        onChange();
      });
      watches.add(watch);
      try {
        await watch.done;
      } catch (error) {
        if (!(error instanceof ClusterError && error.status === 410)) throw error;
        resourceVersion = '';
      } finally {
        watches.delete(watch);
      }
      if (failed) throw failed;
    };

    let first = true;
    const settled = () => {
      if (first) listed();
      first = false;
    };
    while (!stopped) {
      try {
        if (!resourceVersion) await relist();
        settled();
        if (!stopped) await watchOnce();
      } catch (error) {
        settled();
        // Stopping cuts every watch: that is no failure, and a clean stop says nothing about it.
        if (stopped) return;
        options.onError?.(resource, error);
        await pause(restartDelay);
      }
    }
  }

  return {
    async start(onChange) {
      stopped = false;
      const resources = Object.keys(SNAPSHOT_PATHS) as (keyof ClusterSnapshot)[];
      await Promise.all(resources.map((resource) => new Promise<void>((listed) => loops.push(inform(resource, onChange, listed)))));
    },
    async stop() {
      stopped = true;
      for (const watch of watches) watch.stop();
      for (const wake of [...wakers]) wake();
      await Promise.all(loops.splice(0));
    },
    snapshot() {
      const list = <T>(resource: keyof ClusterSnapshot) => [...(caches.get(resource)?.values() ?? [])] as unknown as T[];
      return {
        recommendations: list('recommendations'),
        policies: list('policies'),
        pods: list<Pod>('pods'),
        nodes: list<Node>('nodes'),
        deployments: list('deployments'),
        statefulSets: list('statefulSets'),
        daemonSets: list('daemonSets'),
        replicaSets: list('replicaSets'),
        pdbs: list('pdbs'),
        hpas: list('hpas'),
      };
    },
  };
}
