// Informers (client-node's list+watch caches) over everything the helper reads. Lists are fetched
// as raw JSON, like the watch events, because client-node's typed lists turn times into Dates and
// drop fields their models do not know. Lists are read a page at a time, and every object is cut
// down to what the helper reads (cached-objects.ts) as it arrives, from a list page or a watch
// event: 10,000 pods listed in one piece took more memory than the helper's Deployment allows.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import { ListWatch, Watch } from '@kubernetes/client-node';
import type { Informer, KubeConfig, KubernetesListObject, KubernetesObject, ObjectCache } from '@kubernetes/client-node';
import { CACHED } from './cached-objects.js';
import { ClusterError } from './cluster-port.js';
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

/** GET of an API path as JSON, with the kubeconfig's credentials and TLS settings. */
export async function getJson<T>(kubeConfig: KubeConfig, path: string): Promise<T> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new ClusterError('Failed', 'the kubeconfig has no current cluster');
  const url = new URL(path, server);
  const options: RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
  await kubeConfig.applyToHTTPSOptions(options);
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<T>((resolve, reject) => {
    const req = send(url, options, (res) => {
      // Decoded as it arrives: the body is held once, as a string, rather than as chunks, their concatenation and the string.
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) {
          reject(new ClusterError(res.statusCode === 404 ? 'NotFound' : 'Failed', `GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`, res.statusCode));
          return;
        }
        try {
          resolve(JSON.parse(text) as T);
        } catch (error) {
          reject(new ClusterError('Failed', `GET ${path}: not JSON`, res.statusCode, { cause: error }));
        }
      });
      res.on('error', reject);
    });
    req.on('error', (error) => reject(new ClusterError('Failed', `GET ${path}: ${error.message}`, undefined, { cause: error })));
    req.end();
  });
}

/** Items per list page: client-go's reflector pages by 500 too. */
export const PAGE_SIZE = 500;

/** How often a list whose continue token expired (410) is started again from the first page. */
const LIST_ATTEMPTS = 3;

export interface PagedList {
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

/**
 * Every item of a list, a page at a time (`limit`/`continue`), each page's items passed through
 * `keep` before the next page is read. The resource version is the first page's: the API server
 * serves every page from that snapshot, so a watch from it misses nothing. A continue token that
 * expired (410) starts the list again, as client-go's pager does.
 */
export async function listPaged(kubeConfig: KubeConfig, path: string, keep: (item: KubeObject) => KubeObject = (item) => item, pageSize = PAGE_SIZE): Promise<PagedList> {
  for (let attempt = 1; ; attempt++) {
    const items: KubeObject[] = [];
    let resourceVersion: string | undefined;
    let token: string | undefined;
    try {
      do {
        const query = new URLSearchParams({ limit: String(pageSize), ...(token && { continue: token }) });
        const page = await getJson<{ metadata?: { resourceVersion?: string; continue?: string }; items?: KubeObject[] | null }>(kubeConfig, `${path}?${query}`);
        resourceVersion ??= page.metadata?.resourceVersion ?? '';
        for (const item of page.items ?? []) items.push(keep(item));
        token = page.metadata?.continue || undefined;
      } while (token);
      return { metadata: { resourceVersion: resourceVersion ?? '' }, items };
    } catch (error) {
      const expired = token !== undefined && error instanceof ClusterError && error.status === 410;
      if (!expired || attempt >= LIST_ATTEMPTS) throw error;
    }
  }
}

/** client-node's Watch, with each event's object cut down before the informer caches it. */
class CuttingWatch extends Watch {
  constructor(
    kubeConfig: KubeConfig,
    private readonly keep: (object: KubeObject) => KubeObject,
  ) {
    super(kubeConfig);
  }

  override watch(...[path, query, callback, done]: Parameters<Watch['watch']>): ReturnType<Watch['watch']> {
    return super.watch(path, query, (phase, object: unknown) => {
      const cut = (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED') && isKubeObject(object) ? this.keep(object) : object;
      callback(phase, cut);
    }, done);
  }
}

function isKubeObject(value: unknown): value is KubeObject {
  return typeof value === 'object' && value !== null && typeof (value as { metadata?: unknown }).metadata === 'object' && (value as { metadata?: unknown }).metadata !== null;
}

export function kubeClusterWatch(kubeConfig: KubeConfig, options: { restartDelayMs?: number; onError?: (resource: string, error: unknown) => void } = {}): ClusterWatch {
  const restartDelay = options.restartDelayMs ?? 1000;
  const informers = new Map<keyof ClusterSnapshot, Informer<KubernetesObject> & ObjectCache<KubernetesObject>>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  return {
    async start(onChange) {
      stopped = false;
      for (const [resource, path] of Object.entries(SNAPSHOT_PATHS) as [keyof ClusterSnapshot, string][]) {
        const keep = CACHED[resource];
        const list = async () => (await listPaged(kubeConfig, path, keep)) as unknown as KubernetesListObject<KubernetesObject>;
        const informer = new ListWatch<KubernetesObject>(path, new CuttingWatch(kubeConfig, keep), list, false);
        informer.on('add', onChange);
        informer.on('update', onChange);
        informer.on('delete', onChange);
        // client-node stops an informer on a watch error; start it again (a relist when the version expired).
        informer.on('error', (error) => {
          // Stopping aborts every watch: that is no failure, and a clean stop says nothing about it.
          if (stopped) return;
          options.onError?.(resource, error);
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (!stopped) informer.start().catch((cause) => options.onError?.(resource, cause));
          }, restartDelay);
          timers.add(timer);
        });
        informers.set(resource, informer);
      }
      await Promise.all([...informers.values()].map((informer) => informer.start()));
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([...informers.values()].map((informer) => informer.stop()));
    },
    snapshot() {
      const list = <T>(resource: keyof ClusterSnapshot) => (informers.get(resource)?.list() ?? []) as unknown as T[];
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
