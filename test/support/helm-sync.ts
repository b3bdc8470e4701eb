// Simulated Helm upgrades for loop tests of Helm workloads: Flux's helm-controller and Argo CD's
// application controller, against the Kubernetes stand-in. The release object is applied from the
// default branch of the bare repo (as a Flux Kustomization or a parent Argo CD Application would),
// its status is written through the status subresource with the fields the real controllers write,
// and the "chart" (`render`) turns the values into the Deployment that the upgrade applies.
import { createHash } from 'node:crypto';
import { CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { runGit } from '../standins/git/run-git.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';
import { applyObject, settleWorkloads } from './gitops-sync.js';

type Values = Record<string, unknown>;
type Json = Record<string, any>;

/** Flux's HelmRelease kind, served with a permissive schema and a status subresource, as the CRD of helm-controller v1 has. */
export const FLUX_HELMRELEASE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'helmreleases.helm.toolkit.fluxcd.io' },
  spec: {
    group: 'helm.toolkit.fluxcd.io',
    scope: 'Namespaced',
    names: { kind: 'HelmRelease', plural: 'helmreleases', singular: 'helmrelease', listKind: 'HelmReleaseList', shortNames: ['hr'] },
    versions: [{ name: 'v2', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** The chart: the workload it renders from the values. */
export type Chart = (values: Values) => KubernetesObject;

/** What a Flux Kustomization or a parent Argo CD Application does after a merge: the object of `file` applied as main holds it. */
export async function applyFromMain(api: KubeApi, input: { bare: string; file: string; kind: string; name: string }): Promise<{ applied: Json; live: Json }> {
  const text = await runGit(['show', `refs/heads/main:${input.file}`], { cwd: input.bare });
  const applied = parseAllDocuments(text).map((document) => document.toJS() as Json).find((doc) => doc?.kind === input.kind && doc.metadata?.name === input.name);
  if (!applied) throw new Error(`${input.file} on main has no ${input.kind} ${input.name}`);
  const live = (await applyObject(KubernetesObjectApi.makeApiClient(api.kubeConfig()), applied as KubernetesObject)) as Json;
  return { applied, live };
}

async function writeStatus(api: KubeApi, object: KubernetesObject, group: string, plural: string, status: Json): Promise<void> {
  const [, version] = (object.apiVersion as string).split('/');
  await api.kubeConfig().makeApiClient(CustomObjectsApi).replaceNamespacedCustomObjectStatus({ group, version: version as string, namespace: object.metadata?.namespace as string, plural, name: object.metadata?.name as string, body: { ...object, status } });
}

const digest = (value: unknown) => `sha256:${createHash('sha256').update(JSON.stringify(value ?? {})).digest('hex')}`;

/**
 * helm-controller after a sync: the HelmRelease of `file` as main holds it is applied, upgraded
 * (a new release version at the front of `status.history`, deployed now) and the chart's workload
 * applied from its spec.values.
 */
export async function fluxHelmUpgrade(api: KubeApi, input: { bare: string; file: string; name: string; chart: Chart; now: Date }): Promise<KubernetesObject> {
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  const { applied: release, live } = await applyFromMain(api, { ...input, kind: 'HelmRelease' });
  const values = (release.spec.values ?? {}) as Values;
  const previous = (live.status?.history ?? []) as Json[];
  const version = (previous[0]?.version ?? 0) + 1;
  const chartVersion = '6.7.0';
  const configDigest = digest(values);
  const now = input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const releaseName = release.spec.releaseName ?? release.metadata.name;
  const namespace = release.metadata.namespace;
  await writeStatus(api, live as KubernetesObject, 'helm.toolkit.fluxcd.io', 'helmreleases', {
    observedGeneration: live.metadata.generation,
    lastAttemptedGeneration: live.metadata.generation,
    lastAttemptedRevision: chartVersion,
    lastAttemptedConfigDigest: configDigest,
    lastAttemptedReleaseAction: version === 1 ? 'install' : 'upgrade',
    storageNamespace: namespace,
    helmChart: `flux-system/${namespace}-${release.metadata.name}`,
    history: [
      { name: releaseName, namespace, version, status: 'deployed', chartName: release.spec.chart?.spec?.chart, chartVersion, configDigest, digest: digest({ releaseName, version, configDigest }), firstDeployed: previous.at(-1)?.firstDeployed ?? now, lastDeployed: now },
      ...previous.map((snapshot) => ({ ...snapshot, status: snapshot.status === 'deployed' ? 'superseded' : snapshot.status })),
    ].slice(0, 5),
    conditions: [
      { type: 'Ready', status: 'True', reason: version === 1 ? 'InstallSucceeded' : 'UpgradeSucceeded', message: `Helm ${version === 1 ? 'install' : 'upgrade'} succeeded for release ${namespace}/${releaseName}.v${version} with chart ${release.spec.chart?.spec?.chart}@${chartVersion}`, lastTransitionTime: now, observedGeneration: live.metadata.generation },
      { type: 'Released', status: 'True', reason: version === 1 ? 'InstallSucceeded' : 'UpgradeSucceeded', message: `Helm ${version === 1 ? 'install' : 'upgrade'} succeeded`, lastTransitionTime: now, observedGeneration: live.metadata.generation },
    ],
  });
  const workload = await applyObject(objects, input.chart(values));
  await settleWorkloads(api);
  return workload;
}

/**
 * Argo CD after a sync of a Helm Application: the Application of `file` as main holds it is
 * applied (as a parent app of apps does), rendered from its helm values (valuesObject, or the
 * `values` string) of `source`, the workload applied, and the status written as the application
 * controller writes it: Synced, comparedTo the spec it rendered, the chart's revision(s).
 */
export async function argoHelmSync(api: KubeApi, input: { bare: string; file: string; name: string; chart: Chart; now: Date; source?: number }): Promise<KubernetesObject> {
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  const { applied: application, live } = await applyFromMain(api, { ...input, kind: 'Application' });
  const source = (input.source === undefined ? application.spec.source : application.spec.sources[input.source]) as Json;
  const values = (source.helm?.valuesObject ?? (typeof source.helm?.values === 'string' ? parse(source.helm.values) : {})) as Values;
  const workload = await applyObject(objects, input.chart(values));
  await settleWorkloads(api);
  const now = input.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const multi = Array.isArray(application.spec.sources);
  const revisionOf = (s: Json) => s.targetRevision ?? '0123456789abcdef0123456789abcdef01234567';
  const revision = multi ? { revisions: application.spec.sources.map(revisionOf) } : { revision: revisionOf(application.spec.source) };
  const compared = multi ? { sources: application.spec.sources } : { source: application.spec.source };
  const previous = (live.status?.history ?? []) as Json[];
  await writeStatus(api, live as KubernetesObject, 'argoproj.io', 'applications', {
    sync: { status: 'Synced', comparedTo: { ...compared, destination: application.spec.destination }, ...revision },
    health: { status: 'Healthy' },
    sourceType: 'Helm',
    reconciledAt: now,
    resources: [{ group: 'apps', version: 'v1', kind: workload.kind, namespace: workload.metadata?.namespace, name: workload.metadata?.name, status: 'Synced', health: { status: 'Healthy' } }],
    operationState: { phase: 'Succeeded', message: 'successfully synced (all tasks run)', startedAt: now, finishedAt: now, syncResult: { ...revision, ...compared } },
    history: [...previous, { id: previous.length, deployedAt: now, deployStartedAt: now, ...revision, ...compared }],
  });
  return workload;
}

/** A Deployment as a chart renders it: Helm's labels, one container whose resources come from `resources`. */
export function renderedDeployment(input: { namespace: string; name: string; container: string; release: string; replicas: unknown; resources: unknown; labels?: Record<string, string>; annotations?: Record<string, string> }): KubernetesObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: input.name, namespace: input.namespace, labels: { 'app.kubernetes.io/instance': input.release, 'app.kubernetes.io/managed-by': 'Helm', ...input.labels }, annotations: input.annotations ?? {} },
    spec: {
      replicas: typeof input.replicas === 'number' ? input.replicas : 1,
      selector: { matchLabels: { 'app.kubernetes.io/name': input.name } },
      template: { metadata: { labels: { 'app.kubernetes.io/name': input.name } }, spec: { containers: [{ name: input.container, image: `example/${input.container}:1.0`, resources: input.resources ?? {} }] } },
    },
  } as KubernetesObject;
}
