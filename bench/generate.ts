// A generated repo shaped like a real fleet's: multi-document files of Deployments, StatefulSets
// and DaemonSets, each with its Service and ConfigMap and comments; one namespace in ten rendered
// by a kustomize overlay over a base that two overlays share; each namespace with a policy
// holding maintenance and freeze windows, and one recommendation per workload.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface GeneratedRepo {
  workloads: number;
  files: number;
  documents: number;
  bytes: number;
}

export interface RepoShape {
  namespaces: number;
  perNamespace: number;
  /** Workloads per file (with their Services and ConfigMaps); all of a namespace's by default. */
  perFile?: number;
  /** One namespace in this many is a kustomize overlay over a shared base (0: none). */
  kustomizeEvery?: number;
}

const KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;
const kindOf = (i: number) => KINDS[i % 7 === 0 ? 2 : i % 5 === 0 ? 1 : 0] as (typeof KINDS)[number];

function workload(namespace: string | undefined, name: string, i: number): string {
  const kind = kindOf(i);
  const ns = namespace === undefined ? '' : `\n  namespace: ${namespace}`;
  const replicas = kind === 'DaemonSet' ? '' : `\n  replicas: ${1 + (i % 4)}`;
  const serviceName = kind === 'StatefulSet' ? `\n  serviceName: ${name}` : '';
  return `# ${name}: ${kind === 'DaemonSet' ? 'runs on every node' : 'serves the team API'}; owned by the team, resources by kerf
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: ${name}${ns}
  labels:
    app.kubernetes.io/name: ${name}
    app.kubernetes.io/part-of: shop
    tier: ${i % 3 === 0 ? 'batch' : 'web'}
  annotations:
    team.example.com/owner: "platform-${i % 17}"
spec:${replicas}${serviceName}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${name}
        tier: ${i % 3 === 0 ? 'batch' : 'web'}
    spec:
      serviceAccountName: ${name}
      securityContext:
        runAsNonRoot: true
        fsGroup: 2000
      containers:
        - name: app
          image: ghcr.io/example/${name}:1.${i % 50}.${i % 7}
          args: ["--port=8080", "--log-format=json"]
          ports:
            - name: http
              containerPort: 8080
          envFrom:
            - configMapRef:
                name: ${name}-config
          env:
            - name: LOG_LEVEL
              value: info # raised to debug while on call
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
          livenessProbe:
            httpGet:
              path: /livez
              port: http
            initialDelaySeconds: 15
          resources:
            requests:
              cpu: ${100 + (i % 9) * 50}m
              memory: ${128 * (1 + (i % 8))}Mi
            limits:
              memory: ${256 * (1 + (i % 8))}Mi
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir: {}
`;
}

function service(namespace: string | undefined, name: string): string {
  const ns = namespace === undefined ? '' : `\n  namespace: ${namespace}`;
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}${ns}
  labels:
    app.kubernetes.io/name: ${name}
spec:
  selector:
    app.kubernetes.io/name: ${name}
  ports:
    - name: http
      port: 80
      targetPort: http
`;
}

function configMap(namespace: string | undefined, name: string, i: number): string {
  const ns = namespace === undefined ? '' : `\n  namespace: ${namespace}`;
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-config${ns}
data:
  FEATURE_FLAGS: "checkout-v2,search-${i % 4}"
  UPSTREAM_URL: http://upstream-${i % 10}.svc.cluster.local
  settings.yaml: |
    # read at start
    cache:
      ttl: ${30 + (i % 5) * 10}s
      size: ${64 * (1 + (i % 3))}
`;
}

function policy(namespace: string, n: number): string {
  const strategy = ['rollout', 'in-place', 'deferred'][n % 3];
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
  targetRef: {apiVersion: apps/v1, kind: ${kindOf(i)}, name: ${name}}
  containers:
    - name: app
      requests: {cpu: ${50 + (i % 7) * 40}m, memory: ${96 * (1 + (i % 6))}Mi}
      limits: {memory: ${192 * (1 + (i % 6))}Mi}
`;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Writes the repo under `root`; the same shape gives the same bytes. */
export async function generateRepo(root: string, shape: RepoShape): Promise<GeneratedRepo> {
  const { namespaces, perNamespace } = shape;
  const perFile = shape.perFile ?? perNamespace;
  const every = shape.kustomizeEvery ?? 10;
  const width = String(perNamespace - 1).length;
  const totals = { files: 0, documents: 0, bytes: 0 };
  const put = async (path: string, text: string, documents: number) => {
    await writeFile(path, text);
    totals.files++;
    totals.documents += documents;
    totals.bytes += Buffer.byteLength(text);
  };
  const writtenBases = new Set<string>();
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${pad(n, 3)}`;
    // Two overlays in a row share one base: overlay n renders base ⌊n / every⌋ into its namespace.
    const kustomized = every > 0 && n % every < 2;
    const base = `base-${pad(Math.floor(n / Math.max(every, 1)), 3)}`;
    const dir = kustomized ? join(root, 'overlays', namespace) : join(root, 'apps', namespace);
    await mkdir(dir, { recursive: true });
    await put(join(dir, 'policy.yaml'), policy(namespace, n), 1);
    const names = Array.from({ length: perNamespace }, (_, i) => `svc-${pad(i, width)}`);
    const files: string[] = [];
    if (!kustomized || !writtenBases.has(base)) {
      const target = kustomized ? join(root, 'bases', base) : dir;
      await mkdir(target, { recursive: true });
      for (let first = 0; first < perNamespace; first += perFile) {
        const chunk = names.slice(first, first + perFile);
        const docs = chunk.flatMap((name, k) => {
          const i = n * perNamespace + first + k;
          const ns = kustomized ? undefined : namespace;
          return [workload(ns, name, i), service(ns, name), configMap(ns, name, i)];
        });
        const file = `workloads-${pad(first / perFile, 3)}.yaml`;
        files.push(file);
        await put(join(target, file), docs.join('---\n'), docs.length);
      }
      if (kustomized) {
        writtenBases.add(base);
        await put(join(target, 'kustomization.yaml'), `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${files.map((file) => `  - ${file}\n`).join('')}`, 1);
      }
    }
    const recommendations = names.map((name, i) => recommendation(namespace, name, kustomized ? Math.floor(n / every) * every * perNamespace + i : n * perNamespace + i));
    await put(join(dir, 'recommendations.yaml'), recommendations.join('---\n'), recommendations.length);
    if (kustomized) {
      const kustomization = `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${namespace}\nresources:\n  - ../../bases/${base}\n  - policy.yaml\n  - recommendations.yaml\n`;
      await put(join(dir, 'kustomization.yaml'), kustomization, 1);
    }
  }
  return { workloads: namespaces * perNamespace, ...totals };
}
