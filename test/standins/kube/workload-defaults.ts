// apps/v1 defaulting and selector validation: kerf's guardrails read the defaulted rollout
// strategy (maxSurge/maxUnavailable 25%), so the stand-in fills it in as the apiserver does.
import type { StatusCause } from './api-error.js';
import type { KubeObject } from './object-store.js';
import type { ResourceType } from './resources.js';
import { matchesLabelSelector } from './selectors.js';
import type { LabelSelector } from './selectors.js';

interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: { metadata?: { labels?: Record<string, string> } };
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxSurge?: number | string; maxUnavailable?: number | string } };
  podManagementPolicy?: string;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
}

const WORKLOADS = ['deployments', 'statefulsets', 'daemonsets', 'replicasets'];

function isWorkload(type: ResourceType): boolean {
  return type.group === 'apps' && WORKLOADS.includes(type.plural);
}

export function defaultWorkload(type: ResourceType, object: KubeObject): void {
  if (!isWorkload(type) || typeof object.spec !== 'object' || object.spec === null) return;
  const spec = object.spec as WorkloadSpec;
  if (type.plural !== 'daemonsets') spec.replicas ??= 1;
  if (type.plural === 'replicasets') return;
  spec.revisionHistoryLimit ??= 10;
  if (type.plural === 'deployments') {
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate' };
    if (spec.strategy.type === 'RollingUpdate') {
      spec.strategy.rollingUpdate = { maxSurge: '25%', maxUnavailable: '25%', ...spec.strategy.rollingUpdate };
    }
  } else {
    spec.updateStrategy ??= { type: 'RollingUpdate' };
    if (spec.updateStrategy.type === 'RollingUpdate') {
      const defaults = type.plural === 'statefulsets' ? { partition: 0 } : { maxUnavailable: 1, maxSurge: 0 };
      spec.updateStrategy.rollingUpdate = { ...defaults, ...spec.updateStrategy.rollingUpdate };
    }
    if (type.plural === 'statefulsets') spec.podManagementPolicy ??= 'OrderedReady';
  }
}

/** The selector must be non-empty and select the pod template's labels. */
export function validateWorkloadSelector(type: ResourceType, object: KubeObject): StatusCause[] {
  if (!isWorkload(type)) return [];
  const spec = (object.spec ?? {}) as WorkloadSpec;
  if (!spec.selector) return [{ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' }];
  const selector = spec.selector;
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    return [{ reason: 'FieldValueInvalid', field: 'spec.selector', message: `Invalid value: ${JSON.stringify(selector)}: empty selector is invalid for ${type.singular}` }];
  }
  const labels = spec.template?.metadata?.labels ?? {};
  if (!matchesLabelSelector(selector, labels)) {
    return [{ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: `Invalid value: ${JSON.stringify(labels)}: \`selector\` does not match template \`labels\`` }];
  }
  return [];
}
