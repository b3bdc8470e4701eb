// A small stand-in for kube-controller-manager, run on demand: Deployments (through ReplicaSets),
// StatefulSets (ordinal pods, ControllerRevisions, update/current revision, OnDelete) and
// DaemonSets create their pods through the API (so admission webhooks see them), and
// PodDisruptionBudget status is kept current.
import { createHash } from 'node:crypto';
import type { Cluster } from './cluster.js';
import { budgetStatus } from './eviction.js';
import type { KubeObject } from './object-store.js';
import { canonicalJson } from './patch.js';
import { isPodReady } from './pods.js';
import type { Pod } from './pods.js';
import { resourceKey } from './resources.js';
import { matchesLabelSelector } from './selectors.js';
import type { LabelSelector } from './selectors.js';

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Pod['spec'];
}

interface WorkloadSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplate;
  updateStrategy?: { type?: string };
}

function templateHash(template: PodTemplate): string {
  return createHash('sha256').update(canonicalJson(template)).digest('hex').slice(0, 10);
}

function ownerReference(owner: KubeObject): NonNullable<KubeObject['metadata']['ownerReferences']>[number] {
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true } as NonNullable<KubeObject['metadata']['ownerReferences']>[number];
}

function ownedBy(object: KubeObject, owner: KubeObject): boolean {
  return object.metadata.ownerReferences?.some((reference) => reference.uid === owner.metadata.uid) ?? false;
}

export class WorkloadControllers {
  constructor(private readonly cluster: Cluster) {}

  async reconcile(): Promise<void> {
    for (const deployment of this.cluster.store.list('apps/deployments')) this.deployment(deployment);
    for (const replicaSet of this.cluster.store.list('apps/replicasets')) await this.replicaSet(replicaSet);
    for (const deployment of this.cluster.store.list('apps/deployments')) this.deploymentStatus(deployment);
    for (const statefulSet of this.cluster.store.list('apps/statefulsets')) await this.statefulSet(statefulSet);
    for (const daemonSet of this.cluster.store.list('apps/daemonsets')) await this.daemonSet(daemonSet);
    this.disruptionBudgets();
  }

  private pods(namespace: string | undefined): Pod[] {
    return this.cluster.store.list('/pods', namespace) as Pod[];
  }

