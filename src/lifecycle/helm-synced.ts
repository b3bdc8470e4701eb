// Merged and synced (G5) for a Helm workload. kerf edits values, not the rendered Deployment, so
// the merge has reached the cluster once the release that renders the workload took the merged
// values: Flux's helm-controller upgraded the HelmRelease (its `status.history`) after the merge,
// or Argo CD synced the Application to its merged spec. Only then does a live template without the
// values say something: the values kerf edited are not the ones the chart sets these resources from.
import type { HelmValuesSource, RightsizingRecommendation } from '../model/types.js';
import type { ClusterState } from '../cluster/cluster-reader.js';
import type { KubeObject } from '../cluster/objects.js';
import { canonicalJson, isObject } from '../util/json.js';
import { parseEmbeddedValues, valueAt } from '../manifests/helm/values-edit.js';
import { applicationOf, holdsMerge, kustomizationOf, notSynced, templateDifference } from './merged.js';
import type { RevisionPort } from '../git/git-history.js';

export type HelmSync =
  /** The release took the merged values; `release` says which and how, for messages. */
  | { synced: true; release: string }
  | { synced: false; waitingFor: string };

export interface HelmSyncInput {
  source: HelmValuesSource;
  workload: { namespace: string; kind: string; name: string };
  recommendation: RightsizingRecommendation;
  state: Pick<ClusterState, 'applications' | 'kustomizations' | 'helmReleases'>;
  mergeCommit: string;
  /** RFC 3339, from the pull request. */
  mergedAt: string | null;
  revisions: RevisionPort;
}

/**
 * Whether the release rendering a Helm workload has taken the merged values; undefined when no
 * release in the cluster is known to render it (a values file no Argo CD Application lists), so
 * the caller waits for the live template alone and gives no verdict on the mapping.
 */
export async function helmReleaseSynced(input: HelmSyncInput): Promise<HelmSync | undefined> {
  const { source, state, workload } = input;
  const { release } = source;
  if (!release) {
    const app = applicationOf(state, workload);
    return app ? argoSynced(input, app) : undefined;
  }
  const live = liveObject(release.kind === 'HelmRelease' ? state.helmReleases : state.applications, release);
  const kind = release.kind === 'HelmRelease' ? 'HelmRelease' : 'Argo CD Application';
  if (!live) {
    const waitingFor = release.namespace === undefined ? `no single ${kind} named ${release.name} is in the cluster (its file names no namespace)` : `${kind} ${release.namespace}/${release.name} is not in the cluster`;
    return { synced: false, waitingFor };
  }
  return release.kind === 'HelmRelease' ? fluxSynced(input, live) : argoSynced(input, live);
}

/** The release's live object: by namespace and name, or, where its file names no namespace, the only one of that name. */
function liveObject(objects: readonly KubeObject[], release: NonNullable<HelmValuesSource['release']>): KubeObject | undefined {
  const named = objects.filter((object) => object.metadata.name === release.name);
  if (release.namespace === undefined) return named.length === 1 ? named[0] : undefined;
  return named.find((object) => (object.metadata.namespace ?? 'default') === release.namespace);
}

async function fluxSynced(input: HelmSyncInput, live: KubeObject): Promise<HelmSync> {
  const { source, mergeCommit, mergedAt } = input;
  const namespace = live.metadata.namespace ?? 'default';
  const name = `HelmRelease ${namespace}/${live.metadata.name}`;
  if (source.valuesFrom) {
    // The edit is in a ConfigMap or Secret (Flux reads it in the HelmRelease's namespace): the Kustomization that applies it must hold the merge.
    const manager = kustomizationOf(input.state, `${namespace}_${source.valuesFrom.name}__${source.valuesFrom.kind}`);
    if (manager && !(await holdsMerge(manager.revision, mergeCommit, input.revisions))) return { synced: false, waitingFor: notSynced(manager, mergeCommit) };
  } else {
    const carries = valuesDifference(live.spec?.values ?? {}, source, input.recommendation);
    if (carries) return { synced: false, waitingFor: `${name} in the cluster does not carry the merged values yet (${carries})` };
  }
  const status = live.status ?? {};
  const generation = live.metadata.generation ?? 1;
  const attempted = typeof status.lastAttemptedGeneration === 'number' ? status.lastAttemptedGeneration : status.observedGeneration;
  if (typeof attempted !== 'number' || attempted < generation) return { synced: false, waitingFor: `helm-controller has not reconciled generation ${generation} of ${name} (last attempted ${typeof attempted === 'number' ? attempted : 'none'})` };
  const latest = (Array.isArray(status.history) ? status.history.filter(isObject) : [])[0];
  if (!latest) return { synced: false, waitingFor: `${name} has no release in status.history` };
  const revision = `release ${String(latest.name ?? live.metadata.name)} v${String(latest.version ?? '?')}${typeof latest.chartVersion === 'string' ? `, chart ${latest.chartVersion}` : ''}`;
  if (latest.status !== 'deployed') return { synced: false, waitingFor: `the latest ${revision} of ${name} is ${String(latest.status ?? 'unknown')}, not deployed` };
  // The release that last ran must be the one with the values helm-controller last attempted.
  if (typeof status.lastAttemptedConfigDigest === 'string' && typeof latest.configDigest === 'string' && status.lastAttemptedConfigDigest !== latest.configDigest) {
    return { synced: false, waitingFor: `${name} last attempted values ${status.lastAttemptedConfigDigest}, but its deployed ${revision} has ${latest.configDigest}` };
  }
  // valuesFrom does not move the generation: only a release deployed after the merge can hold it.
  if (source.valuesFrom && mergedAt !== null && !(typeof latest.lastDeployed === 'string' && Date.parse(latest.lastDeployed) >= Date.parse(mergedAt))) {
    return { synced: false, waitingFor: `the deployed ${revision} of ${name} is from ${String(latest.lastDeployed ?? 'an unknown time')}, before the merge at ${mergedAt}` };
  }
  return { synced: true, release: `${name} (${revision}${typeof latest.lastDeployed === 'string' ? `, deployed ${latest.lastDeployed}` : ''})` };
}

