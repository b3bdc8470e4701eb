// The bundled Action with `recommendations: cluster` and the `kubeconfig` input, against the
// Kubernetes, GitHub and git stand-ins: recommendations read from the cluster become PRs, their
// statuses are written back (Proposed with the PR), and the job summary shows the Status section;
// an unreachable cluster is one error annotation and the plan is made from Git alone.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { EXAMPLE, OWNER, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { CLOCK_FREE_POLICIES, installAction, type ActionRun, type InstalledAction } from '../support/action-runner.js';
import { syncFromGit } from '../support/gitops-sync.js';
import { createVpa, startKubeApiWithVpa } from '../import/vpa-cluster.js';

/** The stand-in's kubeconfig carries this bearer token (test/standins/kube/start-kube-api.ts). */
const KUBE_TOKEN = 'standin-token';

let git: GitServer;
let action: InstalledAction;
let runnerTemp: string;
let h: Harness | undefined;
let api: KubeApi | undefined;

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  action = await installAction(TOKEN);
  runnerTemp = await mkdtemp(join(tmpdir(), 'kerf-runner-temp-'));
});
afterAll(async () => {
  await action?.close();
  await git?.close();
  await rm(runnerTemp, { recursive: true, force: true });
});
afterEach(async () => {
  await h?.close();
  await api?.close();
  h = undefined;
  api = undefined;
});

/** A recommendation of the example, as the cluster would hold it. */
async function exampleRecommendations(names: readonly string[]): Promise<KubernetesObject[]> {
  const texts = await Promise.all(['shop.yaml', 'other-namespaces.yaml'].map((file) => readFile(join(EXAMPLE, 'recommendations', file), 'utf8')));
  return texts.flatMap((text) => parseAllDocuments(text).map((doc) => doc.toJS() as KubernetesObject)).filter((object) => names.includes(object.metadata?.name ?? ''));
}

/** The repo's checkout and grafana running in the stand-in, with their recommendations, and one of a workload another repo manages. */
async function clusterOf(harness: Harness): Promise<KubeApi> {
  const kube = await startKubeApi();
  kube.nodes.addNode({ name: 'node-a', capacity: { cpu: '8', memory: '16Gi' } });
  const objects = KubernetesObjectApi.makeApiClient(kube.kubeConfig());
  for (const name of ['shop', 'tools']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await syncFromGit(kube, harness.bare, 'main', ['apps/shop/checkout.yaml', 'apps/tools/grafana.yaml']);
  for (const object of await exampleRecommendations(['checkout', 'grafana'])) await objects.create(object);
  await objects.create({
    apiVersion: 'kerf.getkerf.dev/v1alpha1',
    kind: 'RightsizingRecommendation',
    metadata: { name: 'elsewhere', namespace: 'shop' },
    spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'elsewhere' }, containers: [{ name: 'app', requests: { cpu: '100m' } }] },
  } as KubernetesObject);
  return kube;
}

function step(harness: Harness, inputs: Record<string, string>): Promise<ActionRun> {
  return action.run({
    cwd: harness.clone,
    with: inputs,
    env: { GITHUB_REPOSITORY: `${OWNER}/${harness.repo}`, GITHUB_API_URL: harness.gh.url, RUNNER_TEMP: runnerTemp },
  });
}

/** Everything the log shows, but the lines that hand secrets to the runner's masking. */
function printed(run: ActionRun): string {
  return `${run.stdout.replace(/^::add-mask::.*\n/gm, '')}${run.stderr}`;
}

/** A kubeconfig whose server refuses connections (a port that was free a moment ago). */
async function unreachableKubeconfig(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'gone', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'admin', user: { token: KUBE_TOKEN } }],
    contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'admin' } }],
    'current-context': 'gone',
  });
}

