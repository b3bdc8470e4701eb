// The cluster of KUBECONFIG or the pod's service account (in-cluster), or of a kubeconfig's text
// (the Action's input), connected on first use: a command that never reads the cluster never
// fails on its configuration, and one that does fails at that read, saying why.
import { kubeClient } from './kube-client.js';
import { connectionFromEnvironment, kubeconfigConnection } from './kube-connection.js';
import type { KubeConnection, KubeconfigParser } from './kube-connection.js';
import type { ClusterPort } from './cluster-port.js';
import { kubeClusterSource } from './cluster-reader.js';
import type { ClusterSource } from './cluster-reader.js';
import { kubeClusterPort } from './kube-cluster-port.js';

export interface ClusterConnection extends ClusterSource {
  /** Writes (status, Events) to the same cluster. */
  port(): Promise<ClusterPort>;
}

export function clusterFromEnvironment(env: NodeJS.ProcessEnv, parse: KubeconfigParser): ClusterConnection {
  return connection('the cluster of KUBECONFIG or the service account', () => connectionFromEnvironment(env, parse));
}

/** The cluster a kubeconfig's text names (its current context), loaded from the text itself: no file, no KUBECONFIG. */
export function clusterFromKubeconfig(text: string, parse: KubeconfigParser): ClusterConnection {
  // Relative paths in the text are taken from the working directory, as for any path the user gives.
  return connection("the kubeconfig's cluster", () => kubeconfigConnection([{ data: parse(text), dir: '' }]));
}

function connection(unconnected: string, load: () => KubeConnection): ClusterConnection {
  let server = unconnected;
  let connected: Promise<{ source: ClusterSource; port: ClusterPort }> | undefined;
  const connect = () =>
    (connected ??= (async () => {
      const client = kubeClient(load());
      server = client.server;
      return { source: kubeClusterSource(client), port: kubeClusterPort(client) };
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
