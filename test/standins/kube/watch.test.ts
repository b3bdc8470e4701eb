import { CoreV1Api, makeInformer, Watch } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pod } from './builders.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

interface Received {
  type: string;
  name?: string;
  resourceVersion?: string;
  code?: number;
  reason?: string;
  annotations?: Record<string, string>;
}

let api: KubeApi;
let core: CoreV1Api;

beforeAll(async () => {
  api = await startKubeApi({ watchHistory: 50 });
  core = api.kubeConfig().makeApiClient(CoreV1Api);
});
afterAll(async () => api.close());

/** Opens a client-node watch and collects its events until `until` holds. */
async function watchUntil(path: string, query: Record<string, string>, until: (events: Received[]) => boolean, act: () => Promise<void> = async () => undefined): Promise<{ events: Received[]; error: unknown }> {
  const events: Received[] = [];
  let finish!: (error: unknown) => void;
  const finished = new Promise<unknown>((resolve) => (finish = resolve));
  const controller = await new Watch(api.kubeConfig()).watch(
    path,
    query,
    (type, object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string }) => {
      events.push({ type, name: object.metadata?.name, resourceVersion: object.metadata?.resourceVersion, code: object.code, reason: object.reason, annotations: object.metadata?.annotations });
      if (until(events)) finish(null);
    },
    (error) => finish(error),
  );
  await act();
  const error = await Promise.race([finished, new Promise((resolve) => setTimeout(() => resolve(new Error(`timed out with ${JSON.stringify(events)}`)), 3000))]);
  controller.abort();
  return { events, error };
}

describe('watch over the wire', () => {
  it('streams ADDED, MODIFIED and DELETED with the new resourceVersions, then a BOOKMARK on request', async () => {
    const start = String(api.store.resourceVersion);
    const { events, error } = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: start, allowWatchBookmarks: 'true' }, (seen) => seen.some((event) => event.type === 'DELETED'), async () => {
      await core.createNamespacedPod({ namespace: 'default', body: pod('w1') as V1Pod });
      await core.patchNamespacedPod({ name: 'w1', namespace: 'default', body: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] });
      await core.deleteNamespacedPod({ name: 'w1', namespace: 'default' });
    });
    expect(error).toBeNull();
    expect(events.map((event) => `${event.type} ${event.name ?? ''}`)).toEqual(['BOOKMARK ', 'ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    expect(events[0]?.resourceVersion).toBe(start);
    const versions = events.slice(1).map((event) => Number(event.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(versions[0]).toBeGreaterThan(Number(start));

    const bookmark = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: String(api.store.resourceVersion), allowWatchBookmarks: 'true' }, (seen) => seen.length === 2, async () => api.sendBookmarks());
    expect(bookmark.events.map((event) => event.type)).toEqual(['BOOKMARK', 'BOOKMARK']);
  });

  it('resumes from a resourceVersion by replaying the history after it', async () => {
    api.store.put(pod('r1'));
    const after = String(api.store.resourceVersion);
    api.store.put(pod('r2'));
    api.store.put({ ...pod('r1'), metadata: { ...pod('r1').metadata, labels: { app: 'r1', v: '2' } } });
    const { events } = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: after }, (seen) => seen.length === 2);
    expect(events.map((event) => `${event.type} ${event.name}`)).toEqual(['ADDED r2', 'MODIFIED r1']);
  });

  it('starts with synthetic ADDED events for the current state when no resourceVersion is given', async () => {
    api.store.put(pod('s1', { namespace: 'synthetic' }));
    api.store.put(pod('s2', { namespace: 'synthetic' }));
    const { events } = await watchUntil('/api/v1/namespaces/synthetic/pods', { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' }, (seen) => seen.length === 3);
    expect(events.map((event) => `${event.type} ${event.name ?? ''}`)).toEqual(['ADDED s1', 'ADDED s2', 'BOOKMARK ']);
    expect(events[2]?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('reports an object entering a label selector as ADDED and leaving it as DELETED', async () => {
    api.store.put(pod('moving', { labels: { app: 'moving', stage: 'old' } }));
    const { events } = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: String(api.store.resourceVersion), labelSelector: 'stage=new' }, (seen) => seen.length === 2, async () => {
      api.store.put(pod('moving', { labels: { app: 'moving', stage: 'new' } }));
      api.store.put(pod('moving', { labels: { app: 'moving', stage: 'gone' } }));
    });
    expect(events.map((event) => `${event.type} ${event.name}`)).toEqual(['ADDED moving', 'DELETED moving']);
  });

  it('answers a resourceVersion older than the kept history with an ERROR event carrying 410 Expired', async () => {
    const old = String(api.store.resourceVersion);
    api.store.put(pod('expiring'));
    api.store.compact();
    const { events, error } = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: old }, (seen) => seen.length === 1);
    expect(error).toBeNull();
    expect(events).toEqual([expect.objectContaining({ type: 'ERROR', code: 410, reason: 'Expired' })]);

    for (let index = 0; index < 60; index++) api.store.put({ ...pod('churn'), metadata: { ...pod('churn').metadata, annotations: { n: String(index) } } });
    const trimmed = await watchUntil('/api/v1/namespaces/default/pods', { resourceVersion: String(api.store.resourceVersion - 55) }, (seen) => seen.length === 1);
    expect(trimmed.events[0]).toMatchObject({ type: 'ERROR', code: 410 });
  });

  it('lets a client-node informer relist after its resourceVersion expired', async () => {
    api.store.put(pod('known', { namespace: 'informed' }));
    const informer = makeInformer(api.kubeConfig(), '/api/v1/namespaces/informed/pods', () => core.listNamespacedPod({ namespace: 'informed' }));
    const added: string[] = [];
    informer.on('add', (object) => added.push(object.metadata!.name!));
    await informer.start();
    await expect.poll(() => added).toEqual(['known']);
    api.store.put(pod('live', { namespace: 'informed' }));
    await expect.poll(() => added).toEqual(['known', 'live']);
    await informer.stop();

    api.store.put(pod('missed', { namespace: 'informed' }));
    api.store.compact();
    await informer.start();
    await expect.poll(() => informer.list('informed').map((item) => item.metadata?.name).sort()).toEqual(['known', 'live', 'missed']);
    await informer.stop();
  });
});
