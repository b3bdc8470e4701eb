// The one status writer over kerf's Kubernetes client and the stand-in: conditional on the
// resourceVersion it read, refused when the stage is not the writer's, an Event only on a move.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeClusterPort } from '../../src/cluster/kube-cluster-port.js';
import type { ClusterPort } from '../../src/cluster/cluster-port.js';
import { writeStatus } from '../../src/lifecycle/status-writer.js';
import type { KubeObject } from '../../src/cluster/objects.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { standinClient } from '../support/kube-client.js';

let api: KubeApi;
let port: ClusterPort;
const NOW = new Date('2026-12-03T10:00:00Z');
const workload: KubeObject = { kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'u-1' } };

beforeAll(async () => {
  api = await startKubeApi();
  port = kubeClusterPort(standinClient(api));
});
afterAll(async () => api.close());

function stored(name: string, status: Record<string, unknown>) {
  return api.store.put({
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingRecommendation',
    metadata: { name, namespace: 'default' },
    spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, containers: [{ name: 'app', requests: { cpu: '100m' } }] },
    status,
  });
}
const statusOf = (name: string) => api.store.get('rightsizingrecommendations', 'default', name)?.status;
const eventCount = () => api.store.list('events.events.k8s.io', 'default').length;

describe('writeStatus', () => {
  it('a status that moved since it was read (stale resourceVersion) is not overwritten: conflict', async () => {
    const read = stored('stale', { phase: 'Pending', strategy: 'rollout', reason: 'HPACoordination' });
    api.store.put({ ...read, status: { phase: 'Proposed', strategy: 'rollout', pullRequest: { number: 7, url: 'u' } } });
    const outcome = await writeStatus(port, { writer: 'reconciler', namespace: 'default', name: 'stale', resourceVersion: read.metadata.resourceVersion!, current: read.status as Record<string, unknown>, status: { phase: 'Blocked', strategy: 'rollout', reason: 'FreezeWindow' } }, 'test', NOW);
    expect(outcome.kind).toBe('conflict');
    expect(statusOf('stale')).toMatchObject({ phase: 'Proposed' });
  });

  it('the current resourceVersion is written, cleared fields removed, an Event recorded for the move; the answer carries the new version', async () => {
    const read = stored('fresh', { phase: 'Applied', strategy: 'in-place', appliedAt: '2026-12-03T09:00:00Z', health: { state: 'Watching', until: '2026-12-03T09:30:00Z' } });
    const before = eventCount();
    const outcome = await writeStatus(port, {
      writer: 'helper', namespace: 'default', name: 'fresh', resourceVersion: read.metadata.resourceVersion!, current: read.status as Record<string, unknown>,
      status: { phase: 'Pending', strategy: 'rollout', reason: 'Fallback' },
      event: { action: 'Fallback', reason: 'Fallback', note: 'refused' }, workload,
    }, 'test', NOW);
    expect(outcome).toMatchObject({ kind: 'written', resourceVersion: api.store.get('rightsizingrecommendations', 'default', 'fresh')?.metadata.resourceVersion });
    expect(statusOf('fresh')).toEqual({ phase: 'Pending', strategy: 'rollout', reason: 'Fallback' });
    expect(eventCount()).toBe(before + 1);
  });

  it("a stage that is not the writer's is not written at all", async () => {
    const read = stored('owned', { phase: 'Proposed', strategy: 'rollout', reason: 'HPACoordination', pullRequest: { number: 7, url: 'u' } });
    const version = api.store.resourceVersion;
    const outcome = await writeStatus(port, { writer: 'helper', namespace: 'default', name: 'owned', resourceVersion: read.metadata.resourceVersion!, current: read.status as Record<string, unknown>, status: { phase: 'Pending', strategy: 'rollout', reason: 'HPACoordination' }, event: { action: 'Proposed', reason: 'x', note: 'x' }, workload }, 'test', NOW);
    expect(outcome).toMatchObject({ kind: 'not-owner', why: expect.stringContaining("is the reconciler's") });
    expect(api.store.resourceVersion).toBe(version);
  });
});
