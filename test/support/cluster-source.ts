// A ClusterSource over wire objects, for plan and loop tests without an API server, and a wire
// RightsizingRecommendation builder.
import { SYNC_PATHS, type ClusterSource, type ClusterState } from '../../src/cluster/cluster-reader.js';
import { SNAPSHOT_PATHS } from '../../src/cluster/kube-watch.js';
import type { KubeObject } from '../../src/cluster/objects.js';

/** Serves `state` (missing kinds empty), or fails every read with `error`. */
export function fakeClusterSource(state: Partial<Record<keyof ClusterState, unknown[]>> | Error): ClusterSource {
  const read = async (): Promise<ClusterState> => {
    if (state instanceof Error) throw state;
    const kinds = [...Object.keys(SNAPSHOT_PATHS), ...Object.keys(SYNC_PATHS)] as (keyof ClusterState)[];
    return Object.fromEntries(kinds.map((kind) => [kind, state[kind] ?? []])) as unknown as ClusterState;
  };
  return {
    server: 'https://fake.cluster.test',
    read,
    recommendations: async () => (await read()).recommendations,
    verticalPodAutoscalers: async () => {
      throw new Error('this fake serves no VerticalPodAutoscalers');
    },
  };
}

export function wireRecommendation(
  namespace: string,
  name: string,
  target: { kind: string; name: string },
  containers: unknown[],
  status: Record<string, unknown> = {},
  generation = 1,
): KubeObject {
  return {
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingRecommendation',
    metadata: { name, namespace, generation, resourceVersion: '1' },
    spec: { targetRef: { apiVersion: 'apps/v1', ...target }, containers },
    status,
  };
}
