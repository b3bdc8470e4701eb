// Helm-rendered workloads planned from examples/helm (shaped like the Flux and Argo CD example
// repos): each mapped workload gets its edit in the mapped values, byte for byte; a broken entry
// holds its workload with a coded error; an unmapped release is named, never guessed.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { diagnose } from '../../src/plan/doctor.js';
import { planEdits } from '../../src/plan/edits.js';
import { runPlan } from '../../src/plan/run-plan.js';

const example = join(import.meta.dirname, '../../examples/helm');
const now = new Date('2026-12-02T10:00:00Z');
const temps: string[] = [];
afterEach(() => Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

async function copy(config?: (text: string) => string): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'kerf-helm-'));
  temps.push(repo);
  await cp(example, repo, { recursive: true });
  if (config) await writeFile(join(repo, '.kerf/config.yaml'), config(await readFile(join(repo, '.kerf/config.yaml'), 'utf8')));
  return repo;
}

async function plan(repo: string) {
  const run = await runPlan({ repo, recommendations: [], now, fleetPaused: false, cwd: process.cwd() });
  return { ...run, edits: planEdits(run.index, run.plan.decisions) };
}

/** The lines that differ, trimmed: the whole of what a reviewer sees change. */
async function changedLines(path: string, after: string): Promise<string[][]> {
  const before = (await readFile(join(example, path), 'utf8')).split('\n');
  const lines = after.split('\n');
  const out: string[][] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < lines.length) {
    if (before[i] === lines[j]) {
      i++;
      j++;
    } else if (lines.slice(j).includes(before[i] as string) && before[i] !== undefined) out.push(['+', (lines[j++] as string).trim()]);
    else out.push(['~', `${before[i++]?.trim()} → ${lines[j++]?.trim()}`]);
  }
  return out;
}

describe('examples/helm', () => {
  it('plans each mapped workload from its values and edits only the mapped CPU/memory fields', async () => {
    const { plan: result, edits } = await plan(example);
    const byName = Object.fromEntries(result.decisions.map((d) => [d.target.name, d]));
    expect(Object.keys(byName).sort()).toEqual(['api', 'echo', 'guestbook-helm-guestbook', 'ingress-nginx-controller', 'podinfo']);
    for (const decision of result.decisions) expect(decision).toMatchObject({ action: 'pull-request', strategy: 'rollout' });
    expect(byName.podinfo?.changes).toEqual([
      { container: 'podinfo', field: 'requests.cpu', from: '100m', to: '50m', file: 'apps/podinfo/release.yaml' },
      { container: 'podinfo', field: 'requests.memory', from: '64Mi', to: '96Mi', file: 'apps/podinfo/release.yaml' },
      { container: 'podinfo', field: 'limits.memory', from: '256Mi', to: '192Mi', file: 'apps/podinfo/release.yaml' },
    ]);
    expect(edits.errors).toEqual([]);
    const after = Object.fromEntries(edits.edits.map((edit) => [edit.path, edit.after]));
    expect(Object.keys(after).sort()).toEqual(['apps/echo/values.yaml', 'apps/podinfo/release.yaml', 'argocd/guestbook.yaml', 'argocd/ingress-nginx.yaml', 'charts/api/values-prod.yaml']);
    expect(await changedLines('apps/podinfo/release.yaml', after['apps/podinfo/release.yaml'] as string)).toEqual([
      ['~', 'memory: 256Mi → memory: 192Mi'],
      ['~', 'cpu: 100m → cpu: 50m'],
      ['~', 'memory: 64Mi → memory: 96Mi'],
    ]);
    // valuesFrom: the ConfigMap's values.yaml block, edited as YAML; the HelmRelease is untouched.
    expect(await changedLines('apps/echo/values.yaml', after['apps/echo/values.yaml'] as string)).toEqual([
      ['~', 'cpu: 10m → cpu: 20m'],
      ['~', 'memory: 64Mi → memory: 48Mi'],
      ['+', 'limits:'],
      ['+', 'memory: 96Mi'],
    ]);
    const configMap = parseAllDocuments(after['apps/echo/values.yaml'] as string)[0]?.toJS() as { data: Record<string, string> };
    expect(parseAllDocuments(configMap.data['values.yaml'] as string)[0]?.toJS().controllers.main.containers.app.resources).toEqual({ requests: { cpu: '20m', memory: '48Mi' }, limits: { memory: '96Mi' } });
    expect(await changedLines('argocd/guestbook.yaml', after['argocd/guestbook.yaml'] as string)).toEqual([
      ['~', 'limits: {cpu: 500m, memory: 512Mi} → limits: {cpu: 500m, memory: 256Mi}'],
      ['~', 'requests: {cpu: 100m, memory: 128Mi} → requests: {cpu: 50m, memory: 96Mi}'],
    ]);
    expect(await changedLines('argocd/ingress-nginx.yaml', after['argocd/ingress-nginx.yaml'] as string)).toEqual([
      ['~', 'cpu: 100m → cpu: 150m'],
      ['~', 'memory: 90Mi → memory: 160Mi'],
      ['+', 'limits:'],
      ['+', 'memory: 320Mi'],
    ]);
    expect(after['argocd/ingress-nginx.yaml']).toContain('        values: |\n          controller:\n');
    expect(await changedLines('charts/api/values-prod.yaml', after['charts/api/values-prod.yaml'] as string)).toEqual([
      ['~', 'cpu: "1" → cpu: "750m"'],
      ['~', 'memory: 1Gi → memory: 768Mi'],
      ['~', 'memory: 1Gi → memory: 768Mi'],
      ['+', 'resources:'],
      ['+', 'requests:'],
      ['+', 'cpu: 100m'],
      ['+', 'memory: 128Mi'],
    ]);
  });

  it('reads replicas from the mapped values path', async () => {
    const { index } = await plan(example);
    expect(index.workloads.get('ingress-nginx/Deployment/ingress-nginx-controller')?.replicas).toBe(3);
    expect(index.workloads.get('echo/Deployment/echo')?.replicas).toBe(2);
  });

  it('an unmapped release: HelmWorkloadNotMapped naming the release, with suggestions that are not applied', async () => {
    const { plan: result, edits } = await plan(example);
    expect(result.errors).toEqual([
      expect.objectContaining({
        code: 'HelmWorkloadNotMapped',
        object: 'RightsizingRecommendation monitoring/grafana',
        message: expect.stringMatching(/Helm release grafana \(HelmRelease monitoring\/grafana in apps\/grafana\/release\.yaml\).*grafana: one of resources, controllers\.main\.containers\.grafana\.resources, grafana\.resources/),
      }),
    ]);
    expect(edits.edits.map((edit) => edit.path)).not.toContain('apps/grafana/release.yaml');
  });
});

