// `kerf-gitops status` against the Kubernetes stand-in: credentials from KUBECONFIG, a table and
// the JSON rows; an unreachable cluster is one line and exit 1.
import { writeFileSync } from 'node:fs';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { statusRows } from '../../src/reconcile/status-command.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { wireRecommendation } from '../support/cluster-source.js';

let api: KubeApi;
const kubeconfig = process.env.KUBECONFIG;

beforeAll(async () => {
  api = await startKubeApi();
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  const container = [{ name: 'app', requests: { cpu: '250m' } }];
  // Stored with the statuses the reconciler and the helper write.
  const put = (object: ReturnType<typeof wireRecommendation>) => api.store.put(object as Parameters<KubeApi['store']['put']>[0]);
  put(wireRecommendation('shop', 'cart', { kind: 'Deployment', name: 'cart' }, container, {
    phase: 'Applied',
    strategy: 'in-place',
    configuredStrategy: 'in-place',
    appliedAt: '2026-12-02T09:50:00Z',
    health: { state: 'Watching', until: '2026-12-02T10:20:00Z' },
  }));
  put(wireRecommendation('shop', 'checkout', { kind: 'Deployment', name: 'checkout' }, container, {
    phase: 'RolledBack',
    strategy: 'rollout',
    appliedAt: '2026-12-02T09:00:00Z',
    pullRequest: { number: 3, url: 'https://github.example/acme/shop/pull/3' },
    rollbackPullRequest: { number: 7, url: 'https://github.example/acme/shop/pull/7' },
    health: { state: 'Breached', until: '2026-12-02T09:30:00Z', breach: 'container app of pod checkout-1 was OOMKilled' },
  }));
  put(wireRecommendation('shop', 'reports', { kind: 'Deployment', name: 'reports' }, container, {
    phase: 'Deferred',
    strategy: 'deferred',
    reason: 'OutsideMaintenanceWindow',
    nextWindow: '2026-12-05T00:00:00.000Z',
    pullRequest: { number: 4, url: 'https://github.example/acme/shop/pull/4' },
  }));
});
afterAll(() => api.close());
afterEach(() => {
  process.env.KUBECONFIG = kubeconfig;
  vi.restoreAllMocks();
});

async function status(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const code = await main(['status', ...args], process.env);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

describe('kerf-gitops status', () => {
  it('prints phase, strategy, reason, PR, applied at and health from the cluster (KUBECONFIG)', async () => {
    process.env.KUBECONFIG = api.kubeconfigPath;
    const { code, stdout } = await status(['--now', '2026-12-02T10:00:00Z']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Status at 2026-12-02T10:00:00.000Z');
    expect(lines[2]).toMatch(/^RECOMMENDATION\s+TARGET\s+PHASE\s+STRATEGY\s+REASON\s+NEXT WINDOW\s+PR\s+APPLIED AT\s+HEALTH$/);
    expect(lines.slice(3).map((line) => line.split(/\s{2,}/))).toEqual([
      ['shop/cart', 'Deployment/cart', 'Applied', 'in-place', '-', '-', '-', '2026-12-02T09:50:00Z', 'watching until 2026-12-02T10:20:00Z'],
      ['shop/checkout', 'Deployment/checkout', 'RolledBack', 'rollout', '-', '-', '#3, rollback #7', '2026-12-02T09:00:00Z', 'Breached: container app of pod checkout-1 was OOMKilled'],
      ['shop/reports', 'Deployment/reports', 'Deferred', 'deferred', 'OutsideMaintenanceWindow', '2026-12-05T00:00:00.000Z', '#4', '-', '-'],
    ]);
  });

  it('--output json: one row per recommendation; a watch whose time is up reads Healthy', async () => {
    process.env.KUBECONFIG = api.kubeconfigPath;
    const { code, stdout } = await status(['--now', '2026-12-02T10:30:00Z', '--output', 'json']);
    expect(code).toBe(0);
    const { now, recommendations } = JSON.parse(stdout);
    expect(now).toBe('2026-12-02T10:30:00.000Z');
    expect(recommendations[0]).toEqual({
      namespace: 'shop',
      name: 'cart',
      target: 'Deployment/cart',
      phase: 'Applied',
      strategy: 'in-place',
      reason: null,
      nextWindow: null,
      pullRequest: null,
      rollbackPullRequest: null,
      appliedAt: '2026-12-02T09:50:00Z',
      health: { state: 'Healthy', until: '2026-12-02T10:20:00Z' },
    });
    expect(recommendations.map((r: { name: string }) => r.name)).toEqual(['cart', 'checkout', 'reports']);
  });

  it('an unreachable cluster is one line naming it, exit 1', async () => {
    const dead = `${api.kubeconfigPath}.dead`;
    writeFileSync(dead, `apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "http://127.0.0.1:1", insecure-skip-tls-verify: true}}]\nusers: [{name: x, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\ncurrent-context: x\n`);
    process.env.KUBECONFIG = dead;
    const { code, stdout, stderr } = await status([]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^kerf-gitops: cannot read the cluster at http:\/\/127\.0\.0\.1:1: .+\n$/);
    expect(stderr.split('\n')).toHaveLength(2);
  });

  it('statusRows sorts by namespace and name and leaves a recommendation without status empty', () => {
    const rows = statusRows([wireRecommendation('b', 'x', { kind: 'StatefulSet', name: 'db' }, []), wireRecommendation('a', 'y', { kind: 'Deployment', name: 'web' }, [])], new Date());
    expect(rows.map((row) => `${row.namespace}/${row.name} ${row.target} ${row.phase} ${row.health}`)).toEqual(['a/y Deployment/web null null', 'b/x StatefulSet/db null null']);
  });
});
