// What one look at the cluster holds: the objects kerf reads, by resource. Its own file so the
// watch that fills it and the caching that trims its objects both stand on it.
import type { KubeObject, Node, Pod } from './objects.js';

export interface ClusterSnapshot {
  recommendations: KubeObject[];
  policies: KubeObject[];
  pods: Pod[];
  nodes: Node[];
  deployments: KubeObject[];
  statefulSets: KubeObject[];
  daemonSets: KubeObject[];
  replicaSets: KubeObject[];
  pdbs: KubeObject[];
  hpas: KubeObject[];
}
