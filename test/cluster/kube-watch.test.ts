// The helper's list+watch caches over the wire, with a proxy in front of the Kubernetes stand-in
// that can cut every connection (as a restarting API server or a load balancer does) and refuse
// requests for a while: a cut watch resumes from the last resourceVersion it saw, bookmarks move
// that on, and a version too old to resume (410 Gone) lists again, deletions included.
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeClusterWatch, type ClusterWatch } from '../../src/cluster/kube-watch.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { standinClient } from '../support/kube-client.js';

interface Proxy {
  kubeconfigPath: string;
  /** The pod watches asked for, by their query. */
  podWatches: URLSearchParams[];
  /** Answer 503 to every request while set. */
  down: boolean;
  cut(): void;
}

let api: KubeApi;
let watch: ClusterWatch | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await watch?.stop();
  watch = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A streaming proxy to the stand-in, with a kubeconfig of its own (the stand-in's, pointed at it). */
async function proxy(): Promise<Proxy> {
  const state: Proxy = { kubeconfigPath: '', podWatches: [], down: false, cut: () => server.closeAllConnections() };
  const target = new URL(api.url);
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', api.url);
    if (url.pathname === '/api/v1/pods' && url.searchParams.get('watch') === 'true') state.podWatches.push(url.searchParams);
    if (state.down) return void response.writeHead(503, { 'content-type': 'application/json' }).end('{"kind":"Status","message":"down for a moment"}');
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  state.kubeconfigPath = `${api.kubeconfigPath}.proxy`;
  writeFileSync(state.kubeconfigPath, readFileSync(api.kubeconfigPath, 'utf8').replace(api.url, `http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  return state;
}

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop' },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});
const podNames = () => watch?.snapshot().pods.map((p) => p.metadata.name).sort();

describe('kubeClusterWatch', () => {
  it('resumes a cut watch from the last resourceVersion, which bookmarks move on', async () => {
    api = await startKubeApi();
    cleanups.push(() => api.close());
    api.store.put(pod('cart-0'));
    const through = await proxy();
    const errors: string[] = [];
    watch = kubeClusterWatch(standinClient(through), { restartDelayMs: 20, onError: (resource, error) => errors.push(`${resource}: ${(error as Error).message}`) });
    await watch.start(() => {});
    expect(podNames()).toEqual(['cart-0']);
    await expect.poll(() => through.podWatches.length).toBe(1);
    expect(through.podWatches[0]?.get('allowWatchBookmarks')).toBe('true');

    // Other kinds change; the pods' watch hears of it only through a bookmark.
    api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const bookmarked = String(api.store.resourceVersion);
    api.sendBookmarks();
    await new Promise((resolve) => setTimeout(resolve, 100));
    through.cut();
    await expect.poll(() => through.podWatches.length).toBe(2);
    expect(through.podWatches[1]?.get('resourceVersion')).toBe(bookmarked);

    api.store.put(pod('cart-1'));
    await expect.poll(podNames).toEqual(['cart-0', 'cart-1']);
    expect(errors).toEqual([]);
  });

  it('lists again when the version it would resume from is gone (410), and drops what was deleted meanwhile', async () => {
    api = await startKubeApi();
    cleanups.push(() => api.close());
    api.store.put(pod('cart-0'));
    api.store.put(pod('cart-1'));
    const through = await proxy();
    const errors: string[] = [];
    let changes = 0;
    watch = kubeClusterWatch(standinClient(through), { restartDelayMs: 50, onError: (resource, error) => errors.push(`${resource}: ${(error as Error).message}`) });
    await watch.start(() => changes++);
    expect(podNames()).toEqual(['cart-0', 'cart-1']);

    through.down = true;
    through.cut();
    await expect.poll(() => errors.some((error) => error.startsWith('pods: ') && error.includes('503'))).toBe(true);
    api.store.delete('pods', 'shop', 'cart-0');
    api.store.put(pod('cart-2'));
    api.store.compact();
    const before = changes;
    through.down = false;

    await expect.poll(podNames, { timeout: 5000 }).toEqual(['cart-1', 'cart-2']);
    expect(changes).toBeGreaterThan(before);
    // The expired version is no failure to report; the refusals and cut connects while the proxy was down are.
    expect(errors.filter((error) => /410|expired|gone/i.test(error))).toEqual([]);
  });

  it('stops cleanly while a list is refused and retried', async () => {
    api = await startKubeApi();
    cleanups.push(() => api.close());
    const through = await proxy();
    through.down = true;
    const errors: unknown[] = [];
    watch = kubeClusterWatch(standinClient(through), { restartDelayMs: 10_000, onError: (_, error) => errors.push(error) });
    await watch.start(() => {});
    expect(errors.length).toBeGreaterThanOrEqual(10); // every kind's first list, refused
    const stopping = Date.now();
    await watch.stop();
    watch = undefined;
    expect(Date.now() - stopping).toBeLessThan(1000);
  });
});