describe('a broken helm: entry holds its workload', () => {
  const cases: [string, (text: string) => string, string, RegExp][] = [
    ['a values path not in the values', (t) => t.replace('app: controllers.main.containers.app.resources', 'app: controllers.web.containers.app.resources'), 'HelmValuesPathNotFound', /no mapping at controllers\.web\.containers\.app/],
    ['a HelmRelease that is not in the file', (t) => t.replace('{file: apps/podinfo/release.yaml, name: podinfo}', '{file: apps/podinfo/release.yaml, name: podinfo2}'), 'HelmValuesNotFound', /has no HelmRelease podinfo2/],
    ['a values file that is not in the repo', (t) => t.replace('charts/api/values-prod.yaml', 'charts/api/values-production.yaml'), 'HelmValuesNotFound', /not a file of the repo/],
    ['a ConfigMap the HelmRelease does not read', (t) => t.replace('name: echo-values}', 'name: echo-values, valuesKey: prod.yaml}'), 'HelmValuesNotFound', /has no valuesFrom ConfigMap echo-values key prod\.yaml/],
    ['a values key path that does not end in resources', (t) => t.replace('podinfo: resources', 'podinfo: podinfo.limits'), 'InvalidHelmMapping', /containers\.podinfo/],
    ['two sources in one entry', (t) => t.replace('    valuesFile: charts/api/values-prod.yaml', '    valuesFile: charts/api/values-prod.yaml\n    application: {file: argocd/api.yaml, name: api}'), 'InvalidHelmMapping', /exactly one of/],
  ];
  it.each(cases)('%s', async (_, change, code, message) => {
    const repo = await copy(change);
    const { plan: result, edits } = await plan(repo);
    const held = result.errors.filter((error) => error.code === code);
    expect(held.length).toBeGreaterThan(0);
    expect(held.map((error) => error.message).join('\n')).toMatch(message);
    // Its recommendation is refused with the same code, and nothing of it is written.
    const recommendationError = result.errors.find((error) => error.object?.startsWith('RightsizingRecommendation') && error.code === code);
    expect(recommendationError?.message).toMatch(/is held/);
    expect(edits.edits.length).toBe(4);
  });

  it('values laid over the edited ones (Flux spec.values over valuesFrom) are refused', async () => {
    const repo = await copy();
    const release = join(repo, 'apps/echo/release.yaml');
    await writeFile(release, `${await readFile(release, 'utf8')}    controllers:\n      main:\n        containers:\n          app:\n            resources: {requests: {cpu: 5m}}\n`);
    const { plan: result } = await plan(repo);
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'HelmValuesOverridden', file: 'apps/echo/release.yaml', message: expect.stringMatching(/spec\.values sets controllers\.main\.containers\.app\.resources too/) }));
  });

  it('a mapped workload that manifests the index refused also define (#10 conflicts) is held, not planned from the values', async () => {
    const repo = await copy();
    const manifest = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: podinfo, namespace: podinfo}\nspec:\n  template:\n    spec:\n      containers:\n        - name: podinfo\n          image: podinfo\n';
    await writeFile(join(repo, 'apps/podinfo/copy-a.yaml'), manifest);
    await writeFile(join(repo, 'apps/podinfo/copy-b.yaml'), manifest);
    const { plan: result, edits } = await plan(repo);
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'DuplicateWorkload', field: 'helm[0]', message: expect.stringMatching(/podinfo is in the repo as a manifest too \(.*copy-a\.yaml.*\); map it or keep the manifests/) }));
    expect(result.decisions.map((d) => d.target.name)).not.toContain('podinfo');
    expect(edits.edits.map((edit) => edit.path)).not.toContain('apps/podinfo/release.yaml');
  });

  it('a HelmRelease without spec.values is held: kerf edits values, it does not create them', async () => {
    const repo = await copy();
    const release = join(repo, 'apps/podinfo/release.yaml');
    const text = await readFile(release, 'utf8');
    await writeFile(release, text.slice(0, text.indexOf('  # Default values')));
    const { plan: result, edits } = await plan(repo);
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'HelmValuesPathNotFound', file: 'apps/podinfo/release.yaml', message: expect.stringMatching(/HelmRelease podinfo has no values mapping at spec\.values; the workload is held/) }));
    expect(edits.edits.map((edit) => edit.path)).not.toContain('apps/podinfo/release.yaml');
  });

  it('a Secret with only base64 data is not rewritten', async () => {
    const repo = await copy((t) => t.replace('{file: apps/echo/values.yaml, kind: ConfigMap, name: echo-values}', '{file: apps/echo/secret.yaml, kind: Secret, name: echo-values}'));
    await writeFile(join(repo, 'apps/echo/secret.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata: {name: echo-values, namespace: echo}\ndata:\n  values.yaml: Y29udHJvbGxlcnM6IHt9Cg==\n');
    const releasePath = join(repo, 'apps/echo/release.yaml');
    await writeFile(releasePath, (await readFile(releasePath, 'utf8')).replace('- kind: ConfigMap', '- kind: Secret'));
    const { plan: result } = await plan(repo);
    expect(result.errors).toContainEqual(expect.objectContaining({ code: 'UnsupportedHelmValues', message: expect.stringMatching(/only base64 data/) }));
  });
});

describe('doctor', () => {
  it('lists each release no helm: entry maps, with the conventional paths as suggestions', async () => {
    const { plan: result, index, config } = await plan(example);
    const all = diagnose({ index, plan: result, config, now });
    // The refused recommendation, with a fix that says to map it (not to fix its targetRef).
    expect(all).toContainEqual(expect.objectContaining({ check: 'helm-unmapped', severity: 'error', code: 'HelmWorkloadNotMapped', file: 'kerf/unmapped.yaml', fix: expect.stringMatching(/^add a helm: entry/) }));
    const findings = all.filter((finding) => finding.check === 'helm-unmapped' && finding.severity === 'warning');
    // api's Application is mapped through its values file: its workload counts, as Helm names it.
    expect(findings.map((finding) => [finding.file, finding.line])).toEqual([['apps/grafana/release.yaml', 1]]);
    expect(findings[0]).toMatchObject({
      severity: 'warning',
      message: expect.stringMatching(/^HelmRelease monitoring\/grafana \(Helm release grafana in namespace monitoring\) has no helm: entry/),
      fix: expect.stringMatching(/resources, controllers\.main\.containers\.<container>\.resources, <container>\.resources/),
    });
  });
});
