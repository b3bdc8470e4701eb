// kerf's own client to the Kubernetes stand-in, reached the way a user's kubeconfig is: from the
// file the stand-in wrote, through the loader the CLI uses.
import { parse } from 'yaml';
import { kubeClient, type KubeClient } from '../../src/cluster/kube-client.js';
import { connectionFromEnvironment, kubeconfigConnection } from '../../src/cluster/kube-connection.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';

export function standinClient(api: Pick<KubeApi, 'kubeconfigPath'>): KubeClient {
  return kubeClient(connectionFromEnvironment({ KUBECONFIG: api.kubeconfigPath }, parse));
}

/** kerf's client to a plain HTTP server of a test's own (a proxy, a canned answer), with a token as a kubeconfig gives it. */
export function plainHttpClient(server: string): KubeClient {
  const data = {
    clusters: [{ name: 'test', cluster: { server } }],
    users: [{ name: 'admin', user: { token: 'standin-token' } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin' } }],
    'current-context': 'test',
  };
  return kubeClient(kubeconfigConnection([{ data, dir: '' }]));
}
