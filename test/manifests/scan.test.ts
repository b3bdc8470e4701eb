import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../src/model/validate.js';
import { scanRepo } from '../../src/plan/inputs.js';
import { corpusDir as corpus, hasCorpus } from '../support/corpus.js';
import { tempRepos } from '../support/temp-repo.js';

const repoWith = tempRepos('kerf-scan-');

describe('scan', () => {
  it('indexes workloads, PDBs, HPAs and policies of multi-document files', async () => {
    const root = await repoWith({
      'apps/cart.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop, labels: {app: cart}}
spec:
  replicas: 2
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: "0%"}}
  template:
    metadata: {labels: {app: cart}}
    spec:
      initContainers:
        - {name: migrate, image: x}
        - {name: proxy, image: envoy, restartPolicy: Always, resources: {requests: {cpu: 10m}}}
      containers:
        - name: app
          image: eclipse-temurin:21
          env: [{name: JAVA_OPTS, value: -Xmx1g}]
          resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]
          resources: {requests: {cpu: 0.5, memory: 1Gi, nvidia.com/gpu: 1}, limits: {memory: 2Gi}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: cart, namespace: shop}
spec: {minAvailable: 50%, selector: {matchLabels: {app: cart}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: cart, namespace: shop}
spec: {scaleTargetRef: {kind: Deployment, name: cart}, minReplicas: 2, maxReplicas: 5}
`,
      'node_modules/ignored.yaml': 'kind: Deployment\nmetadata: {name: ignored}\n',
      '.git/ignored.yaml': 'kind: Deployment\nmetadata: {name: ignored}\n',
    });
    const index = await scanRepo(root, CONFIG_DEFAULTS);
    expect(index.errors).toEqual([]);
    expect([...index.workloads.keys()]).toEqual(['shop/Deployment/cart']);
    expect(index.workloads.get('shop/Deployment/cart')).toMatchObject({
      replicas: 2,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '0%' } },
      containers: [
        { name: 'app', init: false, envNames: ['JAVA_OPTS'], requests: { cpu: '0.5', memory: '1Gi', 'nvidia.com/gpu': '1' }, limits: { memory: '2Gi' } },
        { name: 'proxy', init: true, requests: { cpu: '10m' } },
      ],
      source: { file: 'apps/cart.yaml', line: 1, document: 0 },
    });
    expect(index.pdbs).toMatchObject([{ minAvailable: '50%', selector: { matchLabels: { app: 'cart' } } }]);
    expect(index.hpas).toMatchObject([{ target: { kind: 'Deployment', name: 'cart' }, minReplicas: 2 }]);
  });

  it('a file that does not parse is an error entry and the scan goes on', async () => {
    const root = await repoWith({
      'a/broken.yaml': 'kind: Deployment\nmetadata: {name: [unclosed\n',
      'b/ok.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ok}\nspec: {template: {spec: {containers: [{name: a}]}}}\n',
    });
    const index = await scanRepo(root, CONFIG_DEFAULTS);
    expect(index.errors).toHaveLength(1);
    expect(index.errors[0]).toMatchObject({ file: 'a/broken.yaml' });
    expect(index.errors[0]?.message).toMatch(/^a\/broken\.yaml:\d+: /);
    expect([...index.workloads.keys()]).toEqual(['default/Deployment/ok']);
  });

  it('the same identity defined twice is an error naming both files', async () => {
    const doc = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: twin}\nspec: {}\n';
    const index = await scanRepo(await repoWith({ 'a.yaml': doc, 'b.yaml': doc }), CONFIG_DEFAULTS);
    expect(index.errors.map((e) => e.message)).toEqual([expect.stringMatching(/Deployment default\/twin is defined in a\.yaml and b\.yaml/)]);
  });

  it('`paths` narrows the scan', async () => {
    const doc = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: twin}\nspec: {}\n';
    const index = await scanRepo(await repoWith({ 'eu/a.yaml': doc, 'us/a.yaml': doc }), { ...CONFIG_DEFAULTS, paths: ['eu'] });
    expect(index.errors).toEqual([]);
    expect(index.workloads.get('default/Deployment/twin')?.source.file).toBe('eu/a.yaml');
  });

  it.skipIf(!hasCorpus)('indexes the real-world corpus (needs ../shared/corpus): every Deployment, StatefulSet and DaemonSet of plain manifests', async () => {
    const index = await scanRepo(join(corpus, 'kubernetes__examples'), CONFIG_DEFAULTS);
    const kinds = [...index.workloads.values()].map((w) => w.ref.kind);
    expect(kinds.filter((k) => k === 'StatefulSet')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'DaemonSet')).toHaveLength(1);
    expect(index.pdbs.map((p) => p.minAvailable)).toContain('67%');
    expect(index.hpas).toHaveLength(1);
  });

  it.skipIf(!hasCorpus)('indexes the whole corpus (needs ../shared/corpus) without throwing, reporting duplicates as errors', async () => {
    const index = await scanRepo(corpus, CONFIG_DEFAULTS);
    // The corpus holds copies of one repo at two commits: their identities collide and are held back, by name.
    expect(index.workloads.size + index.conflicts.size).toBeGreaterThan(80);
    for (const error of index.errors) expect(error.message).toMatch(/defined twice in root|is (rendered by|defined in) .* and |:\d+: /);
  });
});
