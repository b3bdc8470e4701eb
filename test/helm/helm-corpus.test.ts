// The real fluxcd/flux2-kustomize-helm-example: its production overlay patches the HelmRelease's
// values; a helm: entry pointing at that patch gets production's resources, base untouched.
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { planEdits } from '../../src/plan/edits.js';
import { runPlan } from '../../src/plan/run-plan.js';
import { corpusDir, hasCorpus } from '../support/corpus.js';

const repoDir = join(corpusDir, 'fluxcd__flux2-kustomize-helm-example');
let repo = '';
afterEach(() => rm(repo, { recursive: true, force: true }));

describe.skipIf(!hasCorpus)('fluxcd/flux2-kustomize-helm-example', () => {
  it('maps podinfo to the production values patch and edits only it', async () => {
    repo = await mkdtemp(join(tmpdir(), 'kerf-flux-helm-'));
    await cp(repoDir, repo, { recursive: true });
    await mkdir(join(repo, '.kerf'));
    await writeFile(join(repo, '.kerf/config.yaml'), 'helm:\n  - workload: {namespace: podinfo, kind: Deployment, name: podinfo}\n    helmRelease: {file: apps/production/podinfo-values.yaml, name: podinfo}\n    containers: {podinfo: resources}\n');
    await writeFile(
      join(repo, 'kerf.yaml'),
      `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: podinfo}
spec: {mode: auto-patch, apply: {strategy: rollout}}
---
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: podinfo, namespace: podinfo}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: podinfo}
  containers: [{name: podinfo, requests: {cpu: 50m, memory: 96Mi}, limits: {memory: 192Mi}}]
`,
    );
    const { plan, index } = await runPlan({ repo, recommendations: [], now: new Date('2026-12-02T10:00:00Z'), fleetPaused: false, cwd: process.cwd() });
    expect(plan.errors).toEqual([]);
    const { edits, errors } = planEdits(index, plan.decisions);
    expect(errors).toEqual([]);
    expect(edits.map((edit) => edit.path)).toEqual(['apps/production/podinfo-values.yaml']);
    const [edit] = edits;
    expect(edit?.after).toBe(`${edit?.before}    resources:\n      requests:\n        cpu: 50m\n        memory: 96Mi\n      limits:\n        memory: 192Mi\n`);
    expect((parseDocument(edit?.after ?? '').toJS() as { spec: { values: { httpRoute: unknown } } }).spec.values.httpRoute).toEqual({ hostnames: ['podinfo.production'] });
  });
});
