// The cluster of KUBECONFIG or the pod's service account (in-cluster), connected on first use so
// commands that never touch a cluster do not load client-node.
import type { ClusterPort } from './cluster-port.js';
import type { ClusterSource } from './cluster-reader.js';

export interface ClusterConnection extends ClusterSource {
  /** Writes (status, Events) to the same cluster. */
  port(): Promise<ClusterPort>;
}

export function clusterFromEnvironment(): ClusterConnection {
  let server = 'the cluster of KUBECONFIG or the service account';
  let connected: Promise<{ source: ClusterSource; port: ClusterPort }> | undefined;
  const connect = () =>
    (connected ??= (async () => {
      const [{ KubeConfig }, { kubeClusterSource }, { kubeClusterPort }] = await Promise.all([
        import('@kubernetes/client-node'),
        import('./cluster-reader.js'),
        import('./kube-cluster-port.js'),
      ]);
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromDefault();
      const source = kubeClusterSource(kubeConfig);
      server = source.server;
      return { source, port: kubeClusterPort(kubeConfig) };
    })());
  return {
    get server() {
      return server;
    },
    read: async () => (await connect()).source.read(),
    recommendations: async () => (await connect()).source.recommendations(),
    verticalPodAutoscalers: async () => (await connect()).source.verticalPodAutoscalers(),
    port: async () => (await connect()).port,
  };
}
