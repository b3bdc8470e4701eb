// VPAs as the API serves them, read with the client kerf uses (client-node only puts them there).
import { CustomObjectsApi } from '@kubernetes/client-node';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeClusterSource } from '../../src/cluster/cluster-reader.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { renderPlanTable } from '../../src/plan/plan-table.js';
import { clusterVpas } from '../../src/import/from-vpas.js';
import { InputError } from '../../src/util/input-error.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { failure } from '../standins/kube/expect-status.js';
import { createVpa, ensureNamespace, startKubeApiWithVpa } from './vpa-cluster.js';
import { standinClient } from '../support/kube-client.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/shop');
const NOW = new Date('2026-12-02T10:00:00Z');

let api: KubeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('VPAs from the cluster', () => {
  it('the VPA CRD rejects what the API server would', async () => {
    api = await startKubeApiWithVpa();
    await ensureNamespace(api, 'shop');
    const client = api.kubeConfig().makeApiClient(CustomObjectsApi);
    const body = { apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name: 'x', namespace: 'shop' }, spec: { targetRef: { kind: 'Deployment', name: 'cart' }, updatePolicy: { updateMode: 'Sometimes' } } };
    const status = await failure(client.createNamespacedCustomObject({ group: 'autoscaling.k8s.io', version: 'v1', plural: 'verticalpodautoscalers', namespace: 'shop', body }));
    expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('--recommendations vpa decides on the VPAs in Off mode, with the repo\'s values, and says why the others were skipped', async () => {
    api = await startKubeApiWithVpa();
    await createVpa(api, { name: 'cart', namespace: 'shop', target: { kind: 'Deployment', name: 'cart' }, updateMode: 'Off', recommendations: [{ containerName: 'app', target: { cpu: '250m', memory: '300Mi' }, lowerBound: { cpu: '100m', memory: '200Mi' }, upperBound: { cpu: '1', memory: '1Gi' }, uncappedTarget: { cpu: '250m', memory: '300Mi' } }] });
    await createVpa(api, { name: 'frontend', namespace: 'shop', target: { kind: 'Deployment', name: 'frontend' }, updateMode: 'Auto', recommendations: [{ containerName: 'web', target: { cpu: '50m' } }] });
    await createVpa(api, { name: 'orders', namespace: 'shop', target: { kind: 'Deployment', name: 'orders' }, updateMode: 'Off' });
    // Another team's workload: not this repo's business, so not even listed as skipped.
    await createVpa(api, { name: 'search', namespace: 'catalog', target: { kind: 'Deployment', name: 'search' }, updateMode: 'Auto' });
    const { plan } = await runPlan({ repo: EXAMPLE, recommendations: ['vpa'], now: NOW, fleetPaused: false, cwd: process.cwd(), cluster: kubeClusterSource(standinClient(api)) });
    expect(plan.decisions.map((d) => `${d.target.namespace}/${d.target.name}`)).toEqual(['shop/cart']);
    // cart: requests 500m/512Mi, memory limit 1Gi (ratio 2) → 250m, 300Mi and a 600Mi limit, as VPA's admission controller would set.
    expect(plan.decisions[0]?.changes.map(({ field, from, to }) => ({ field, from, to }))).toEqual([
      { field: 'requests.cpu', from: '500m', to: '250m' },
      { field: 'requests.memory', from: '512Mi', to: '300Mi' },
      { field: 'limits.memory', from: '1Gi', to: '600Mi' },
    ]);
    expect(plan.skipped?.map((skip) => `${skip.target} ${skip.reason}`)).toEqual(['shop/Deployment/frontend UpdatingMode', 'shop/Deployment/orders NoRecommendation']);
    expect(renderPlanTable(plan)).toContain(`
Skipped VPA recommendations (2):
  - UpdatingMode: shop/Deployment/frontend: VerticalPodAutoscaler shop/frontend has updateMode Auto: VPA applies its recommendations itself; kerf takes only VPAs in updateMode Off
  - NoRecommendation: shop/Deployment/orders: VerticalPodAutoscaler shop/orders has no recommendation yet
`);
  });

  it('a cluster without VPA installed stops the run (planned without VPAs, every open PR would look unwanted)', async () => {
    api = await startKubeApi();
    const source = kubeClusterSource(standinClient(api));
    expect(await clusterVpas(source)).toEqual({ error: expect.objectContaining({ code: 'VpaNotInstalled' }) });
    await expect(runPlan({ repo: EXAMPLE, recommendations: ['vpa'], now: NOW, fleetPaused: false, cwd: process.cwd(), cluster: source })).rejects.toThrow(
      new InputError(`the cluster at ${source.server} serves no autoscaling.k8s.io/v1 VerticalPodAutoscalers: install the VPA recommender (its CRDs) first`),
    );
  });
});
