// Closing the loop for Helm workloads (G5): recommendation in the cluster → PR editing the values
// → merge → a simulated Helm upgrade (Flux's helm-controller, Argo CD's sync) that renders the merged
// values into the live Deployment → Applied; or, for a wrong helm: entry, an upgrade whose chart does
// not read the edited values → HelmMappingMismatch (status, one Event), no PR until the entry changes.
// Real git, octokit and client-node against the stand-ins.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { OWNER, SOMEONE, TOKEN, startHarness, type Harness } from '../reconcile/reconcile-harness.js';
import { startGitServer, type GitServer } from '../standins/git/git-server.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { loopRun } from '../support/loop-run.js';
import { wireRecommendation } from '../support/cluster-source.js';
import { ARGO_APPLICATION_CRD } from '../support/gitops-sync.js';
import { FLUX_HELMRELEASE_CRD, applyFromMain, argoHelmSync, fluxHelmUpgrade, renderedDeployment } from '../support/helm-sync.js';

const example = join(import.meta.dirname, '../../examples/helm');
const START = Date.now();
const clock = () => new Date(Date.parse('2026-12-02T10:00:00Z') + (Date.now() - START));
let git: GitServer;

type Values = Record<string, any>;

/** The charts as they really read their values: podinfo's `resources`, helm-guestbook's `resources`, ingress-nginx's `controller.resources`. */
const CHARTS = {
  podinfo: (values: Values) =>
    renderedDeployment({
      namespace: 'podinfo',
      name: 'podinfo',
      container: 'podinfo',
      release: 'podinfo',
      replicas: values.replicaCount,
      resources: values.resources,
      labels: { 'helm.toolkit.fluxcd.io/name': 'podinfo', 'helm.toolkit.fluxcd.io/namespace': 'podinfo' },
      annotations: { 'meta.helm.sh/release-name': 'podinfo', 'meta.helm.sh/release-namespace': 'podinfo' },
    }),
  guestbook: (values: Values) =>
    renderedDeployment({ namespace: 'guestbook', name: 'guestbook-helm-guestbook', container: 'helm-guestbook', release: 'guestbook', replicas: values.replicaCount, resources: values.resources, annotations: { 'argocd.argoproj.io/tracking-id': 'guestbook:apps/Deployment:guestbook/guestbook-helm-guestbook' } }),
  ingressNginx: (values: Values) =>
    renderedDeployment({ namespace: 'ingress-nginx', name: 'ingress-nginx-controller', container: 'controller', release: 'ingress-nginx', replicas: values.controller?.replicaCount, resources: values.controller?.resources }),
};

const RECOMMENDED = {
  podinfo: [{ name: 'podinfo', requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '192Mi' } }],
  guestbook: [{ name: 'helm-guestbook', requests: { cpu: '50m', memory: '96Mi' }, limits: { cpu: '500m', memory: '256Mi' } }],
  ingressNginx: [{ name: 'controller', requests: { cpu: '150m', memory: '160Mi' }, limits: { memory: '320Mi' } }],
};

async function exampleFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(example, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) files[relative(example, join(entry.parentPath, entry.name)).split(sep).join('/')] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

/** A cluster with Flux's and Argo CD's kinds, the given releases synced from main, and their recommendations. */
async function startCluster(h: Harness, releases: readonly ('podinfo' | 'guestbook' | 'ingressNginx')[]): Promise<KubeApi> {
  const api = await startKubeApi({ clock });
  api.nodes.addNode({ name: 'node-a', capacity: { cpu: '32', memory: '64Gi' } });
  api.store.put(ARGO_APPLICATION_CRD);
  api.store.put(FLUX_HELMRELEASE_CRD);
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  for (const name of ['argocd', 'podinfo', 'guestbook', 'ingress-nginx']) await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const release of releases) {
    await upgrade(api, h, release);
    const [namespace, target] = { podinfo: ['podinfo', 'podinfo'], guestbook: ['guestbook', 'guestbook-helm-guestbook'], ingressNginx: ['ingress-nginx', 'ingress-nginx-controller'] }[release] as [string, string];
    await objects.create(wireRecommendation(namespace, target, { kind: 'Deployment', name: target }, RECOMMENDED[release]) as KubernetesObject);
  }
  return api;
}

/** What the release's controller does after a sync of main. */
function upgrade(api: KubeApi, h: Harness, release: 'podinfo' | 'guestbook' | 'ingressNginx'): Promise<unknown> {
  const now = clock();
  if (release === 'podinfo') return fluxHelmUpgrade(api, { bare: h.bare, file: 'apps/podinfo/release.yaml', name: 'podinfo', chart: CHARTS.podinfo, now });
  if (release === 'guestbook') return argoHelmSync(api, { bare: h.bare, file: 'argocd/guestbook.yaml', name: 'guestbook', chart: CHARTS.guestbook, now });
  return argoHelmSync(api, { bare: h.bare, file: 'argocd/ingress-nginx.yaml', name: 'ingress-nginx', chart: CHARTS.ingressNginx, now, source: 0 });
}

