// A generated repo for benchmarks: namespaces × workloads, each namespace with a policy holding
// maintenance and freeze windows, and one recommendation per workload.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface GeneratedRepo {
  workloads: number;
  files: number;
}

function deployment(namespace: string, name: string, i: number): string {
  return `# ${name}: generated for the benchmark
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
  labels:
    app: ${name}
    tier: ${i % 3 === 0 ? 'batch' : 'web'}
spec:
  replicas: ${1 + (i % 4)}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/${name}:1.${i}.0
          ports:
            - containerPort: 8080
          env:
            - name: LOG_LEVEL
              value: info
          resources:
            requests:
              cpu: ${100 + (i % 9) * 50}m
              memory: ${128 * (1 + (i % 8))}Mi
            limits:
              memory: ${256 * (1 + (i % 8))}Mi
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  selector:
    app: ${name}
  ports:
    - port: 80
      targetPort: 8080
`;
}

function policy(namespace: string, n: number): string {
  const strategy = ['in-place', 'rollout', 'deferred'][n % 3];
  return `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata:
  name: default
  namespace: ${namespace}
spec:
  mode: auto-patch
  apply:
    strategy: ${strategy}
    maintenanceWindows:
      - schedule: "0 1 * * 6"
        duration: 4h
        timeZone: Europe/Berlin
      - schedule: "30 2 * * 2"
        duration: 90m
        timeZone: America/New_York
    freezeWindows:
      - start: "2026-12-21T00:00:00+01:00"
        end: "2027-01-04T00:00:00+01:00"
      - schedule: "0 8 * * 1-5"
        duration: 1h
        timeZone: Asia/Tokyo
`;
}

function recommendation(namespace: string, name: string, i: number): string {
  return `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: ${name}}
  containers:
    - name: app
      requests: {cpu: ${50 + (i % 7) * 40}m, memory: ${96 * (1 + (i % 6))}Mi}
      limits: {memory: ${192 * (1 + (i % 6))}Mi}
`;
}

export async function generateRepo(root: string, namespaces: number, perNamespace: number): Promise<GeneratedRepo> {
  let files = 0;
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${String(n).padStart(2, '0')}`;
    const dir = join(root, 'apps', namespace);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'policy.yaml'), policy(namespace, n));
    const recommendations: string[] = [];
    for (let i = 0; i < perNamespace; i++) {
      const name = `svc-${String(i).padStart(3, '0')}`;
      await writeFile(join(dir, `${name}.yaml`), deployment(namespace, name, i));
      recommendations.push(recommendation(namespace, name, i));
    }
    await writeFile(join(dir, 'recommendations.yaml'), recommendations.join('---\n'));
    files += perNamespace + 2;
  }
  return { workloads: namespaces * perNamespace, files };
}
