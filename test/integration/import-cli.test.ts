// The built CLI with VPA and krr as a team runs them: `import` writing files into a Git repo
// (a second run commits nothing), and `reconcile --recommendations vpa` opening the PR from the
// VPAs in the Kubernetes stand-in, through the GitHub stand-in and a bare git remote.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { runGit } from '../standins/git/run-git.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';
import { hasKubectl } from '../manifests/fixtures/kustomize/harness.js';
import { EXAMPLE, OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { createVpa, startKubeApiWithVpa } from '../import/vpa-cluster.js';

const cli = join(import.meta.dirname, '../../lib/cli.js');
const KRR = join(import.meta.dirname, '../import/fixtures/krr-result.json');
const run = promisify(execFile);

async function kerf(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', KERF_PAUSE: '' };
  try {
    const { stdout, stderr } = await run('node', [cli, ...args], { env: { ...base, ...env }, ...(cwd && { cwd }) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A copy of the example as a Git repo of its own, where an import's files are committed. */
let work: string;
let repo: string;
/** Started by the tests that need them. */
let api: KubeApi | undefined;
let git: GitServer | undefined;
let h: Harness | undefined;

/** Commits everything and returns what `git status` still shows (nothing, when all went in). */
async function commitAll(message: string): Promise<string> {
  await runGit(['add', '.'], { cwd: repo });
  await runGit(['-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '--quiet', '-m', message], { cwd: repo });
  return runGit(['status', '--porcelain'], { cwd: repo });
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'kerf-import-'));
  repo = join(work, 'shop');
  await cp(EXAMPLE, repo, { recursive: true });
  await runGit(['init', '--quiet', '-b', 'main'], { cwd: repo });
  await commitAll('manifests');
});
afterEach(async () => {
  await Promise.all([api?.close(), h?.close()]);
  await git?.close();
  [api, h, git] = [undefined, undefined, undefined];
  await rm(work, { recursive: true, force: true });
});

const CART_VPA = {
  name: 'cart',
  namespace: 'shop',
  target: { kind: 'Deployment', name: 'cart' },
  updateMode: 'Off',
  // VPA's recommender writes memory in bytes or k, and lists containers in no stable order.
  recommendations: [{ containerName: 'app', target: { cpu: '251m', memory: '314572800' }, lowerBound: { cpu: '120m', memory: '262144k' }, upperBound: { cpu: '1200m', memory: '1Gi' }, uncappedTarget: { cpu: '251m', memory: '314572800' } }],
};

describe('kerf-gitops import', () => {
  it('--help shows the import usage; a missing source is a usage error', async () => {
    const help = await kerf(['import', 'vpa', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: kerf-gitops import vpa [--from-cluster | --file PATH…] [options]');
    const missing = await kerf(['import', 'vpa', '--repo', repo]);
    expect(missing).toMatchObject({ code: 2, stderr: 'kerf-gitops: import vpa needs either --from-cluster or --file PATH\n' });
    const unknown = await kerf(['import', 'goldilocks']);
    expect(unknown.code).toBe(2);
    // A file without VPAs stops the import rather than emptying the folder.
    const wrong = await kerf(['import', 'vpa', '--file', KRR, '--repo', repo]);
    expect(wrong).toMatchObject({ code: 2, stderr: `kerf-gitops: no autoscaling.k8s.io VerticalPodAutoscaler in ${KRR}\n` });
    const broken = join(work, 'broken.yaml');
    await writeFile(broken, 'apiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nspec: {targetRef: [\n');
    const unparsable = await kerf(['import', 'vpa', '--file', broken, '--repo', repo]);
    expect(unparsable.code).toBe(2);
    expect(unparsable.stderr).toMatch(new RegExp(`^kerf-gitops: ${broken.replace(/[.]/g, '\\.')}:\\d+: Flow sequence`));
  });

  it('krr: one file per workload, the skips with reasons, and the same bytes on the next run', async () => {
    const first = await kerf(['import', 'krr', '--file', KRR, '--repo', repo, '--output', 'json']);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ written: ['shop/deployment-cart.yaml'], unchanged: [], removed: [] });
    expect(report.skipped.map((skip: { reason: string }) => skip.reason)).toEqual(['NotInRepo', 'UnsupportedKind', 'WithinTolerance', 'NoRecommendation']);
    const file = join(repo, 'recommendations/krr/shop/deployment-cart.yaml');
    const bytes = await readFile(file, 'utf8');
    expect(bytes).toContain('    recommender: krr\n    percentile: 95\n    sampleWindow: 336h\n');
    expect(await commitAll('import')).toBe('');

    const second = await kerf(['import', 'krr', '--file', KRR, '--repo', repo]);
    expect(second.stdout).toMatch(/^0 written, 1 unchanged, 0 removed in /);
    expect(await runGit(['status', '--porcelain'], { cwd: repo })).toBe('');

    // The imported file is a recommendation kerf reads like any other, provenance included.
    const plan = JSON.parse((await kerf(['plan', '--repo', repo, '--recommendations', file, '--now', '2026-12-02T10:00:00Z', '--output', 'json'])).stdout);
    expect(plan.errors).toEqual([]);
    expect(plan.decisions.map((d: { changes: { field: string; to: string }[] }) => d.changes.map((c) => `${c.field}=${c.to}`))).toEqual([
      ['requests.cpu=13m', 'requests.memory=250Mi', 'limits.memory=250Mi'],
    ]);
  });

  it('vpa --from-cluster: one file per VPA in Off mode, the same bytes on the next run, and a VPA gone removes its file', async () => {
    api = await startKubeApiWithVpa();
    await createVpa(api, CART_VPA);
    await createVpa(api, { name: 'orders', namespace: 'shop', target: { kind: 'Deployment', name: 'orders' }, updateMode: 'Recreate', recommendations: [{ containerName: 'app', target: { cpu: '100m' } }] });
    const env = { KUBECONFIG: api.kubeconfigPath };
    const fromCluster = await kerf(['import', 'vpa', '--from-cluster', '--repo', repo], env);
    expect(fromCluster.code).toBe(0);
    expect(fromCluster.stdout).toContain('  wrote      shop/deployment-cart.yaml');
    expect(fromCluster.stdout).toContain('  - UpdatingMode: shop/Deployment/orders: VerticalPodAutoscaler shop/orders has updateMode Recreate: VPA applies its recommendations itself');
    const file = join(repo, 'recommendations/vpa/shop/deployment-cart.yaml');
    // cart: 500m/512Mi with a 1Gi memory limit (ratio 2): the limit follows as VPA's admission controller sets it.
    expect(await readFile(file, 'utf8')).toBe(`# Written by kerf-gitops import vpa; the next import replaces it.
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata:
  name: cart
  namespace: shop
spec:
  targetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: cart
  source:
    recommender: vpa
    bound: target
    generatedAt: 2026-12-01T06:00:00Z
  containers:
    - name: app
      requests:
        cpu: 251m
        memory: 300Mi
      limits:
        memory: 600Mi
`);
    expect(await commitAll('import')).toBe('');

    const again = await kerf(['import', 'vpa', '--from-cluster', '--repo', repo], env);
    expect(again.stdout).toMatch(/^0 written, 1 unchanged, 0 removed in /);
    expect(await runGit(['status', '--porcelain'], { cwd: repo })).toBe('');

    await api.store.delete('verticalpodautoscalers.autoscaling.k8s.io', 'shop', 'cart');
    const gone = await kerf(['import', 'vpa', '--from-cluster', '--repo', repo], env);
    expect(gone.stdout).toContain('  removed    shop/deployment-cart.yaml');
    expect(await runGit(['status', '--porcelain'], { cwd: repo })).toBe(' D recommendations/vpa/shop/deployment-cart.yaml');
  });

  it.skipIf(!hasKubectl)('vpa --file takes what kubectl get vpa -A -o yaml prints, to the same bytes as --from-cluster [needs kubectl]', async () => {
    api = await startKubeApiWithVpa();
    await createVpa(api, CART_VPA);
    expect((await kerf(['import', 'vpa', '--from-cluster', '--repo', repo], { KUBECONFIG: api.kubeconfigPath })).code).toBe(0);
    expect(await commitAll('import')).toBe('');
    const { stdout: listed } = await run('kubectl', ['--kubeconfig', api.kubeconfigPath, 'get', 'vpa', '-A', '-o', 'yaml']);
    const exported = join(work, 'vpas.yaml');
    await writeFile(exported, listed);
    const same = await kerf(['import', 'vpa', '--file', exported, '--repo', repo]);
    expect(same.stdout).toMatch(/^0 written, 1 unchanged, 0 removed in /);

    const upper = await kerf(['import', 'vpa', '--file', exported, '--repo', repo, '--bound', 'upperBound', '--round-cpu', '100m']);
    expect(upper.code).toBe(0);
    const file = await readFile(join(repo, 'recommendations/vpa/shop/deployment-cart.yaml'), 'utf8');
    expect(file).toContain('    bound: upperBound\n');
    expect(file).toContain('        cpu: 1200m\n        memory: 1Gi\n');
  });

  it('reconcile --recommendations vpa: VPAs in the cluster → the PR with their values, no recommendation file', async () => {
    api = await startKubeApiWithVpa();
    await createVpa(api, {
      name: 'checkout',
      namespace: 'shop',
      target: { kind: 'Deployment', name: 'checkout' },
      updateMode: 'Off',
      recommendations: [{ containerName: 'app', target: { cpu: '600m', memory: '640Mi' } }],
    });
    await createVpa(api, { name: 'frontend', namespace: 'shop', target: { kind: 'Deployment', name: 'frontend' }, updateMode: 'Auto', recommendations: [{ containerName: 'web', target: { cpu: '50m' } }] });
    git = await startGitServer({ token: TOKEN });
    h = await startHarness(git);
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: `${OWNER}/${h.repo}`, GITHUB_API_URL: h.gh.url, KUBECONFIG: api.kubeconfigPath };
    const { code, stdout, stderr } = await kerf(['reconcile', '--repo', h.clone, '--recommendations', 'vpa', '--now', '2026-12-02T10:00:00Z', '--output', 'json'], env);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.plan.skipped).toEqual([expect.objectContaining({ target: 'shop/Deployment/frontend', reason: 'UpdatingMode' })]);
    expect(result.pullRequests).toEqual([expect.objectContaining({ branch: 'kerf/shop/deployment/checkout', action: 'opened', targets: ['shop/Deployment/checkout'] })]);
    expect(h.gh.state.prs.map((pr) => pr.head)).toEqual(['kerf/shop/deployment/checkout']);
    // checkout: requests 1/768Mi, limits 2/768Mi → 600m/640Mi; the CPU limit keeps its ratio 2 (1200m), memory's equal limit follows (640Mi).
    const manifest = await h.show('kerf/shop/deployment/checkout', 'apps/shop/checkout.yaml');
    expect(manifest).toContain('          requests:\n            cpu: "600m"\n            memory: 640Mi\n          limits:\n            cpu: "1200m"\n            memory: 640Mi');
  });
});
