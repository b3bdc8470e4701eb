import { CustomObjectsApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { container, deployment } from '../standins/kube/builders.js';
import { collectingLogger, eventually, policy, recommendation, startHarness } from '../helper/cluster-harness.js';
import type { Harness, LogLine } from '../helper/cluster-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  h.api.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
});
afterEach(async () => h.close());

const lease = () => h.api.store.get('leases.coordination.k8s.io', 'kerf-system', 'kerf-gitops-helper')?.spec as { holderIdentity?: string; leaseTransitions?: number } | undefined;
const submitted = (lines: LogLine[]) => lines.filter((line) => line.message === 'resize submitted').length;

describe('helper leader election through one Lease', () => {
  it('two helpers, one Lease: only the holder acts; when it stops, the other takes over', async () => {
    await h.create(deployment('cart', { namespace: 'shop', replicas: 2, containers: [container({ requests: { cpu: '500m', memory: '512Mi' } })] }) as KubernetesObject);
    await h.api.store.reconcileWorkloads();
    await h.api.store.reconcileWorkloads();
    const logsA: LogLine[] = [];
    const logsB: LogLine[] = [];
    const a = await h.helper({ identity: 'helper-a', logger: collectingLogger(logsA) });
    await eventually(() => lease()?.holderIdentity === 'helper-a');
    const b = await h.helper({ identity: 'helper-b', logger: collectingLogger(logsB) });

    await h.create(policy());
    await h.create(recommendation({ kind: 'Deployment', name: 'cart' }, [{ name: 'app', requests: { cpu: '250m' } }]));
    await eventually(() => h.recommendationStatus('cart').phase === 'Applied');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(submitted(logsA)).toBe(2);
    expect(submitted(logsB)).toBe(0);
    expect(b.elector.isLeader()).toBe(false);
    expect(lease()?.holderIdentity).toBe('helper-a');

    await a.stop();
    await eventually(() => lease()?.holderIdentity === 'helper-b');
    expect(lease()?.leaseTransitions).toBe(1);
    await h.api.kubeConfig().makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
      { group: 'kerf.getkerf.dev', version: 'v1alpha1', namespace: 'shop', plural: 'rightsizingrecommendations', name: 'cart', body: [{ op: 'replace', path: '/spec/containers/0/requests/cpu', value: '300m' }] },
    );
    await eventually(() => submitted(logsB) === 2);
    expect(submitted(logsA)).toBe(2);
  });

  it('a holder that stops renewing (no release) is waited out for its lease duration, then replaced', async () => {
    const heldAt = new Date();
    await h.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kerf-gitops-helper', namespace: 'kerf-system' },
      spec: { holderIdentity: 'crashed-helper', leaseDurationSeconds: 1, renewTime: heldAt.toISOString(), acquireTime: heldAt.toISOString(), leaseTransitions: 4 },
    } as KubernetesObject);
    const helper = await h.helper({ identity: 'helper-a' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(helper.elector.isLeader()).toBe(false);
    expect(lease()?.holderIdentity).toBe('crashed-helper');
    await eventually(() => lease()?.holderIdentity === 'helper-a', 5_000);
    expect(Date.now() - heldAt.getTime()).toBeGreaterThanOrEqual(1000);
    expect(lease()?.leaseTransitions).toBe(5);
  });
});
