// The scan holds a workload document as workloadFields until it is indexed: the workload read from
// those fields must be the one read from the whole document.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workloadFields, workloadFromObject } from '../../src/model/workload.js';
import type { Json } from '../../src/util/json.js';

const REF = { namespace: 'shop', name: 'cart' };
const SOURCE = { file: 'apps/cart.yaml', line: 1, document: 0, name: 'cart' };

const read = (text: string): Json => parse(text) as Json;

describe('workloadFields', () => {
  it.each([
    [
      'a Deployment with probes, env values, volumes, a rolling update and a native sidecar',
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cart
  namespace: shop
  labels: {app: cart, tier: web}
  annotations: {team.example.com/owner: platform}
spec:
  replicas: 3
  selector: {matchLabels: {app: cart}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: cart}, annotations: {a: b}}
    spec:
      initContainers:
        - name: proxy
          image: envoy:1
          restartPolicy: Always
          resources: {requests: {cpu: 50m}}
        - name: migrate
          image: migrate:1
      containers:
        - name: app
          image: ghcr.io/example/cart:1
          env:
            - {name: LOG_LEVEL, value: info}
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            - just-a-string
          resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
          readinessProbe: {httpGet: {path: /healthz, port: 8080}}
          resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {memory: 1Gi, cpu: null}}
          volumeMounts: [{name: tmp, mountPath: /tmp}]
        - not-a-container
      volumes: [{name: tmp, emptyDir: {}}]
`,
    ],
    [
      'a StatefulSet with its updateStrategy',
      `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  updateStrategy: {type: OnDelete}
  template:
    spec:
      containers: [{name: db, image: postgres:16, resources: {limits: {memory: 2Gi}}}]
`,
    ],
    ['containers that are not a list', 'kind: DaemonSet\nmetadata: {name: agent}\nspec: {template: {spec: {containers: oops}}}\n'],
    ['a template that is not a mapping', 'kind: DaemonSet\nmetadata: {name: agent, labels: oops}\nspec: {template: oops}\n'],
    ['no spec at all', 'kind: Deployment\nmetadata: {name: bare}\n'],
  ])('%s reads as the same workload', (_, text) => {
    const doc = read(text);
    expect(workloadFromObject(workloadFields(doc), REF, SOURCE)).toEqual(workloadFromObject(doc, REF, SOURCE));
  });

  it('keeps the identity the scan and doctor read, and none of the rest', () => {
    const fields = workloadFields(read('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cart, namespace: shop, uid: x}\nspec:\n  template:\n    spec:\n      containers: [{name: app, readinessProbe: {exec: {command: [true]}}}]\n      volumes: []\n'));
    expect(fields).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cart', namespace: 'shop' }, spec: { template: { spec: { containers: [{ name: 'app' }] } } } });
  });
});