const statusOf = (api: KubeApi, namespace: string, name: string) => (api.store.get('rightsizingrecommendations', namespace, name)?.status ?? {}) as Record<string, unknown>;
const eventsOf = (api: KubeApi, namespace: string, action: string) =>
  (api.store.list('events.events.k8s.io', namespace) as unknown as { action: string; reason: string; note: string; type: string; regarding: { name: string } }[]).filter((e) => e.action === action);
const prOf = (h: Harness, branch: string) => h.gh.state.prs.filter((pr) => pr.head === branch).at(-1);

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
});
afterAll(async () => {
  await git?.close();
});

describe('G5: a Helm workload whose mapping is right, from recommendation to Applied', () => {
  let h: Harness;
  let api: KubeApi;
  beforeAll(async () => {
    h = await startHarness(git, { shallow: false, baseFiles: await exampleFiles() });
    api = await startCluster(h, ['podinfo', 'guestbook']);
  });
  afterAll(async () => {
    await h?.close();
    await api?.close();
  });

  it('a Flux HelmRelease (spec.values) and an Argo CD Application (helm.valuesObject): PRs, merged, Applied once the release upgraded with the merged values', async () => {
    const run = loopRun(h, api, clock);
    const first = await run();
    expect(first.errors).toEqual([]);
    const podinfo = prOf(h, 'kerf/podinfo/deployment/podinfo');
    const guestbook = prOf(h, 'kerf/guestbook/deployment/guestbook-helm-guestbook');
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Proposed', pullRequest: { number: podinfo?.number } });
    expect(statusOf(api, 'guestbook', 'guestbook-helm-guestbook')).toMatchObject({ phase: 'Proposed', pullRequest: { number: guestbook?.number } });
    const values = parseDocument(await h.show('kerf/podinfo/deployment/podinfo', 'apps/podinfo/release.yaml')).toJS() as { spec: { values: { resources: unknown } } };
    expect(values.spec.values.resources).toEqual({ requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '192Mi' } });

    await h.gh.mergePullRequest(podinfo?.number as number);
    await h.gh.mergePullRequest(guestbook?.number as number);
    // The Kustomization applied the merged HelmRelease, but helm-controller has not upgraded it yet; Argo CD has not seen the merge.
    await applyFromMain(api, { bare: h.bare, file: 'apps/podinfo/release.yaml', kind: 'HelmRelease', name: 'podinfo' });
    await run();
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Proposed' });
    expect(statusOf(api, 'guestbook', 'guestbook-helm-guestbook')).toMatchObject({ phase: 'Proposed' });

    await upgrade(api, h, 'podinfo');
    await upgrade(api, h, 'guestbook');
    await run();
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Applied', appliedAt: expect.any(String) });
    expect(statusOf(api, 'guestbook', 'guestbook-helm-guestbook')).toMatchObject({ phase: 'Applied', appliedAt: expect.any(String) });
    expect(statusOf(api, 'podinfo', 'podinfo')).not.toHaveProperty('helmMappingMismatch');
    expect(eventsOf(api, 'podinfo', 'Applied')).toHaveLength(1);
    expect(eventsOf(api, 'guestbook', 'Applied')).toHaveLength(1);
  });
});

