// One read of everything the reconciler needs from the cluster, once per run (the helper watches
// instead). Lists are raw JSON, as the helper's informers see them.
import { ClusterError } from './cluster-port.js';
import type { KubeClient } from './kube-client.js';
import type { ClusterSnapshot } from './snapshot.js';
import { SNAPSHOT_PATHS } from './kube-watch.js';
import type { KubeObject } from './objects.js';

export interface ClusterState extends ClusterSnapshot {
  /** Argo CD Applications; empty where Argo CD is not installed. */
  applications: KubeObject[];
  /** Flux Kustomizations; empty where Flux is not installed. */
  kustomizations: KubeObject[];
  /** Flux HelmReleases (helm.toolkit.fluxcd.io/v2); empty where helm-controller is not installed. */
  helmReleases: KubeObject[];
}

/** The cluster as the reconciler reads it: a port, so runs are tested against the stand-in or a fake. */
export interface ClusterSource {
  /** The API server's address, for messages. */
  readonly server: string;
  /** Everything at once; read once however often a run asks (it plans again after a rebase). */
  read(): Promise<ClusterState>;
  /** Only the RightsizingRecommendations (`kerf-gitops status`). */
  recommendations(): Promise<KubeObject[]>;
  /** The VerticalPodAutoscalers (autoscaling.k8s.io/v1); a ClusterError NotFound where VPA is not installed. */
  verticalPodAutoscalers(): Promise<KubeObject[]>;
}

export const VPA_LIST_PATH = '/apis/autoscaling.k8s.io/v1/verticalpodautoscalers';

export const SYNC_PATHS = {
  applications: '/apis/argoproj.io/v1alpha1/applications',
  kustomizations: '/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations',
  helmReleases: '/apis/helm.toolkit.fluxcd.io/v2/helmreleases',
} as const;

type Paths = Record<keyof ClusterState, string>;

export function kubeClusterSource(client: KubeClient): ClusterSource {
  const { server } = client;
  let state: Promise<ClusterState> | undefined;
  const list = async (resource: keyof ClusterState, path: string): Promise<[string, KubeObject[]]> => {
    try {
      return [resource, (await client.get<{ items?: KubeObject[] }>(path)).items ?? []];
    } catch (error) {
      // Argo CD and Flux are optional: their kinds are simply not served without them.
      if (resource in SYNC_PATHS && error instanceof ClusterError && error.code === 'NotFound') return [resource, []];
      throw error;
    }
  };
  return {
    server,
    read() {
      const paths: Paths = { ...SNAPSHOT_PATHS, ...SYNC_PATHS };
      state ??= Promise.all(Object.entries(paths).map(([resource, path]) => list(resource as keyof ClusterState, path))).then(
        (lists) => Object.fromEntries(lists) as unknown as ClusterState,
      );
      return state;
    },
    async recommendations() {
      return (await list('recommendations', SNAPSHOT_PATHS.recommendations))[1];
    },
    async verticalPodAutoscalers() {
      return (await client.get<{ items?: KubeObject[] }>(VPA_LIST_PATH)).items ?? [];
    },
  };
}