describe('the bundled Action with recommendations: cluster', () => {
  it('G1: reads the recommendations from the kubeconfig input\'s cluster, opens the PR, writes Proposed with the PR back and shows the Status section', async () => {
    h = await startHarness(git, { files: CLOCK_FREE_POLICIES });
    api = await clusterOf(h);
    const kubeconfig = await readFile(api.kubeconfigPath, 'utf8');
    const run = await step(h, { recommendations: 'cluster', kubeconfig });
    expect(run.stderr).toBe('');
    expect(run.annotations).toEqual([]);
    expect(run.code).toBe(0);

    // Only the cluster's recommendations of this repo's workloads are planned.
    const decisions = JSON.parse(run.outputs.decisions ?? '[]') as { target: { name: string }; action: string; phase: string }[];
    expect(decisions.map((d) => [d.target.name, d.action, d.phase])).toEqual([
      ['checkout', 'pull-request', 'Proposed'],
      ['grafana', 'none', 'Unmanaged'],
    ]);
    expect(h.gh.state.prs).toHaveLength(1);
    const [pr] = h.gh.state.prs;
    expect(pr).toMatchObject({ head: 'kerf/shop/deployment/checkout' });
    const pulls = JSON.parse(run.outputs['pull-requests'] ?? '[]') as { branch: string; number: number; url: string }[];
    const opened = pulls.find((p) => p.branch === 'kerf/shop/deployment/checkout');
    expect(opened).toMatchObject({ action: 'opened', number: pr?.number });

    // The loop wrote the statuses back through the status subresource.
    const status = (namespace: string, name: string) => api?.store.get('rightsizingrecommendations', namespace, name)?.status;
    expect(status('shop', 'checkout')).toMatchObject({ phase: 'Proposed', strategy: 'rollout', pullRequest: { number: pr?.number, url: opened?.url } });
    expect(status('tools', 'grafana')).toMatchObject({ phase: 'Unmanaged' });
    expect(status('shop', 'elsewhere')).toBeUndefined();

    // The summary's Status section: the statuses as written, of this repo's recommendations only.
    const section = run.summary.slice(run.summary.indexOf('### Status'));
    expect(run.summary).toContain('### Status');
    expect(section).toContain('| Recommendation | Target | Phase | Strategy | Reason | Next window | Pull request | Applied at | Health |');
    expect(section).toContain(`| shop/checkout | Deployment/checkout | Proposed | rollout | - | - | [#${pr?.number}](${opened?.url}) | - | - |`);
    expect(section).toContain('| tools/grafana | Deployment/grafana | Unmanaged |');
    expect(section).not.toContain('elsewhere');

    // The kubeconfig is masked (whole and its token), never printed, and its file is gone.
    expect(run.stdout).toContain(`::add-mask::${KUBE_TOKEN}\n`);
    expect(run.stdout).toContain('::add-mask::apiVersion: v1%0A');
    expect(printed(run)).not.toContain(KUBE_TOKEN);
    expect(printed(run)).not.toContain(TOKEN);
    expect((await readdir(runnerTemp)).sort()).toEqual(['kerf-decisions.json', 'kerf-pull-requests.json']); // the kubeconfig is gone

    // A second run finds nothing new: no GitHub write, the statuses stand.
    const writes = h.gh.writeRequests().length;
    const again = await step(h, { recommendations: 'cluster', kubeconfig });
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ opened: '0', updated: '0', closed: '0' });
    expect(h.gh.writeRequests()).toHaveLength(writes);
    expect(again.summary).toContain(`| shop/checkout | Deployment/checkout | Proposed | rollout | - | - | [#${pr?.number}](${opened?.url}) |`);
  });

  it.each([
    ['a cluster that refuses connections', async () => unreachableKubeconfig(), /^cannot read the cluster at http:\/\/127\.0\.0\.1:\d+: .*deciding from Git alone/],
    // The parser's message quotes the lines around its fault: every line of such a value is masked.
    ['a kubeconfig that does not parse', async () => `apiVersion: v1\nusers:\n  - name: admin\n    user: {token: ${KUBE_TOKEN}\n`, /^cannot read the cluster at [\s\S]*\n *\*\*\*\n[\s\S]*; deciding from Git alone/],
  ])('%s is one error annotation; the plan is made from Git alone and the PRs still open', async (_name, kubeconfig, message) => {
    h = await startHarness(git, { files: CLOCK_FREE_POLICIES });
    // fail-on-error: false, to see the rest of the run green; by default the error fails the step (action.test.ts).
    const run = await step(h, { recommendations: 'cluster', kubeconfig: await kubeconfig(), 'group-by': 'per-namespace', 'fail-on-error': 'false' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const errors = run.annotations.filter((a) => a.level === 'error');
    expect(errors).toEqual([{ level: 'error', properties: { title: 'kerf: cannot read the cluster' }, message: expect.stringMatching(message) }]);
    // The repo's own recommendations decide, as without the cluster.
    const decisions = JSON.parse(run.outputs.decisions ?? '[]') as unknown[];
    expect(decisions).toHaveLength(11);
    expect(run.outputs.opened).toBe('1');
    expect(h.gh.state.prs).toHaveLength(1);
    expect(run.summary).not.toContain('### Status');
    expect(run.summary).toContain('### Errors (1)');
    expect(printed(run)).not.toContain(KUBE_TOKEN);
    expect(run.summary).not.toContain(KUBE_TOKEN);
    expect((await readdir(runnerTemp)).sort()).toEqual(['kerf-decisions.json', 'kerf-pull-requests.json']); // the kubeconfig is gone
  });
});