async function argoSynced(input: HelmSyncInput, app: KubeObject): Promise<HelmSync> {
  const { source, mergeCommit } = input;
  const name = `Argo CD Application ${app.metadata.namespace ?? 'default'}/${app.metadata.name}`;
  const sync = isObject(app.status?.sync) ? app.status.sync : {};
  if (source.release) {
    // The values are in the Application itself: its spec in the cluster must hold them.
    const raw = valueAt(app, source.valuesPath);
    const values = source.embedded ? (typeof raw === 'string' ? parseEmbeddedValues(raw) : undefined) : raw;
    const carries = valuesDifference(values ?? {}, source, input.recommendation);
    if (carries) return { synced: false, waitingFor: `${name} in the cluster does not carry the merged values yet (${carries})` };
  } else {
    // A values file of this repo: one of the revisions the Application synced must hold the merge.
    const revisions = [sync.revision, ...(Array.isArray(sync.revisions) ? sync.revisions : [])].filter((revision): revision is string => typeof revision === 'string');
    const held = await Promise.all(revisions.map((revision) => holdsMerge(revision, mergeCommit, input.revisions)));
    if (!held.includes(true)) return { synced: false, waitingFor: notSynced({ name, revision: revisions.join(', ') || null }, mergeCommit) };
  }
  // Synced means the live objects are what the compared spec renders: with the values in the
  // Application, that spec must hold the merged ones (Argo CD records it in sync.comparedTo).
  const comparedTo = isObject(sync.comparedTo) ? sync.comparedTo : undefined;
  const current = !source.release || canonicalJson(valueAt(comparedTo, source.valuesPath.slice(1))) === canonicalJson(valueAt(app, source.valuesPath));
  if (sync.status !== 'Synced' || !current) return { synced: false, waitingFor: `${name} is ${String(sync.status ?? 'not synced')}${current ? '' : ' against an earlier spec'}` };
  const operation = isObject(app.status?.operationState) ? app.status.operationState : {};
  if (operation.phase === 'Running') return { synced: false, waitingFor: `${name} is still syncing` };
  return { synced: true, release: `${name} (Synced${typeof sync.revision === 'string' ? ` at ${sync.revision}` : ''})` };
}

/** What the values at the mapped paths lack of the recommendation, or null when they carry it. */
function valuesDifference(values: unknown, source: HelmValuesSource, recommendation: RightsizingRecommendation): string | null {
  const containers = recommendation.containers.map((container) => {
    const keys = source.containers[container.name];
    return { name: container.name, resources: (keys && valueAt(values, keys)) ?? {} };
  });
  // The values laid out as the pod template they set, so they are compared as the scan compares manifests.
  const rendered: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: recommendation.targetRef.name, namespace: recommendation.namespace }, spec: { template: { spec: { containers } } } };
  return templateDifference(rendered, recommendation)?.replace('the live template still has', 'they have') ?? null;
}

/** The status message of a mapping found wrong: the release that took the values, what the workload runs instead, and the entry. */
export function mappingMismatchMessage(input: { source: HelmValuesSource; release: string; pullRequest: number; workload: { namespace: string; kind: string; name: string }; difference: string }): string {
  const { source, workload } = input;
  const paths = Object.entries(source.containers)
    .map(([container, keys]) => `${container}: ${[...(source.embedded ? [] : source.valuesPath), ...keys].join('.')}`)
    .join(', ');
  const where = source.embedded ? `${source.owner} in ${source.file} (the YAML in ${source.valuesPath.join('.')})` : `${source.owner} in ${source.file}`;
  return (
    `pull request #${input.pullRequest} was merged and ${input.release} took it, but ${workload.kind} ${workload.namespace}/${workload.name} does not run the values: ${input.difference.replace('the live template still has', 'its live template still has')}. ` +
    `helm[${source.entry}] of .kerf/config.yaml maps them to ${where}, values paths ${paths}; the chart does not set these resources from there. ` +
    'No pull request is opened for this workload until that entry changes.'
  );
}
