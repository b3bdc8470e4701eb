// kerf's own Kubernetes client, over the wire: each way the API server refuses a call becomes a
// ClusterError with the code, causes and retry advice the helper and the reconciler act on. Run
// against the Kubernetes stand-in, which answers as kube-apiserver does, and (for a header that
// disagrees with its Status) against a plain HTTP server.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ClusterError } from '../../src/cluster/cluster-port.js';
import { kubeClusterPort } from '../../src/cluster/kube-cluster-port.js';
import { plainHttpClient, standinClient } from '../support/kube-client.js';
import { pod, podDisruptionBudget } from '../standins/kube/builders.js';
import { PDB_VIOLATION } from '../standins/kube/eviction.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';

let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi();
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
  const client = standinClient(api);
  for (const name of ['kerf-system', 'shop']) await client.call('create namespace', 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
});

/** A pod created as a controller creates it: scheduled and run by the stand-in's kubelet, so a budget counts it healthy. */
async function runningPod(name: string, labels: Record<string, string>): Promise<void> {
  await standinClient(api).call('create pod', 'POST', '/api/v1/namespaces/shop/pods', pod(name, { namespace: 'shop', labels }));
}
afterAll(async () => api.close());

async function refusal(call: Promise<unknown>): Promise<ClusterError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ClusterError);
  return error as ClusterError;
}

const secret = (name: string, resourceVersion?: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'kerf-system', ...(resourceVersion && { resourceVersion }) },
  data: { key: Buffer.from('value').toString('base64') },
});

describe('kube-client refusals as ClusterErrors', () => {
  it('404 is NotFound', async () => {
    const error = await refusal(standinClient(api).get('/api/v1/namespaces/kerf-system/secrets/absent'));
    expect(error).toMatchObject({ code: 'NotFound', status: 404 });
  });

  it('a 409 splits on the Status reason: AlreadyExists for a create, Conflict for a stale resourceVersion', async () => {
    const client = standinClient(api);
    const path = '/api/v1/namespaces/kerf-system/secrets';
    const created = await client.call<{ metadata: { resourceVersion: string } }>('create', 'POST', path, secret('twice'));
    expect(await refusal(client.call('create again', 'POST', path, secret('twice')))).toMatchObject({ code: 'AlreadyExists', status: 409 });
    await client.call('update', 'PUT', `${path}/twice`, secret('twice', created.metadata.resourceVersion));
    const stale = await refusal(client.call('update from the old version', 'PUT', `${path}/twice`, secret('twice', created.metadata.resourceVersion)));
    expect(stale).toMatchObject({ code: 'Conflict', status: 409 });
  });

  it('an eviction a PodDisruptionBudget refuses is TooManyRequests with the DisruptionBudget cause', async () => {
    await runningPod('guarded-0', { app: 'guarded' });
    api.store.put(podDisruptionBudget('guard', { app: 'guarded' }, { minAvailable: 1 }, 'shop'));
    const error = await refusal(kubeClusterPort(standinClient(api)).evictPod('shop', 'guarded-0'));
    expect(error).toMatchObject({ code: 'TooManyRequests', status: 429 });
    expect(error.details).toMatchObject({ causes: [{ reason: 'DisruptionBudget' }], serverMessage: PDB_VIOLATION });
  });

  it('a throttled eviction (API Priority and Fairness) is TooManyRequests with no cause and the Retry-After', async () => {
    await runningPod('busy-0', { app: 'busy' });
    api.throttleEvictions(1, { retryAfterSeconds: 3 });
    const port = kubeClusterPort(standinClient(api));
    const error = await refusal(port.evictPod('shop', 'busy-0'));
    expect(error).toMatchObject({ code: 'TooManyRequests', status: 429 });
    expect(error.details?.causes ?? []).toEqual([]);
    expect(error.details?.retryAfterSeconds).toBe(3);
    await port.evictPod('shop', 'busy-0');
  });

  it('the Retry-After header wins over the Status when they differ (APF sets the header)', async () => {
    const server = createServer((_request, response) => {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'slow down', details: { retryAfterSeconds: 3 } });
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const client = plainHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const error = await refusal(client.get('/api/v1/pods'));
    expect(error).toMatchObject({ code: 'TooManyRequests', status: 429, details: { retryAfterSeconds: 7, serverMessage: 'slow down' } });
  });
});
