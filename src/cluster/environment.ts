// The cluster of KUBECONFIG or the pod's service account (in-cluster), or of a kubeconfig's text
// (the Action's input), connected on first use so commands that never touch a cluster do not load
// client-node.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterPort } from './cluster-port.js';
import type { ClusterSource } from './cluster-reader.js';

export interface ClusterConnection extends ClusterSource {
  /** Writes (status, Events) to the same cluster. */
  port(): Promise<ClusterPort>;
}

/**
 * Why no cluster can be reached from this environment, before client-node is asked (it either
 * throws a bare ENOENT or quietly falls back to localhost:8080): undefined when one is configured.
 */
export function clusterConfigProblem(env: NodeJS.ProcessEnv): string | undefined {
  if (env.KUBECONFIG) {
    const unreadable = env.KUBECONFIG.split(delimiter).filter(Boolean).filter((file) => !readable(file));
    return unreadable.length > 0 ? `cannot read KUBECONFIG ${unreadable.join(delimiter)}` : undefined;
  }
  if (env.KUBERNETES_SERVICE_HOST && readable(SERVICE_ACCOUNT_TOKEN)) return undefined;
  if (env.HOME && readable(join(env.HOME, '.kube', 'config'))) return undefined;
  return 'no cluster configured: set KUBECONFIG or run in a cluster';
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export function clusterFromEnvironment(): ClusterConnection {
  return connection('the cluster of KUBECONFIG or the service account', (kubeConfig) => kubeConfig.loadFromDefault());
}

/** The cluster a kubeconfig's text names (its current context), loaded from the text itself: no file, no KUBECONFIG. */
export function clusterFromKubeconfig(text: string): ClusterConnection {
  return connection("the kubeconfig's cluster", (kubeConfig) => kubeConfig.loadFromString(text));
}

function connection(unconnected: string, load: (kubeConfig: KubeConfig) => void): ClusterConnection {
  let server = unconnected;
  let connected: Promise<{ source: ClusterSource; port: ClusterPort }> | undefined;
  const connect = () =>
    (connected ??= (async () => {
      const [{ KubeConfig }, { kubeClusterSource }, { kubeClusterPort }] = await Promise.all([
        import('@kubernetes/client-node'),
        import('./cluster-reader.js'),
        import('./kube-cluster-port.js'),
      ]);
      const kubeConfig = new KubeConfig();
      load(kubeConfig);
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
