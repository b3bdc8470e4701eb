// Golden edits of Helm values: only the mapped CPU/memory fields change, byte for byte.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { editHelmValues } from '../../src/manifests/helm/values-edit.js';
import { EditError } from '../../src/manifests/edit-error.js';
import type { HelmValuesSource } from '../../src/model/types.js';

const source = (over: Partial<HelmValuesSource>): HelmValuesSource => ({ owner: 'HelmRelease podinfo/podinfo', file: 'f.yaml', document: 0, valuesPath: [], embedded: false, containers: {}, entry: 0, fingerprint: 'sha256:0', ...over });

// Shaped like fluxcd/flux2-kustomize-helm-example apps/base/podinfo/release.yaml.
const HELM_RELEASE = `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  releaseName: podinfo
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
  interval: 50m
  install:
    remediation:
      retries: 3
  # Default values
  # https://github.com/stefanprodan/podinfo/blob/master/charts/podinfo/values.yaml
  values:
    redis:
      enabled: true
      repository: public.ecr.aws/docker/library/redis
      tag: 7.0.6
    ingress:
      enabled: true
      className: nginx
    resources:
      requests:
        cpu: 100m   # keep
        memory: "64Mi"
`;

describe('HelmRelease spec.values', () => {
  it('changes only the mapped fields, inserting limits in the file style', () => {
    const after = editHelmValues(HELM_RELEASE, source({ valuesPath: ['spec', 'values'], containers: { podinfo: ['resources'] } }), [
      { container: 'podinfo', field: 'requests.cpu', to: '250m' },
      { container: 'podinfo', field: 'requests.memory', to: '128Mi' },
      { container: 'podinfo', field: 'limits.memory', to: '256Mi' },
    ]);
    expect(after).toBe(
      HELM_RELEASE.replace('cpu: 100m   # keep', 'cpu: 250m   # keep').replace('memory: "64Mi"\n', 'memory: "128Mi"\n      limits:\n        memory: 256Mi\n'),
    );
    const values = (parseAllDocuments(after)[0]?.toJS() as { spec: { values: Record<string, unknown> } }).spec.values;
    expect(values.resources).toEqual({ requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '256Mi' } });
  });

  it('inserts a missing resources block under a bjw-s app-template container', () => {
    const text = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: echo
spec:
  values:
    controllers:
      main:
        strategy: RollingUpdate
        containers:
          app:
            image:
              repository: ghcr.io/mendhak/http-https-echo
              tag: 35
    service:
      app:
        controller: main
`;
    const after = editHelmValues(text, source({ valuesPath: ['spec', 'values'], containers: { app: ['controllers', 'main', 'containers', 'app', 'resources'] } }), [
      { container: 'app', field: 'requests.cpu', to: '10m' },
    ]);
    expect(after).toBe(text.replace('              tag: 35\n', '              tag: 35\n            resources:\n              requests:\n                cpu: 10m\n'));
  });

  it('refuses a path that is not in the values, leaving the text alone', () => {
    const edit = () =>
      editHelmValues(HELM_RELEASE, source({ valuesPath: ['spec', 'values'], containers: { app: ['web', 'resources'] } }), [{ container: 'app', field: 'requests.cpu', to: '1' }]);
    expect(edit).toThrow(EditError);
    expect(edit).toThrow(/HelmRelease podinfo\/podinfo container "app".*no mapping at spec\.values\.web/);
  });
});

// Shaped like argoproj/argocd-example-apps helm-guestbook with Argo's helm.valuesObject / helm.values.
const APPLICATION = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: guestbook
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/argoproj/argocd-example-apps.git
    targetRevision: HEAD
    path: helm-guestbook
    helm:
      valuesObject:
        replicaCount: 2
        resources: {limits: {cpu: 500m, memory: 512Mi}, requests: {cpu: 100m, memory: 128Mi}}
  destination:
    server: https://kubernetes.default.svc
    namespace: guestbook
`;

describe('Argo CD Application', () => {
  it('edits helm.valuesObject, flow style kept', () => {
    const after = editHelmValues(APPLICATION, source({ valuesPath: ['spec', 'source', 'helm', 'valuesObject'], containers: { guestbook: ['resources'] } }), [
      { container: 'guestbook', field: 'limits.memory', to: '256Mi' },
      { container: 'guestbook', field: 'requests.memory', to: '200Mi' },
    ]);
    expect(after).toBe(APPLICATION.replace('memory: 512Mi', 'memory: 256Mi').replace('memory: 128Mi', 'memory: 200Mi'));
  });

  const EMBEDDED = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ingress-nginx
  namespace: argocd
spec:
  sources:
    - repoURL: https://kubernetes.github.io/ingress-nginx
      chart: ingress-nginx
      targetRevision: 4.11.3
      helm:
        releaseName: ingress-nginx
        values: |
          controller:
            replicaCount: 2

            # sized from last quarter's peak
            resources:
              requests:
                cpu: 100m
                memory: 90Mi
          defaultBackend:
            enabled: false
  destination:
    namespace: ingress-nginx
`;

  it('edits an embedded values string as YAML and keeps the block', () => {
    const src = source({ valuesPath: ['spec', 'sources', '0', 'helm', 'values'], embedded: true, containers: { controller: ['controller', 'resources'] } });
    const after = editHelmValues(EMBEDDED, src, [
      { container: 'controller', field: 'requests.memory', to: '180Mi' },
      { container: 'controller', field: 'limits.memory', to: '300Mi' },
    ]);
    expect(after).toBe(EMBEDDED.replace('                memory: 90Mi\n', '                memory: 180Mi\n              limits:\n                memory: 300Mi\n'));
    const inner = parseAllDocuments(after)[0]?.getIn(['spec', 'sources', 0, 'helm', 'values']) as string;
    expect(parseAllDocuments(inner)[0]?.toJS().controller.resources).toEqual({ requests: { cpu: '100m', memory: '180Mi' }, limits: { memory: '300Mi' } });
  });

  it.each([
    ['|- with more after', 'spec:\n  values: |-\n    resources:\n      requests:\n        memory: 90Mi\n  other: 1\n', 'spec:\n  values: |-\n    resources:\n      requests:\n        memory: 100Mi\n      limits:\n        memory: 200Mi\n  other: 1\n'],
    ['|- at the end of a file without a last newline', 'spec:\n  values: |-\n    resources:\n      requests:\n        memory: 90Mi', 'spec:\n  values: |-\n    resources:\n      requests:\n        memory: 100Mi\n      limits:\n        memory: 200Mi'],
    ['|+ with a kept blank line', 'spec:\n  values: |+\n    resources:\n      requests:\n        memory: 90Mi\n\n  other: 1\n', 'spec:\n  values: |+\n    resources:\n      requests:\n        memory: 100Mi\n      limits:\n        memory: 200Mi\n\n  other: 1\n'],
    ['CRLF', 'spec:\r\n  values: |\r\n    resources:\r\n      requests:\r\n        memory: 90Mi\r\n  other: 1\r\n', 'spec:\r\n  values: |\r\n    resources:\r\n      requests:\r\n        memory: 100Mi\r\n      limits:\r\n        memory: 200Mi\r\n  other: 1\r\n'],
    ['| with lines added under its last key', 'spec:\n  values: |\n    other: 1\n    a:\n      enabled: false\n  more: 1\n', 'spec:\n  values: |\n    other: 1\n    a:\n      enabled: false\n      resources:\n        requests:\n          memory: 100Mi\n        limits:\n          memory: 200Mi\n  more: 1\n', ['a', 'resources']],
    ['|- with lines added under its last key at the end of a file', 'spec:\n  values: |-\n    a:\n      enabled: false', 'spec:\n  values: |-\n    a:\n      enabled: false\n      resources:\n        requests:\n          memory: 100Mi\n        limits:\n          memory: 200Mi', ['a', 'resources']],
  ])('keeps the block header and its surroundings: %s', (_, text, expected, path = ['resources']) => {
    const src = source({ valuesPath: ['spec', 'values'], embedded: true, containers: { a: path } });
    expect(editHelmValues(text, src, [{ container: 'a', field: 'requests.memory', to: '100Mi' }, { container: 'a', field: 'limits.memory', to: '200Mi' }])).toBe(expected);
  });

  it('refuses a quoted embedded string rather than re-escape it', () => {
    const text = 'kind: Application\nmetadata:\n  name: a\nspec:\n  source:\n    helm:\n      values: "resources:\\n  requests:\\n    cpu: 1\\n"\n';
    expect(() => editHelmValues(text, source({ valuesPath: ['spec', 'source', 'helm', 'values'], embedded: true, containers: { a: ['resources'] } }), [{ container: 'a', field: 'requests.cpu', to: '2' }])).toThrow(
      /only in a `\|` block/,
    );
  });
});

describe('plain values file', () => {
  it('edits a values file (an Application valueFiles entry) at the top level, CRLF kept', () => {
    const text = '# values-prod.yaml\r\nreplicaCount: 3\r\nresources:\r\n  limits:\r\n    cpu: "1"\r\nnodeSelector: {}\r\n';
    const after = editHelmValues(text, source({ containers: { app: ['resources'] } }), [{ container: 'app', field: 'limits.cpu', to: '500m' }, { container: 'app', field: 'requests.cpu', to: '200m' }]);
    expect(after).toBe('# values-prod.yaml\r\nreplicaCount: 3\r\nresources:\r\n  limits:\r\n    cpu: "500m"\r\n  requests:\r\n    cpu: "200m"\r\nnodeSelector: {}\r\n');
  });

  it('refuses a request above the limit', () => {
    const text = 'resources:\n  limits:\n    cpu: 500m\n';
    expect(() => editHelmValues(text, source({ containers: { app: ['resources'] } }), [{ container: 'app', field: 'requests.cpu', to: '1' }])).toThrow(/above limit/);
  });
});
