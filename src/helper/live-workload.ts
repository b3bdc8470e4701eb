// Live apps/v1 objects as the rules core's Workload, the way src/manifests/scan.ts reads them from
// YAML, so the helper and the reconciler feed decide() the same shape. Until scan.ts exports its
// toWorkload, this is the helper's own adapter.
import type { ContainerSpec, Workload, WorkloadKind } from '../model/types.js';
import { WORKLOAD_KINDS } from '../model/types.js';
import { isObject } from '../cluster/objects.js';
import type { KubeObject } from '../cluster/objects.js';

type Json = Record<string, unknown>;

const stringMap = (value: unknown): Record<string, string> =>
  isObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : {};
const quantityMap = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(isObject(value) ? value : {}).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)]));
const intOrString = (value: unknown): number | string | undefined =>
  typeof value === 'number' || typeof value === 'string' ? value : undefined;

/** Containers and native sidecars of a pod spec (plain init containers finish before the pod runs). */
export function containerSpecs(podSpec: unknown): ContainerSpec[] {
  const spec = isObject(podSpec) ? podSpec : {};
  const list = (value: unknown, init: boolean): ContainerSpec[] =>
    (Array.isArray(value) ? value : [])
      .filter(isObject)
      .filter((c) => !init || c.restartPolicy === 'Always')
      .map((c) => {
        const resources = isObject(c.resources) ? c.resources : {};
        return {
          name: String(c.name ?? ''),
          init,
          image: typeof c.image === 'string' ? c.image : '',
          envNames: Array.isArray(c.env) ? c.env.filter(isObject).map((e) => String(e.name)) : [],
          resizePolicy: (Array.isArray(c.resizePolicy) ? c.resizePolicy : [])
            .filter(isObject)
            .map((p) => ({ resourceName: String(p.resourceName), restartPolicy: String(p.restartPolicy) })),
          requests: quantityMap(resources.requests),
          limits: quantityMap(resources.limits),
        };
      });
  return [...list(spec.containers, false), ...list(spec.initContainers, true)];
}

/** A live Deployment, StatefulSet or DaemonSet as a Workload; undefined for any other kind. */
export function workloadFromObject(object: KubeObject): Workload | undefined {
  const kind = object.kind as WorkloadKind;
  if (!WORKLOAD_KINDS.includes(kind)) return undefined;
  const spec: Json = object.spec ?? {};
  const template = isObject(spec.template) ? spec.template : {};
  const strategyField = kind === 'Deployment' ? spec.strategy : spec.updateStrategy;
  const strategy = isObject(strategyField) ? strategyField : {};
  const rolling = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined;
  const maxSurge = intOrString(rolling?.maxSurge);
  const maxUnavailable = intOrString(rolling?.maxUnavailable);
  const namespace = object.metadata.namespace ?? 'default';
  return {
    ref: { namespace, kind, name: object.metadata.name },
    labels: stringMap(object.metadata.labels),
    annotations: stringMap(object.metadata.annotations),
    ...(typeof spec.replicas === 'number' && { replicas: spec.replicas }),
    templateLabels: stringMap(isObject(template.metadata) ? template.metadata.labels : undefined),
    updateStrategy: {
      ...(typeof strategy.type === 'string' && { type: strategy.type }),
      ...(rolling && {
        rollingUpdate: { ...(maxSurge !== undefined && { maxSurge }), ...(maxUnavailable !== undefined && { maxUnavailable }) },
      }),
    },
    containers: containerSpecs(template.spec),
    source: { file: `cluster:${kind}/${namespace}/${object.metadata.name}`, document: 0, name: object.metadata.name },
  };
}
