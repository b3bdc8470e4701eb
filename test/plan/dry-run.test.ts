// plan's dry run places each file's workloads together and lets the file go after; write keeps
// them all. Both must land and refuse the same decisions, whatever order the recommendations come in.
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/plan/run-plan.js';
import { tempRepos } from '../support/temp-repo.js';

const NOW = new Date('2026-12-02T10:00:00Z');
const repoWith = tempRepos('kerf-dry-run-');

const workload = (kind: string, name: string, containers: string) => `apiVersion: apps/v1
kind: ${kind}
metadata: {name: ${name}, namespace: shop}
spec:
  template:
    spec:
      containers:
${containers}`;
const deployment = (name: string, containers: string) => workload('Deployment', name, containers);

const plain = (cpu: string) => `        - name: app
          image: app:1
          resources:
            requests: {cpu: ${cpu}, memory: 128Mi}
`;

// The sidecar's resources are an alias of app's: editing app's would change both, so it is refused.
const shared = `        - name: app
          image: app:1
          resources: &res
            requests: {cpu: 100m, memory: 128Mi}
        - name: proxy
          image: proxy:1
          resources: *res
`;

const POLICY = `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: shop}
spec:
  mode: auto-patch
  apply: {strategy: rollout}
`;

const recommendation = (name: string, kind = 'Deployment') => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: ${name}, namespace: shop}
spec:
  targetRef: {apiVersion: apps/v1, kind: ${kind}, name: ${name}}
  containers:
    - name: app
      requests: {cpu: 300m, memory: 256Mi}
`;

describe("plan's dry run", () => {
  it('lands and refuses what write does, with several workloads (one refused) in one file and recommendations out of order', async () => {
    const repo = await repoWith({
      'apps/shop/web.yaml': [deployment('a', plain('100m')), deployment('b', shared), deployment('c', plain('200m'))].join('---\n'),
      'apps/shop/other.yaml': deployment('d', plain('100m')),
      'apps/shop/policy.yaml': POLICY,
      'apps/shop/recommendations.yaml': ['d', 'c', 'b', 'a'].map((name) => recommendation(name)).join('---\n'),
    });
    const options = { repo, recommendations: [], now: NOW, fleetPaused: false, cwd: repo };
    const planned = await runPlan(options);
    const written = await runPlan(options, { edits: true });

    expect(planned.plan).toEqual(written.plan);
    expect(planned.edits).toEqual([]);
    const landed = planned.plan.decisions.filter((decision) => decision.action === 'pull-request').map((decision) => decision.target.name);
    expect(landed).toEqual(['a', 'c', 'd']);
    expect(planned.plan.errors).toEqual([expect.objectContaining({ code: 'SharedAnchor', object: 'shop/Deployment/b' })]);

    const web = written.edits.find((edit) => edit.path === 'apps/shop/web.yaml');
    expect(written.edits.map((edit) => edit.path).sort()).toEqual(['apps/shop/other.yaml', 'apps/shop/web.yaml']);
    expect(web?.after.match(/requests: \{cpu: 300m, memory: 256Mi\}/g)).toHaveLength(2);
    expect(web?.after).toContain('resources: &res\n            requests: {cpu: 100m, memory: 128Mi}');
  });

  it("reports refusals in the plan's order though it places each file's workloads together", async () => {
    // The plan's order is by kind, then name: x, z (Deployments), then w, y (StatefulSets). The dry
    // run places web.yaml's x and y, then api.yaml's z and w; y and z are refused.
    // Three replicas: a single-replica StatefulSet is held back before its edit is tried.
    const statefulSet = (name: string, containers: string) => workload('StatefulSet', name, containers).replace('spec:\n', 'spec:\n  replicas: 3\n');
    const repo = await repoWith({
      'apps/shop/web.yaml': [workload('Deployment', 'x', plain('100m')), statefulSet('y', shared)].join('---\n'),
      'apps/shop/api.yaml': [workload('Deployment', 'z', shared), statefulSet('w', plain('100m'))].join('---\n'),
      'apps/shop/policy.yaml': POLICY,
      'apps/shop/recommendations.yaml': [recommendation('y', 'StatefulSet'), recommendation('w', 'StatefulSet'), recommendation('x'), recommendation('z')].join('---\n'),
    });
    const options = { repo, recommendations: [], now: NOW, fleetPaused: false, cwd: repo };
    const planned = await runPlan(options);
    const written = await runPlan(options, { edits: true });

    expect(planned.plan).toEqual(written.plan);
    expect(planned.plan.errors.map((error) => error.object)).toEqual(['shop/Deployment/z', 'shop/StatefulSet/y']);
    expect(written.edits.map((edit) => edit.path).sort()).toEqual(['apps/shop/api.yaml', 'apps/shop/web.yaml']);
  });
});
