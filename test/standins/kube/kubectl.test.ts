import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container, pod } from './builders.js';
import { startKubeApi } from './start-kube-api.js';
import type { KubeApi } from './start-kube-api.js';

const run = promisify(execFile);

function kubectlAvailable(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const hasKubectl = kubectlAvailable();

describe('kubectl as a second client', () => {
  let api: KubeApi;
  let directory: string;
  const kubectl = async (...args: string[]): Promise<string> => (await run('kubectl', ['--kubeconfig', api.kubeconfigPath, ...args], { env: { ...process.env, HOME: directory } })).stdout;

  beforeAll(async () => {
    api = await startKubeApi();
    directory = mkdtempSync(join(tmpdir(), 'kerf-kubectl-'));
    api.nodes.addNode({ name: 'node-a', capacity: { cpu: '4', memory: '8Gi' } });
  });
  afterAll(async () => {
    await api.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it.skipIf(!hasKubectl)('reads pods with get -o json and a label selector [needs kubectl]', async () => {
    api.store.put(pod('listed', { labels: { app: 'listed' } }));
    api.store.put(pod('other', { labels: { app: 'other' } }));
    const list = JSON.parse(await kubectl('get', 'pods', '-l', 'app=listed', '-o', 'json')) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('List');
    expect(list.items.map((item) => item.metadata.name)).toEqual(['listed']);
  });

  it.skipIf(!hasKubectl)('creates and then updates a Deployment with apply -f [needs kubectl]', async () => {
    const manifest = (replicas: number, cpu: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
        - name: app
          image: app:1
          resources:
            requests: {cpu: ${cpu}, memory: 64Mi}
`;
    const file = join(directory, 'deployment.yaml');
    writeFileSync(file, manifest(1, '100m'));
    expect(await kubectl('apply', '-f', file)).toContain('deployment.apps/applied created');
    writeFileSync(file, manifest(2, '200m'));
    expect(await kubectl('apply', '-f', file)).toContain('deployment.apps/applied configured');
    const stored = api.store.get('deployments.apps', 'default', 'applied') as { metadata: { generation: number; annotations: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: { resources: unknown }[] } } } };
    expect(stored.spec.replicas).toBe(2);
    expect(stored.spec.template.spec.containers[0]?.resources).toEqual({ requests: { cpu: '200m', memory: '64Mi' } });
    expect(stored.metadata.generation).toBe(2);
    expect(stored.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('200m');
  });

  it.skipIf(!hasKubectl)('resizes a pod with patch --subresource=resize, which the kubelet simulator then applies [needs kubectl]', async () => {
    api.store.put(pod('resized', { nodeName: 'node-a', containers: [container({ requests: { cpu: '100m', memory: '128Mi' } })] }));
    api.nodes.startPod('default', 'resized');
    const output = await kubectl('patch', 'pod', 'resized', '--subresource=resize', '-p', '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m"}}}]}}');
    expect(output).toContain('pod/resized patched');
    api.nodes.settle();
    const resized = JSON.parse(await kubectl('get', 'pod', 'resized', '-o', 'json')) as { metadata: { generation: number }; status: { observedGeneration: number; containerStatuses: { resources: { requests: Record<string, string> } }[] } };
    expect(resized.status.containerStatuses[0]?.resources.requests).toEqual({ cpu: '300m', memory: '128Mi' });
    expect(resized.status.observedGeneration).toBe(resized.metadata.generation);
  });

  it.skipIf(!hasKubectl)('prints the apiserver error for an invalid resize [needs kubectl]', async () => {
    api.store.put(pod('guaranteed', { nodeName: 'node-a', containers: [container({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })] }));
    const error = await kubectl('patch', 'pod', 'guaranteed', '--subresource=resize', '-p', '{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2"}}}]}}').catch((failure: { stderr: string }) => failure.stderr);
    expect(error).toContain('Pod QOS Class may not change as a result of resizing');
  });
});
