// `--recommendations cluster` and Helm: a mapped workload is planned from the cluster's
// recommendation; an unmapped one of this repo's releases, told by its live labels, is refused
// naming the release; one of a release the repo does not declare stays another repo's business.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/plan/run-plan.js';
import { fakeClusterSource, wireRecommendation } from '../support/cluster-source.js';

const example = join(import.meta.dirname, '../../examples/helm');
const now = new Date('2026-12-02T10:00:00Z');

const deployment = (namespace: string, name: string, metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace, name, generation: 1, ...metadata },
  spec: { replicas: 2, template: { metadata: {}, spec: { containers: [{ name: 'grafana', image: 'grafana/grafana' }] } } },
  status: { observedGeneration: 1 },
});

async function planFromCluster(deployments: unknown[], recommendations: unknown[]) {
  const cluster = fakeClusterSource({ deployments, recommendations });
  return runPlan({ repo: example, recommendations: ['cluster'], now, fleetPaused: false, cwd: process.cwd(), cluster });
}

describe('Helm workloads with --recommendations cluster', () => {
  const grafana = wireRecommendation('monitoring', 'grafana', { kind: 'Deployment', name: 'grafana' }, [{ name: 'grafana', requests: { cpu: '50m', memory: '128Mi' } }]);

  it.each([
    ['Flux labels', { labels: { 'helm.toolkit.fluxcd.io/name': 'grafana', 'helm.toolkit.fluxcd.io/namespace': 'monitoring' } }],
    ['Helm annotations', { annotations: { 'meta.helm.sh/release-name': 'grafana', 'meta.helm.sh/release-namespace': 'monitoring' }, labels: { 'app.kubernetes.io/managed-by': 'Helm' } }],
  ])('an unmapped workload of a repo release (by %s) is refused, naming the release', async (_, metadata) => {
    const { plan } = await planFromCluster([deployment('monitoring', 'grafana', metadata)], [grafana]);
    expect(plan.errors).toContainEqual(
      expect.objectContaining({ code: 'HelmWorkloadNotMapped', object: 'RightsizingRecommendation monitoring/grafana', message: expect.stringMatching(/Helm release grafana \(HelmRelease monitoring\/grafana in apps\/grafana\/release\.yaml\)/) }),
    );
    expect(plan.decisions).toEqual([]);
  });

  it('an Argo CD tracking id ties a live workload to its Helm Application', async () => {
    const live = deployment('guestbook', 'guestbook-redis', { annotations: { 'argocd.argoproj.io/tracking-id': 'guestbook:apps/Deployment:guestbook/guestbook-redis' } });
    const redis = wireRecommendation('guestbook', 'guestbook-redis', { kind: 'Deployment', name: 'guestbook-redis' }, [{ name: 'redis', requests: { cpu: '50m' } }]);
    const { plan } = await planFromCluster([live], [redis]);
    expect(plan.errors).toEqual([expect.objectContaining({ code: 'HelmWorkloadNotMapped', file: 'argocd/guestbook.yaml', message: expect.stringMatching(/Application argocd\/guestbook.*redis: one of resources/) })]);
  });

  it("a Helm workload of a release this repo does not declare is left out, as any other repo's", async () => {
    const other = deployment('monitoring', 'grafana', { annotations: { 'meta.helm.sh/release-name': 'other-grafana', 'meta.helm.sh/release-namespace': 'monitoring' } });
    const { plan } = await planFromCluster([other], [grafana]);
    expect(plan.errors).toEqual([]);
  });

  it('a mapped workload is planned from the cluster recommendation', async () => {
    const podinfo = wireRecommendation('podinfo', 'podinfo', { kind: 'Deployment', name: 'podinfo' }, [{ name: 'podinfo', requests: { cpu: '60m', memory: '64Mi' }, limits: { memory: '256Mi' } }]);
    const { plan } = await planFromCluster([], [podinfo]);
    expect(plan.decisions).toEqual([expect.objectContaining({ action: 'pull-request', changes: [{ container: 'podinfo', field: 'requests.cpu', from: '100m', to: '60m', file: 'apps/podinfo/release.yaml' }] })]);
  });
});