describe('the bundled Action with recommendations: vpa', () => {
  it('a team with VPA in Off mode gets the PR with no recommendation file; VPAs in an updating mode are left to VPA', async () => {
    h = await startHarness(git, { files: CLOCK_FREE_POLICIES });
    api = await startKubeApiWithVpa();
    await createVpa(api, { name: 'checkout', namespace: 'shop', target: { kind: 'Deployment', name: 'checkout' }, updateMode: 'Off', recommendations: [{ containerName: 'app', target: { cpu: '600m', memory: '640Mi' } }] });
    await createVpa(api, { name: 'cart', namespace: 'shop', target: { kind: 'Deployment', name: 'cart' }, updateMode: 'InPlaceOrRecreate', recommendations: [{ containerName: 'app', target: { cpu: '100m' } }] });
    const run = await step(h, { recommendations: 'vpa', kubeconfig: await readFile(api.kubeconfigPath, 'utf8') });
    expect(run.stderr).toBe('');
    expect(run.annotations).toEqual([]);
    expect(run.code).toBe(0);
    const decisions = JSON.parse(run.outputs.decisions ?? '[]') as { target: { name: string }; action: string; changes: { field: string; to: string }[] }[];
    expect(decisions.map((d) => [d.target.name, d.action, d.changes.map((c) => `${c.field}=${c.to}`)])).toEqual([
      ['checkout', 'pull-request', ['requests.cpu=600m', 'requests.memory=640Mi', 'limits.cpu=1200m', 'limits.memory=640Mi']],
    ]);
    expect(h.gh.state.prs.map((pr) => pr.head)).toEqual(['kerf/shop/deployment/checkout']);
    // No RightsizingRecommendation in the cluster to write a status to, and none to show.
    expect(api.store.list('rightsizingrecommendations')).toEqual([]);
    expect(run.summary).not.toContain('### Status');
    expect(run.summary).toContain('### Skipped VPA recommendations (1)\n\n- `UpdatingMode` shop/Deployment/cart: VerticalPodAutoscaler shop/cart has updateMode InPlaceOrRecreate: VPA applies its recommendations itself');
    expect(printed(run)).not.toContain(KUBE_TOKEN);
  });

  it('a cluster without VPA fails the step and leaves the open PRs alone: planned without VPAs, every one would look unwanted', async () => {
    h = await startHarness(git, { files: CLOCK_FREE_POLICIES });
    api = await startKubeApiWithVpa();
    await createVpa(api, { name: 'checkout', namespace: 'shop', target: { kind: 'Deployment', name: 'checkout' }, updateMode: 'Off', recommendations: [{ containerName: 'app', target: { cpu: '600m', memory: '640Mi' } }] });
    expect((await step(h, { recommendations: 'vpa', kubeconfig: await readFile(api.kubeconfigPath, 'utf8') })).outputs.opened).toBe('1');
    const withoutVpa = await startKubeApi();
    try {
      const writes = h.gh.writeRequests().length;
      const run = await step(h, { recommendations: 'vpa', kubeconfig: await readFile(withoutVpa.kubeconfigPath, 'utf8') });
      expect(run.code).toBe(1);
      expect(run.annotations).toEqual([{ level: 'error', properties: {}, message: expect.stringMatching(/^the cluster at http:\/\/127\.0\.0\.1:\d+ serves no autoscaling\.k8s\.io\/v1 VerticalPodAutoscalers: install the VPA recommender/) }]);
      expect(h.gh.writeRequests()).toHaveLength(writes);
      expect(h.gh.state.prs.map((pr) => [pr.head, pr.state])).toEqual([['kerf/shop/deployment/checkout', 'open']]);
    } finally {
      await withoutVpa.close();
    }
  });
});
