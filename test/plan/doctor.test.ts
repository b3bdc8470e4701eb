import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/plan/doctor.js';
import type { BranchProtection } from '../../src/github/github.js';
import { runPlan } from '../../src/plan/run-plan.js';

const now = new Date('2026-12-02T10:00:00Z');
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop}
spec: {template: {spec: {containers: [{name: app, resources: {requests: {cpu: 500m}}}]}}}
`;
const policy = (apply: string) => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: shop}
spec:
  mode: auto-patch
  apply:
${apply}
`;
const weekendWindow = `    strategy: deferred
    maintenanceWindows:
      - {schedule: "0 1 * * 6", duration: 4h, timeZone: Europe/Berlin}`;

async function doctor(files: Record<string, string>, branchProtection?: BranchProtection) {
  const repo = await mkdtemp(join(tmpdir(), 'kerf-doctor-'));
  dirs.push(repo);
  for (const [path, text] of Object.entries({ 'apps/cart.yaml': deployment, ...files })) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  const { plan, index, config } = await runPlan({ repo, recommendations: [], now, fleetPaused: false, cwd: process.cwd() });
  return diagnose({ index, plan, config, now, ...(branchProtection && { branchProtection }) });
}

const application = (extra: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://example.com/shop.git, path: apps}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
${extra}`;

describe('doctor', () => {
  it('finds nothing in a healthy repo', async () => {
    expect(await doctor({ 'policy.yaml': policy(weekendWindow), 'argo.yaml': application('  syncPolicy: {automated: {prune: true}}\n') }, { state: 'required', branch: 'main' })).toEqual([]);
  });

  it.each([
    ['jsonPointers on container resources', '  ignoreDifferences:\n    - {group: apps, kind: Deployment, jsonPointers: [/spec/template/spec/containers/0/resources]}\n'],
    ['jsonPointers on all containers', '  ignoreDifferences:\n    - {group: apps, kind: Deployment, jsonPointers: [/spec/template/spec/containers]}\n'],
    ['a jq path expression', '  ignoreDifferences:\n    - {group: apps, kind: Deployment, jqPathExpressions: [".spec.template.spec.containers[].resources"]}\n'],
  ])('an Argo CD Application ignoring %s with RespectIgnoreDifferences=true is an error', async (_name, ignore) => {
    const findings = await doctor({ 'argo.yaml': application(`${ignore}  syncPolicy:\n    syncOptions: [RespectIgnoreDifferences=true]\n`) });
    expect(findings).toEqual([expect.objectContaining({ check: 'argo-ignore-differences', severity: 'error', file: 'argo.yaml', line: 1, fix: expect.stringMatching(/in-place resizes need none/) })]);
  });

  it('ignoreDifferences without RespectIgnoreDifferences only affects diffing, not sync', async () => {
    const findings = await doctor({ 'argo.yaml': application('  ignoreDifferences:\n    - {group: apps, kind: Deployment, jsonPointers: [/spec/template/spec/containers/0/resources]}\n') });
    expect(findings).toEqual([]);
  });

  it('ignoring replicas is fine', async () => {
    const findings = await doctor({ 'argo.yaml': application('  ignoreDifferences:\n    - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}\n  syncPolicy:\n    syncOptions: [RespectIgnoreDifferences=true]\n') });
    expect(findings).toEqual([]);
  });

  const project = (windows: string) => `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default, namespace: argocd}
spec:
  syncWindows:
