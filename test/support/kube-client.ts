// kerf's own client to the Kubernetes stand-in, reached the way a user's kubeconfig is: from the
// file the stand-in wrote, through the loader the CLI uses.
import { parse } from 'yaml';
import { kubeClient, type KubeClient } from '../../src/cluster/kube-client.js';
import { connectionFromEnvironment } from '../../src/cluster/kube-connection.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';

export function standinClient(api: Pick<KubeApi, 'kubeconfigPath'>): KubeClient {
  return kubeClient(connectionFromEnvironment({ KUBECONFIG: api.kubeconfigPath }, parse));
}
