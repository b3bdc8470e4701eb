// How kerf reaches the API server, over the wire to the Kubernetes stand-in: the service account
// over TLS with its CA and a token that rotates, KUBECONFIG files merged as kubectl merges them, and
// an exec login signed by client-node. A recording proxy in front of the stand-in sees each request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ClusterError } from '../../src/cluster/cluster-port.js';
import { kubeClient } from '../../src/cluster/kube-client.js';
import { clusterConfigProblem, connectionFromEnvironment, KubeconfigError } from '../../src/cluster/kube-connection.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { createTestCertificate } from '../standins/kube/test-certificate.js';

let api: KubeApi;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kerf-connection-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A proxy to the stand-in (HTTPS with `tls`) that keeps every request's headers; its URL. */
async function recordingProxy(seen: IncomingHttpHeaders[], tls?: { cert: string; key: string }): Promise<string> {
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    seen.push(request.headers);
    void fetch(new URL(request.url ?? '/', api.url)).then(async (answer) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()));
  };
  const server = tls ? createHttpsServer(tls, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  return `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function standin(): Promise<void> {
  api = await startKubeApi();
  cleanups.push(() => api.close());
  api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
}

const namespaces = async (env: NodeJS.ProcessEnv, root?: string) =>
  ((await kubeClient(connectionFromEnvironment(env, parse, root)).get<{ items: { metadata: { name: string } }[] }>('/api/v1/namespaces')).items).map((ns) => ns.metadata.name);

describe('in the cluster (the service account)', () => {
  it('trusts only its CA and sends the token as it is now, re-read as the kubelet rotates it', async () => {
    await standin();
    const certificate = createTestCertificate();
    const seen: IncomingHttpHeaders[] = [];
    const port = new URL(await recordingProxy(seen, certificate)).port;
    const root = tempDir();
    writeFileSync(join(root, 'ca.crt'), certificate.cert);
    writeFileSync(join(root, 'token'), 'first-token\n');
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port, HOME: root };
    expect(clusterConfigProblem(env, root)).toBeUndefined();
    const client = kubeClient(connectionFromEnvironment(env, parse, root));
    expect(client.server).toBe(`https://127.0.0.1:${port}`);
    await client.get('/api/v1/namespaces');
    writeFileSync(join(root, 'token'), 'rotated-token\n');
    await client.get('/api/v1/namespaces');
    expect(seen.map((headers) => headers.authorization)).toEqual(['Bearer first-token', 'Bearer rotated-token']);

    writeFileSync(join(root, 'ca.crt'), createTestCertificate().cert);
    const untrusted = kubeClient(connectionFromEnvironment(env, parse, root));
    await expect(untrusted.get('/api/v1/namespaces')).rejects.toThrow(ClusterError);
    expect(seen).toHaveLength(2);
  });

  it('without a service account or a kubeconfig there is no cluster, and the loader says so', () => {
    const root = tempDir();
    expect(() => connectionFromEnvironment({ HOME: root }, parse, root)).toThrow(new KubeconfigError('no cluster configured: set KUBECONFIG or run in a cluster'));
  });
});

describe('KUBECONFIG', () => {
  it('merges its files as kubectl does: the first to set the current context or a name wins, paths relative to their file', async () => {
    await standin();
    const seen: IncomingHttpHeaders[] = [];
    const proxy = await recordingProxy(seen);
    const [first, second] = [tempDir(), tempDir()];
    writeFileSync(join(first, 'token'), 'from-the-file');
    writeFileSync(
      join(first, 'config'),
      stringify({ 'current-context': 'ops', contexts: [{ name: 'ops', context: { cluster: 'prod', user: 'robot' } }], users: [{ name: 'robot', user: { tokenFile: 'token', as: 'kerf' } }] }),
    );
    writeFileSync(
      join(second, 'config'),
      stringify({
        'current-context': 'other',
        contexts: [{ name: 'ops', context: { cluster: 'nowhere', user: 'nobody' } }],
        clusters: [{ name: 'prod', cluster: { server: `${proxy}/` } }],
        users: [{ name: 'robot', user: { token: 'not-this-one' } }],
      }),
    );
    const env = { KUBECONFIG: [join(first, 'config'), join(second, 'config')].join(delimiter) };
    expect(await namespaces(env)).toContain('shop');
    expect(seen[0]).toMatchObject({ authorization: 'Bearer from-the-file', 'impersonate-user': 'kerf' });
  });

  it('leaves an exec login to client-node, which runs the plugin and signs the request', async () => {
    await standin();
    const seen: IncomingHttpHeaders[] = [];
    const proxy = await recordingProxy(seen);
    const dir = tempDir();
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-the-plugin' } };
    writeFileSync(
      join(dir, 'config'),
      stringify({
        'current-context': 'cloud',
        contexts: [{ name: 'cloud', context: { cluster: 'cloud', user: 'sso' } }],
        clusters: [{ name: 'cloud', cluster: { server: proxy, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'sso', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `console.log(${JSON.stringify(JSON.stringify(credential))})`], interactiveMode: 'Never' } } }],
      }),
    );
    expect(await namespaces({ KUBECONFIG: join(dir, 'config') })).toContain('shop');
    expect(seen[0]?.authorization).toBe('Bearer from-the-plugin');
  });

  it.each([
    ['no current-context', { contexts: [] }, /no current-context/],
    ['a current-context that is not there', { 'current-context': 'gone' }, /current-context gone is not among its contexts/],
    ['a context whose cluster has no server', { 'current-context': 'c', contexts: [{ name: 'c', context: { cluster: 'x' } }], clusters: [{ name: 'x', cluster: {} }] }, /names no cluster with a server/],
  ])('refuses a kubeconfig with %s', (_, data, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config'), stringify(data));
    expect(() => connectionFromEnvironment({ KUBECONFIG: join(dir, 'config') }, parse)).toThrow(message);
  });
});
