// A ClusterSource over wire objects, for plan and loop tests without an API server, and a wire
// RightsizingRecommendation builder.
import type { ClusterSource, ClusterState } from '../../src/cluster/cluster-reader.js';
import type { KubeObject } from '../../src/cluster/objects.js';

/** Serves `state` (missing kinds empty), or fails every read with `error`. */
export function fakeClusterSource(state: Partial<Record<keyof ClusterState, unknown[]>> | Error): ClusterSource {
  const read = async (): Promise<ClusterState> => {
    if (state instanceof Error) throw state;
    const list = (key: keyof ClusterState) => (state[key] ?? []) as KubeObject[];
    return {
      recommendations: list('recommendations'),
      policies: list('policies'),
      pods: list('pods') as ClusterState['pods'],
      nodes: list('nodes') as ClusterState['nodes'],
      deployments: list('deployments'),
      statefulSets: list('statefulSets'),
      daemonSets: list('daemonSets'),
      replicaSets: list('replicaSets'),
      pdbs: list('pdbs'),
      hpas: list('hpas'),
      applications: list('applications'),
      kustomizations: list('kustomizations'),
    };
  };
  return { server: 'https://fake.cluster.test', read, recommendations: async () => (await read()).recommendations };
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
