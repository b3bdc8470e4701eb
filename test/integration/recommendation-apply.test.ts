// Issue 11 finding 6: how the README creates recommendations. `limits: {cpu: null}` (N4: drop the
// limit) survives `kubectl apply --server-side` and `kubectl create`; client-side `kubectl apply`
// strips nulls before it sends the object, so the removal is silently lost.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';

const run = promisify(execFile);
const RECOMMENDATIONS = join(import.meta.dirname, '../../examples/shop/recommendations/shop.yaml');
const README = join(import.meta.dirname, '../../README.md');
const hasKubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let api: KubeApi;
let home: string;
beforeEach(async () => {
  api = await startKubeApi();
  api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  home = mkdtempSync(join(tmpdir(), 'kerf-kubectl-'));
});
afterEach(async () => {
  await api.close();
  rmSync(home, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => run('kubectl', ['--kubeconfig', api.kubeconfigPath, ...args], { env: { ...process.env, HOME: home } });
const logAgentLimits = () => ((api.store.get('rightsizingrecommendations', 'shop', 'log-agent')?.spec as { containers: { limits: Record<string, unknown> }[] }).containers[0]!.limits);

describe('creating the example recommendations [needs kubectl]', () => {
  it.skipIf(!hasKubectl).each([
    ['apply --server-side', ['apply', '--server-side', '-f', RECOMMENDATIONS]],
    ['create', ['create', '-f', RECOMMENDATIONS]],
  ])('kubectl %s keeps limits: {cpu: null}', async (_how, args) => {
    await kubectl(...args);
    expect(logAgentLimits()).toEqual({ cpu: null, memory: '192Mi' });
  });

  it.skipIf(!hasKubectl)('client-side kubectl apply loses it (why the README says --server-side)', async () => {
    await kubectl('apply', '-f', RECOMMENDATIONS);
    expect(logAgentLimits()).toEqual({ memory: '192Mi' });
  });

  it('the README creates recommendations with kubectl apply --server-side, and says why', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain('kubectl apply --server-side -f examples/shop/recommendations/');
    expect(readme).toMatch(/client-side `kubectl apply` drops/);
  });
});
