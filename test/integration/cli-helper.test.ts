// `kerf-gitops helper` as the Deployment runs it: a real process against the Kubernetes stand-in.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { freePort, until } from '../support/processes.js';

const cli = join(import.meta.dirname, '../../lib/cli.js');
let api: KubeApi | undefined;
let child: ChildProcess | undefined;
let dir = '';

afterEach(async () => {
  child?.kill('SIGKILL');
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startHelper(args: string[], env: Record<string, string>): { exit: Promise<number | null>; stderr: () => string; stdout: () => string } {
  let stdout = '';
  let stderr = '';
  child = spawn('node', [cli, 'helper', ...args], { env: { ...process.env, ...env } });
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
  return { exit, stderr: () => stderr, stdout: () => stdout };
}

describe('kerf-gitops helper', () => {
  it('serves health and readiness, takes the Lease, and hands it back on SIGTERM', async () => {
    api = await startKubeApi();
    api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kerf-system' } });
    const healthPort = await freePort();
    const helper = startHelper(['--no-webhook', '--health-port', String(healthPort)], { KUBECONFIG: api.kubeconfigPath, POD_NAME: 'helper-0', POD_NAMESPACE: 'kerf-system' });
    await until(async () => ((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined), 'readyz');
    expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
    const lease = await until(async () => {
      const found = api?.store.get('leases', 'kerf-system', 'kerf-gitops-helper') as { spec?: { holderIdentity?: string } } | undefined;
      return found?.spec?.holderIdentity === 'helper-0' ? found : undefined;
    }, 'the Lease');
    expect(lease.spec?.holderIdentity).toBe('helper-0');
    child?.kill('SIGTERM');
    expect(await helper.exit).toBe(0);
    const released = api.store.get('leases', 'kerf-system', 'kerf-gitops-helper') as { spec?: { holderIdentity?: string } } | undefined;
    expect(released?.spec?.holderIdentity ?? '').not.toBe('helper-0');
    // JSON lines, one object each.
    for (const line of helper.stdout().trim().split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('--bind-address binds the health listener there; a clean stop (SIGTERM) logs nothing at warn level', async () => {
    api = await startKubeApi();
    api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kerf-system' } });
    const healthPort = await freePort();
    const helper = startHelper(['--no-webhook', '--health-port', String(healthPort), '--bind-address', '127.0.0.2'], { KUBECONFIG: api.kubeconfigPath, POD_NAME: 'helper-0', POD_NAMESPACE: 'kerf-system' });
    await until(async () => ((await fetch(`http://127.0.0.2:${healthPort}/readyz`)).status === 200 ? true : undefined), 'readyz on 127.0.0.2');
    // Not on the other loopback address: the listener is bound to the one asked for, not to every interface.
    await expect(fetch(`http://127.0.0.1:${healthPort}/healthz`)).rejects.toThrow();
    child?.kill('SIGTERM');
    expect(await helper.exit).toBe(0);
    const lines = helper.stdout().trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: string; msg?: string; message?: string });
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });

  it('--bind-address that is not an IP address exits 2', async () => {
    api = await startKubeApi();
    const helper = startHelper(['--no-webhook', '--bind-address', 'everywhere'], { KUBECONFIG: api.kubeconfigPath });
    expect(await helper.exit).toBe(2);
    expect(helper.stderr()).toMatch(/--bind-address must be an IP address/);
  });

  it('a webhook without TLS files exits 2 with one line', async () => {
    api = await startKubeApi();
    const helper = startHelper(['--webhook-port', '9443'], { KUBECONFIG: api.kubeconfigPath });
    expect(await helper.exit).toBe(2);
    expect(helper.stderr().trim().split('\n')).toHaveLength(1);
    expect(helper.stderr()).toMatch(/^kerf-gitops: .*tls/i);
  });

  it('an invalid config file exits 2 naming the key', async () => {
    api = await startKubeApi();
    dir = await mkdtemp(join(tmpdir(), 'kerf-helper-'));
    await writeFile(join(dir, 'config.yaml'), 'pause: true\nunsupportedNodeSelector: []\n');
    const helper = startHelper(['--no-webhook', '--config', join(dir, 'config.yaml')], { KUBECONFIG: api.kubeconfigPath });
    expect(await helper.exit).toBe(2);
    expect(helper.stderr()).toMatch(/unsupportedNodeSelector/);
  });
});
