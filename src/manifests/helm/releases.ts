// The Helm releases a repo declares (Flux HelmReleases, Argo CD Applications with a Helm source),
// so a recommendation for a workload one of them renders, with no `helm:` entry, is told which
// release it is and how to map it, instead of "not in the repo".
import type { HelmMapping, PlanError } from '../../model/types.js';
import type { ScannedFile } from '../scanned-file.js';
import { isObject, nonEmptyText } from '../../util/json.js';

export interface HelmRelease {
  /** `HelmRelease flux-system/podinfo` or `Application argocd/guestbook`. */
  owner: string;
  file: string;
  line?: number;
  kind: 'HelmRelease' | 'Application';
  name: string;
  /** The HelmRelease's or Application's own namespace. */
  objectNamespace: string;
  /** Where the chart's objects go, and the Helm release name their names start with. */
  namespace: string;
  release: string;
}

/** What the scan learnt about Helm: workloads a `helm:` entry cannot serve, and the releases in the repo. */
export interface HelmIndex {
  held: Map<string, PlanError>;
  releases: HelmRelease[];
}


export function findReleases(files: ReadonlyMap<string, ScannedFile>): HelmRelease[] {
  const releases: HelmRelease[] = [];
  for (const [file, scanned] of files) {
    scanned.documents.forEach((doc, document) => {
      if (!isObject(doc) || !isObject(doc.metadata) || !isObject(doc.spec) || typeof doc.apiVersion !== 'string') return;
      const name = nonEmptyText(doc.metadata.name);
      if (!name) return;
      const namespace = nonEmptyText(doc.metadata.namespace) ?? 'default';
      const line = scanned.lines[document];
      const at = { file, ...(line !== undefined && { line }), name, objectNamespace: namespace };
      const spec = doc.spec;
      if (doc.kind === 'HelmRelease' && doc.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) {
        const target = nonEmptyText(spec.targetNamespace);
        // Flux's default release name: the target namespace, a dash, the object's name.
        const release = nonEmptyText(spec.releaseName) ?? (target ? `${target}-${name}` : name);
        releases.push({ ...at, owner: `HelmRelease ${namespace}/${name}`, kind: 'HelmRelease', namespace: target ?? namespace, release });
      } else if (doc.kind === 'Application' && doc.apiVersion.startsWith('argoproj.io/')) {
        const sources = [spec.source, ...(Array.isArray(spec.sources) ? spec.sources : [])].filter(isObject);
        const helm = sources.find((source) => isObject(source.helm) || nonEmptyText(source.chart) !== undefined);
        if (!helm) return;
        const destination = isObject(spec.destination) ? spec.destination : {};
        const release = (isObject(helm.helm) ? nonEmptyText(helm.helm.releaseName) : undefined) ?? name;
        releases.push({ ...at, owner: `Application ${namespace}/${name}`, kind: 'Application', namespace: nonEmptyText(destination.namespace) ?? namespace, release });
      }
    });
  }
  return releases;
}

/** The release that renders a workload by Helm's naming (`<release>` or `<release>-<chart>`), if one does. */
export function releaseOf(releases: readonly HelmRelease[], workload: { namespace: string; name: string }): HelmRelease | undefined {
  return releases.find((release) => release.namespace === workload.namespace && (workload.name === release.release || workload.name.startsWith(`${release.release}-`)));
}

/** The conventional places of a container's resources, offered (never applied) for a `helm:` entry. */
export function suggestedPaths(container: string): string[] {
  return ['resources', `controllers.main.containers.${container}.resources`, `${container}.resources`];
}

/** The error for a recommendation whose workload a release renders but no `helm:` entry maps. */
export function unmappedMessage(release: HelmRelease, workload: { namespace: string; kind: string; name: string }, containers: readonly string[]): string {
  const source = release.kind === 'HelmRelease' ? `helmRelease: {file: ${release.file}, name: ${release.name}}` : `application: {file: ${release.file}, name: ${release.name}}`;
  const paths = (containers.length > 0 ? containers : ['<container>']).map((name) => `${name}: one of ${suggestedPaths(name).join(', ')}`).join('; ');
  return `${workload.namespace}/${workload.kind}/${workload.name} is rendered by Helm release ${release.release} (${release.owner} in ${release.file}); kerf edits its values only once .kerf/config.yaml maps them: helm: [{workload: {namespace: ${workload.namespace}, kind: ${workload.kind}, name: ${workload.name}}, ${source}, containers: {...}}] — conventional resources paths (not applied until configured): ${paths}`;
}

/** The releases no `helm:` entry reads the values of (by file and name) or maps a workload of, for `doctor`. */
export function unmappedReleases(releases: readonly HelmRelease[], mappings: readonly HelmMapping[]): HelmRelease[] {
  const mapped = new Set(mappings.flatMap((mapping) => [mapping.helmRelease, mapping.application].filter((source) => source !== undefined).map((source) => `${source.file}\u0000${source.name}`)));
  return releases.filter((release) => !mapped.has(`${release.file}\u0000${release.name}`) && !mappings.some((mapping) => releaseOf([release], mapping.workload ?? { namespace: '', name: '' })));
}
