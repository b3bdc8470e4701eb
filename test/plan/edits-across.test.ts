// planEditsAcross hands the files only their own workloads' decisions edit to workers and places
// the rest itself; plan and write must come out exactly as when one thread places everything.
// The "workers" here are a structured-clone round trip, as a worker thread's messages are.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateRepo } from '../../bench/generate.js';
import { editSeparateFile, type SeparateFileJob, type SeparateFileResult } from '../../src/plan/edits.js';
import { loadConfig, scanRepo } from '../../src/plan/inputs.js';
import { makePlanWithEdits, makePlanWithEditsAcross, type PlanInput } from '../../src/plan/plan.js';

const NOW = new Date('2026-12-02T10:00:00Z');
let root = '';
afterEach(() => rm(root, { recursive: true, force: true }));

// Two workloads whose edits are refused, beside one that lands, in a file of their own.
const REFUSED = `apiVersion: apps/v1
kind: Deployment
metadata: {name: shared, namespace: team-002}
spec:
  template:
    spec:
      containers:
        - name: app
          resources: &res
            requests: {cpu: 100m, memory: 128Mi}
        - name: proxy
          resources: *res
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: plain, namespace: team-002}
spec:
  template:
    spec:
      containers:
        - name: app
          resources:
            requests: {cpu: 100m, memory: 128Mi}
`;
const recommendation = (name: string) => `---
apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: ${name}, namespace: team-002}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: ${name}}
  containers:
    - name: app
      requests: {cpu: 300m, memory: 256Mi}
`;

async function planInput(): Promise<PlanInput> {
  root = await mkdtemp(join(tmpdir(), 'kerf-edits-across-'));
  // One namespace in three a kustomize overlay (its files stay with this thread), the rest plain files of three workloads.
  await generateRepo(root, { namespaces: 6, perNamespace: 9, perFile: 3, kustomizeEvery: 3 });
  await writeFile(join(root, 'apps/team-002/refused.yaml'), REFUSED + recommendation('shared') + recommendation('plain'));
  const { config } = await loadConfig(root, undefined);
  const index = await scanRepo(root, config);
  return { index, recommendations: index.recommendations, config, fleetPaused: false, now: NOW };
}

/** Each job through a structured clone, both ways, as to a worker thread and back; the jobs are kept for the test to look at. */
function cloningRun(jobs: SeparateFileJob[][]): (sent: SeparateFileJob[]) => Promise<SeparateFileResult[]> {
  return async (sent) => {
    jobs.push(sent);
    return sent.map((job) => structuredClone(editSeparateFile(structuredClone(job))));
  };
}

describe('planEditsAcross', () => {
  it('writes the same files, lands and refuses the same decisions as one thread does', async () => {
    const input = await planInput();
    const sent: SeparateFileJob[][] = [];
    const across = await makePlanWithEditsAcross(input, cloningRun(sent), 0);
    const alone = makePlanWithEdits(input);

    expect(across).toEqual(alone);
    expect(across.edits.map((edit) => edit.path)).toEqual(alone.edits.map((edit) => edit.path));
    // Some files went to the workers, and some (kustomize's) stayed.
    const away = new Set(sent.flat().map((job) => job.path));
    expect(away.has('apps/team-002/refused.yaml')).toBe(true);
    expect(alone.edits.some((edit) => !away.has(edit.path))).toBe(true);
    expect(alone.plan.errors).toEqual([expect.objectContaining({ code: 'SharedAnchor', object: 'team-002/Deployment/shared' })]);
    expect(alone.plan.decisions.find((decision) => decision.target.name === 'plain')?.action).toBe('pull-request');
  });

  it('places everything itself below the fewest decisions worth the workers', async () => {
    const input = await planInput();
    const sent: SeparateFileJob[][] = [];
    await makePlanWithEditsAcross(input, cloningRun(sent), 10_000);
    expect(sent).toEqual([]);
  });
});