describe('G5: a wrong helm: entry is caught after the sync and holds the workload until it changes', () => {
  let h: Harness;
  let api: KubeApi;
  beforeAll(async () => {
    // Plausible mistakes: podinfo's container mapped to the redis sidecar's values, the ingress-nginx controller to the default backend's.
    const files = await exampleFiles();
    files['.kerf/config.yaml'] = (files['.kerf/config.yaml'] as string).replace('podinfo: resources', 'podinfo: redis.resources').replace('controller: controller.resources', 'controller: defaultBackend.resources');
    h = await startHarness(git, { shallow: false, baseFiles: files });
    api = await startCluster(h, ['podinfo', 'ingressNginx']);
  });
  afterAll(async () => {
    await h?.close();
    await api?.close();
  });

  it('HelmMappingMismatch for a Flux HelmRelease and an Argo CD values string: status, one Event, no further PR; a changed entry plans again', async () => {
    const run = loopRun(h, api, clock);
    const proposed = await run();
    expect(proposed.errors).toEqual([]);
    const podinfo = prOf(h, 'kerf/podinfo/deployment/podinfo');
    const nginx = prOf(h, 'kerf/ingress-nginx/deployment/ingress-nginx-controller');
    expect(podinfo && nginx).toBeDefined();
    await h.gh.mergePullRequest(podinfo?.number as number);
    await h.gh.mergePullRequest(nginx?.number as number);

    // Merged, the HelmRelease applied, helm-controller not done yet: no verdict.
    await applyFromMain(api, { bare: h.bare, file: 'apps/podinfo/release.yaml', kind: 'HelmRelease', name: 'podinfo' });
    await run();
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Proposed' });
    expect(eventsOf(api, 'podinfo', 'Blocked')).toEqual([]);

    // The upgrades run, and the charts never read the edited values.
    await upgrade(api, h, 'podinfo');
    await upgrade(api, h, 'ingressNginx');
    const caught = await run();
    expect(caught.errors).toEqual([]);
    const flux = statusOf(api, 'podinfo', 'podinfo');
    expect(flux).toMatchObject({ phase: 'Blocked', reason: 'HelmMappingMismatch', pullRequest: { number: podinfo?.number }, helmMappingMismatch: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(flux.message).toContain(`pull request #${podinfo?.number} was merged and HelmRelease podinfo/podinfo (release podinfo v2, chart 6.7.0`);
    expect(flux.message).toContain('Deployment podinfo/podinfo does not run the values: its live template still has podinfo requests.cpu 100m');
    expect(flux.message).toContain('helm[0] of .kerf/config.yaml maps them to HelmRelease podinfo in apps/podinfo/release.yaml, values paths podinfo: spec.values.redis.resources');
    const argo = statusOf(api, 'ingress-nginx', 'ingress-nginx-controller');
    expect(argo).toMatchObject({ phase: 'Blocked', reason: 'HelmMappingMismatch', helmMappingMismatch: expect.stringMatching(/^sha256:/) });
    expect(argo.message).toContain('Argo CD Application argocd/ingress-nginx (Synced)');
    expect(argo.message).toContain('helm[3] of .kerf/config.yaml maps them to Application ingress-nginx in argocd/ingress-nginx.yaml (the YAML in spec.sources.0.helm.values), values paths controller: defaultBackend.resources');
    for (const [namespace, name] of [['podinfo', 'podinfo'], ['ingress-nginx', 'ingress-nginx-controller']] as const) {
      expect(eventsOf(api, namespace, 'Blocked')).toEqual([expect.objectContaining({ reason: 'HelmMappingMismatch', type: 'Warning', note: statusOf(api, namespace, name).message, regarding: expect.objectContaining({ name }) })]);
    }

    // Next runs, even with a new recommendation: no PR, the same status, still one Event.
    const prs = h.gh.state.prs.length;
    const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
    const live = (await objects.read({ apiVersion: 'kerf.getkerf.dev/v1alpha1', kind: 'RightsizingRecommendation', metadata: { name: 'podinfo', namespace: 'podinfo' } })) as KubernetesObject & { spec: { containers: { requests: Record<string, string> }[] } };
    (live.spec.containers[0] as { requests: Record<string, string> }).requests.cpu = '40m';
    await objects.replace(live);
    const held = await run();
    expect(held.errors).toEqual([]);
    expect(h.gh.state.prs).toHaveLength(prs);
    expect(held.plan.decisions.find((d) => d.target.name === 'podinfo')).toMatchObject({ action: 'blocked', phase: 'Blocked', reason: 'HelmMappingMismatch', message: flux.message });
    await run();
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Blocked', reason: 'HelmMappingMismatch' });
    expect(eventsOf(api, 'podinfo', 'Blocked')).toHaveLength(1);
    expect(eventsOf(api, 'ingress-nginx', 'Blocked')).toHaveLength(1);

    // The entries are corrected: both are planned again, and the right mapping reaches Applied.
    const config = (await h.show('main', '.kerf/config.yaml')).replace('podinfo: redis.resources', 'podinfo: resources').replace('controller: defaultBackend.resources', 'controller: controller.resources');
    await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { '.kerf/config.yaml': `${config}\n` });
    await run();
    const again = prOf(h, 'kerf/podinfo/deployment/podinfo');
    const nginxAgain = prOf(h, 'kerf/ingress-nginx/deployment/ingress-nginx-controller');
    expect(again?.number).not.toBe(podinfo?.number);
    expect(nginxAgain?.number).not.toBe(nginx?.number);
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Proposed', pullRequest: { number: again?.number } });
    expect(statusOf(api, 'podinfo', 'podinfo')).not.toHaveProperty('reason');
    expect(statusOf(api, 'podinfo', 'podinfo')).not.toHaveProperty('message');
    expect(statusOf(api, 'ingress-nginx', 'ingress-nginx-controller')).toMatchObject({ phase: 'Proposed', pullRequest: { number: nginxAgain?.number } });
    await h.gh.mergePullRequest(again?.number as number);
    await upgrade(api, h, 'podinfo');
    await run();
    expect(statusOf(api, 'podinfo', 'podinfo')).toMatchObject({ phase: 'Applied' });
  });
});