  private async createPod(owner: KubeObject, template: PodTemplate, name: { name?: string; generateName?: string }, labels: Record<string, string>, nodeName?: string): Promise<void> {
    const pods = this.cluster.registry.resolve('pods');
    await this.cluster.create(pods, owner.metadata.namespace, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...name,
        namespace: owner.metadata.namespace,
        labels: { ...template.metadata?.labels, ...labels },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [ownerReference(owner)],
      },
      spec: { ...structuredClone(template.spec), ...(nodeName ? { nodeName } : {}) },
    });
  }

  private deletePod(pod: Pod): void {
    this.cluster.delete(this.cluster.registry.resolve('pods'), pod.metadata.namespace, pod.metadata.name!);
  }

  /** Writes status only when it changed, as controllers do, to keep watch streams quiet. */
  private writeStatus(key: string, object: KubeObject, status: Record<string, unknown>): void {
    const current = this.cluster.store.get(key, object.metadata.namespace, object.metadata.name!);
    if (!current || canonicalJson(current.status) === canonicalJson(status)) return;
    this.cluster.store.write(key, { ...current, status });
  }

  private deployment(deployment: KubeObject): void {
    const spec = deployment.spec as WorkloadSpec;
    const hash = templateHash(spec.template);
    const replicaSets = this.cluster.store.list('apps/replicasets', deployment.metadata.namespace).filter((rs) => ownedBy(rs, deployment));
    const name = `${deployment.metadata.name}-${hash}`;
    for (const old of replicaSets.filter((rs) => rs.metadata.name !== name)) {
      // A rollout here is instant: old ReplicaSets scale to zero at once.
      if ((old.spec as WorkloadSpec).replicas !== 0) this.cluster.store.write('apps/replicasets', { ...old, spec: { ...(old.spec as object), replicas: 0 } });
    }
    const current = replicaSets.find((rs) => rs.metadata.name === name);
    const labels = { ...spec.template.metadata?.labels, 'pod-template-hash': hash };
    const desired = {
      replicas: spec.replicas ?? 1,
      selector: { ...spec.selector, matchLabels: { ...spec.selector.matchLabels, 'pod-template-hash': hash } },
      template: { ...spec.template, metadata: { ...spec.template.metadata, labels } },
    };
    if (!current) {
      this.cluster.put({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: deployment.metadata.namespace, labels, ownerReferences: [ownerReference(deployment)] }, spec: desired });
    } else if ((current.spec as WorkloadSpec).replicas !== desired.replicas) {
      this.cluster.store.write('apps/replicasets', { ...current, spec: desired });
    }
  }

  private deploymentStatus(deployment: KubeObject): void {
    const spec = deployment.spec as WorkloadSpec;
    const hash = templateHash(spec.template);
    const pods = this.pods(deployment.metadata.namespace).filter((pod) => matchesLabelSelector(spec.selector, pod.metadata.labels));
    const updated = pods.filter((pod) => pod.metadata.labels?.['pod-template-hash'] === hash);
    const ready = pods.filter(isPodReady).length;
    this.writeStatus('apps/deployments', deployment, {
      observedGeneration: deployment.metadata.generation,
      replicas: pods.length,
      updatedReplicas: updated.length,
      readyReplicas: ready,
      availableReplicas: ready,
      ...(pods.length - ready > 0 ? { unavailableReplicas: pods.length - ready } : {}),
    });
  }

  private async replicaSet(replicaSet: KubeObject): Promise<void> {
    const spec = replicaSet.spec as WorkloadSpec;
    // Terminating pods no longer count: the ReplicaSet controller replaces them at once.
    const pods = this.pods(replicaSet.metadata.namespace).filter((pod) => ownedBy(pod, replicaSet) && !pod.metadata.deletionTimestamp);
    const replicas = spec.replicas ?? 1;
    for (const extra of pods.slice(replicas)) this.deletePod(extra);
    for (let count = pods.length; count < replicas; count++) {
      await this.createPod(replicaSet, spec.template, { generateName: `${replicaSet.metadata.name}-` }, {});
    }
    const now = this.pods(replicaSet.metadata.namespace).filter((pod) => ownedBy(pod, replicaSet));
    this.writeStatus('apps/replicasets', replicaSet, {
      observedGeneration: replicaSet.metadata.generation,
      replicas: now.length,
      readyReplicas: now.filter(isPodReady).length,
      availableReplicas: now.filter(isPodReady).length,
    });
  }

  private revision(owner: KubeObject, template: PodTemplate): string {
    const name = `${owner.metadata.name}-${templateHash(template)}`;
    const revisions = this.cluster.store.list('apps/controllerrevisions', owner.metadata.namespace).filter((revision) => ownedBy(revision, owner));
    if (!revisions.some((revision) => revision.metadata.name === name)) {
      const number = Math.max(0, ...revisions.map((revision) => Number(revision.revision ?? 0))) + 1;
      this.cluster.put({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name, namespace: owner.metadata.namespace, labels: { ...template.metadata?.labels, 'controller.kubernetes.io/hash': templateHash(template) }, ownerReferences: [ownerReference(owner)] },
        data: { spec: { template: { ...template, $patch: 'replace' } } },
        revision: number,
      });
    }
    return name;
  }

  private async statefulSet(statefulSet: KubeObject): Promise<void> {
    const spec = statefulSet.spec as WorkloadSpec;
    const name = statefulSet.metadata.name!;
    const updateRevision = this.revision(statefulSet, spec.template);
    const replicas = spec.replicas ?? 1;
    const onDelete = spec.updateStrategy?.type === 'OnDelete';
    const owned = () => this.pods(statefulSet.metadata.namespace).filter((pod) => ownedBy(pod, statefulSet));
    for (const pod of owned()) {
      const ordinal = Number(pod.metadata.name!.slice(name.length + 1));
      const outdated = pod.metadata.labels?.['controller-revision-hash'] !== updateRevision;
      if (ordinal >= replicas || (outdated && !onDelete)) this.deletePod(pod);
    }
    const existing = new Set(owned().map((pod) => pod.metadata.name));
    for (let ordinal = 0; ordinal < replicas; ordinal++) {
      const podName = `${name}-${ordinal}`;
      if (existing.has(podName)) continue;
      await this.createPod(statefulSet, spec.template, { name: podName }, {
        'controller-revision-hash': updateRevision,
        'statefulset.kubernetes.io/pod-name': podName,
        'apps.kubernetes.io/pod-index': String(ordinal),
      });
    }
    const pods = owned();
    const updated = pods.filter((pod) => pod.metadata.labels?.['controller-revision-hash'] === updateRevision).length;
    const previous = (statefulSet.status as { currentRevision?: string } | undefined)?.currentRevision;
    const currentRevision = updated === pods.length || !previous ? updateRevision : previous;
    const ready = pods.filter(isPodReady).length;
    this.writeStatus('apps/statefulsets', statefulSet, {
      observedGeneration: statefulSet.metadata.generation,
      replicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      currentReplicas: pods.filter((pod) => pod.metadata.labels?.['controller-revision-hash'] === currentRevision).length,
      updatedReplicas: updated,
      currentRevision,
      updateRevision,
    });
  }

  private async daemonSet(daemonSet: KubeObject): Promise<void> {
    const spec = daemonSet.spec as WorkloadSpec;
    const revision = this.revision(daemonSet, spec.template);
    const onDelete = spec.updateStrategy?.type === 'OnDelete';
    const nodes = this.cluster.store.list('/nodes');
    const owned = () => this.pods(daemonSet.metadata.namespace).filter((pod) => ownedBy(pod, daemonSet));
    for (const pod of owned()) {
      const outdated = pod.metadata.labels?.['controller-revision-hash'] !== revision;
      if (!nodes.some((node) => node.metadata.name === pod.spec.nodeName) || (outdated && !onDelete)) this.deletePod(pod);
    }
    for (const node of nodes) {
      if (owned().some((pod) => pod.spec.nodeName === node.metadata.name)) continue;
      await this.createPod(daemonSet, spec.template, { generateName: `${daemonSet.metadata.name}-` }, { 'controller-revision-hash': revision }, node.metadata.name);
    }
    const pods = owned();
    const ready = pods.filter(isPodReady).length;
    this.writeStatus('apps/daemonsets', daemonSet, {
      observedGeneration: daemonSet.metadata.generation,
      desiredNumberScheduled: nodes.length,
      currentNumberScheduled: pods.length,
      numberReady: ready,
      numberAvailable: ready,
      updatedNumberScheduled: pods.filter((pod) => pod.metadata.labels?.['controller-revision-hash'] === revision).length,
      numberMisscheduled: 0,
    });
  }

  private disruptionBudgets(): void {
    const key = resourceKey({ group: 'policy', plural: 'poddisruptionbudgets' });
    for (const budget of this.cluster.store.list(key)) {
      const status = budgetStatus(budget, this.pods(budget.metadata.namespace));
      this.writeStatus(key, budget, { observedGeneration: budget.metadata.generation, ...status });
    }
  }
}
