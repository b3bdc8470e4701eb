// A simulated Argo CD / Flux sync for loop tests: the workloads of a branch of the bare repo are
// applied to the Kubernetes stand-in (replaced, as a sync of changed manifests does), then its
// controllers and kubelets run. Optionally an Argo CD Application records the synced revision.
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { runGit } from '../standins/git/run-git.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';

const SYNCED_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** Argo CD's Application kind, served with a permissive schema (the stand-in serves a stored CRD at once). */
export const ARGO_APPLICATION_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'applications.argoproj.io' },
  spec: {
    group: 'argoproj.io',
    scope: 'Namespaced',
    names: { kind: 'Application', plural: 'applications', singular: 'application', listKind: 'ApplicationList' },
    versions: [{ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

/** Applies the workloads of `paths` as `branch` of the bare repo holds them; resolves with the synced commit. */
export async function syncFromGit(api: KubeApi, bare: string, branch: string, paths: readonly string[]): Promise<string> {
  const objects = KubernetesObjectApi.makeApiClient(api.kubeConfig());
  const revision = await runGit(['rev-parse', `refs/heads/${branch}`], { cwd: bare });
  for (const path of paths) {
    const text = await runGit(['show', `${revision}:${path}`], { cwd: bare });
    for (const document of parseAllDocuments(text)) {
      const object = document.toJS() as KubernetesObject | null;
      if (!object?.kind || !SYNCED_KINDS.has(object.kind)) continue;
      await applyObject(objects, object);
    }
  }
  await settleWorkloads(api);
  return revision;
}

/** Creates the object, or replaces the live one with it (spec and metadata as given; the status stays the server's). */
export async function applyObject(objects: KubernetesObjectApi, object: KubernetesObject): Promise<KubernetesObject> {
  const live = await objects.read(object as KubernetesObject & { metadata: { name: string } }).catch(() => undefined);
  if (live) return objects.replace({ ...object, metadata: { ...object.metadata, resourceVersion: live.metadata?.resourceVersion } });
  return objects.create(object);
}

/** The workload controllers and kubelets run until the pods match their templates. */
export async function settleWorkloads(api: KubeApi): Promise<void> {
  await api.store.reconcileWorkloads();
  api.nodes.settle();
  await api.store.reconcileWorkloads();
}

/** An Argo CD Application that manages `workloads` and last synced `revision`. */
export function argoApplication(name: string, revision: string, workloads: readonly { namespace: string; kind: string; name: string }[]) {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: { source: { repoURL: 'https://git.example/acme/shop.git', path: '.', targetRevision: 'main' } },
    status: {
      sync: { status: 'Synced', revision },
      resources: workloads.map((w) => ({ group: 'apps', version: 'v1', kind: w.kind, namespace: w.namespace, name: w.name, status: 'Synced' })),
    },
  };
}