${windows}`;

  it('Argo CD deny windows covering every maintenance window are an error', async () => {
    const findings = await doctor({
      'policy.yaml': policy(weekendWindow),
      'project.yaml': project('    - {kind: deny, schedule: "0 0 * * 6,0", duration: 24h, timeZone: Europe/Berlin, applications: ["*"]}\n'),
    });
    expect(findings).toEqual([expect.objectContaining({ check: 'argo-sync-windows', file: 'project.yaml', message: expect.stringMatching(/RightsizingPolicy shop\/default/) })]);
  });

  it('allow windows that miss the maintenance windows block them too', async () => {
    const findings = await doctor({
      'policy.yaml': policy(weekendWindow),
      'project.yaml': project('    - {kind: allow, schedule: "0 9 * * 1-5", duration: 8h, applications: ["*"]}\n'),
    });
    expect(findings.map((f) => f.check)).toEqual(['argo-sync-windows']);
  });

  it('a deny window on weekdays leaves a weekend maintenance window alone', async () => {
    const findings = await doctor({
      'policy.yaml': policy(weekendWindow),
      'project.yaml': project('    - {kind: deny, schedule: "0 9 * * 1-5", duration: 8h, applications: ["*"]}\n'),
    });
    expect(findings).toEqual([]);
  });

  it('W3/Z3: invalid windows are reported with policy and index', async () => {
    const findings = await doctor({ 'policy.yaml': policy('    maintenanceWindows:\n      - {schedule: "0 1 * *", duration: 4h}\n    freezeWindows:\n      - {start: "2026-12-24", end: "2026-12-27"}') });
    expect(findings.map((f) => [f.check, f.message])).toEqual([
      ['invalid-window', expect.stringMatching(/RightsizingPolicy shop\/default: spec\.apply\.maintenanceWindows\[0\]\.schedule: "0 1 \* \*" has 4 fields/)],
      ['invalid-window', expect.stringMatching(/RightsizingPolicy shop\/default: spec\.apply\.freezeWindows\[0\]\.start: "2026-12-24" is not an RFC 3339 time/)],
      ['invalid-window', expect.stringMatching(/RightsizingPolicy shop\/default: spec\.apply\.freezeWindows\[0\]\.end: /)],
    ]);
  });

  it('a maintenance window that only opens inside freeze windows is a warning', async () => {
    const findings = await doctor({ 'policy.yaml': policy(`${weekendWindow}\n    freezeWindows:\n      - {schedule: "0 0 * * 6", duration: 24h, timeZone: Europe/Berlin}`) });
    expect(findings).toEqual([expect.objectContaining({ check: 'overlapping-windows', severity: 'warning', message: expect.stringMatching(/maintenanceWindows\[0\] opens only inside freeze windows/) })]);
  });

  it('a recommendation whose target is not in the repo is reported', async () => {
    const findings = await doctor({ 'rec.yaml': 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\nmetadata: {name: ghost, namespace: shop}\nspec: {targetRef: {kind: Deployment, name: ghost}, containers: [{name: app, requests: {cpu: 1}}]}\n' });
    expect(findings).toEqual([expect.objectContaining({ check: 'missing-target', file: 'rec.yaml' })]);
  });

  it.each([
    [{ state: 'missing', branch: 'main' } as const, 'error'],
    [{ state: 'unknown', branch: 'main', detail: 'classic protection needs admin rights' } as const, 'warning'],
  ])('a default branch without a required kerf/window check (%j) is reported', async (protection, severity) => {
    const findings = await doctor({}, protection);
    expect(findings).toEqual([expect.objectContaining({ check: 'branch-protection', severity, fix: expect.stringMatching(/kerf\/window/) })]);
  });

  it('is the validator: every problem with its code, file, line and field, and what it does until fixed', async () => {
    const findings = await doctor({
      'policy.yaml': policy(weekendWindow).replace('  mode: auto-patch', '  mode: auto-patch\n  selectr: {matchLabels: {app: cart}}'),
      'apps/broken.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken\n',
    });
    expect(findings).toEqual([
      expect.objectContaining({ check: 'invalid-input', severity: 'error', code: 'YamlSyntax', file: 'apps/broken.yaml', line: 4 }),
      expect.objectContaining({ check: 'invalid-input', severity: 'error', code: 'UnknownField', file: 'policy.yaml', line: 6, field: 'spec.selectr', fix: expect.stringContaining('InvalidPolicy') }),
    ]);
  });

  it('a policy that matches no workload is a warning', async () => {
    const findings = await doctor({ 'policy.yaml': policy(weekendWindow).replace('  mode: auto-patch', '  mode: auto-patch\n  selector: {matchLabels: {app: kart}}') });
    expect(findings).toEqual([expect.objectContaining({ check: 'policy-matches-nothing', severity: 'warning', file: 'policy.yaml', message: expect.stringContaining('covers no workload') })]);
  });

  it('a missing target names the nearest match: the same workload read into another namespace', async () => {
    const findings = await doctor({
      'infra/postgres/statefulset.yaml': 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: postgres}\nspec: {template: {spec: {containers: [{name: db}]}}}\n',
      'rec.yaml': 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\nmetadata: {name: postgres, namespace: infra}\nspec: {targetRef: {kind: StatefulSet, name: postgres}, containers: [{name: db, requests: {cpu: 1}}]}\n',
    });
    expect(findings).toEqual([
      expect.objectContaining({ check: 'missing-target', code: 'TargetNotFound', message: expect.stringContaining('StatefulSet/postgres is in infra/postgres/statefulset.yaml with no namespace, read as default') }),
    ]);
  });

  it('a missing target written with a namespace says so (the scan does not keep the document: it is read again)', async () => {
    const findings = await doctor({
      'infra/postgres/statefulset.yaml': 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: postgres, namespace: data}\nspec: {template: {spec: {containers: [{name: db}]}}}\n',
      'rec.yaml': 'apiVersion: kerf.getkerf.dev/v1alpha1\nkind: RightsizingRecommendation\nmetadata: {name: postgres, namespace: infra}\nspec: {targetRef: {kind: StatefulSet, name: postgres}, containers: [{name: db, requests: {cpu: 1}}]}\n',
    });
    expect(findings).toEqual([
      expect.objectContaining({ check: 'missing-target', code: 'TargetNotFound', message: expect.stringContaining('StatefulSet/postgres is in infra/postgres/statefulset.yaml in namespace data') }),
    ]);
  });
});
