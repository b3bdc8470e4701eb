// A Deployment, StatefulSet or DaemonSet (from a YAML file or the live cluster) as the rules core's
// Workload, so the reconciler and the helper feed decide() the same shape.
import type { ContainerSpec, Workload, WorkloadKind } from './types.js';
import { WORKLOAD_KINDS } from './types.js';
import { isObject, intOrString, stringMap, type Json } from '../util/json.js';

const quantityMap = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(isObject(value) ? value : {}).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)]));

export function isWorkloadKind(kind: unknown): kind is WorkloadKind {
  return (WORKLOAD_KINDS as readonly unknown[]).includes(kind);
}

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

/**
 * The workload an object describes, with the identity it has where it is applied (`ref`, after
 * kustomize's namespace and name affixes) and where it is written (`source`).
 */
export function workloadFromObject(doc: Json, ref: { namespace: string; name: string }, source: Workload['source']): Workload | undefined {
  const kind = doc.kind;
  if (!isWorkloadKind(kind)) return undefined;
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const spec = isObject(doc.spec) ? doc.spec : {};
  const template = isObject(spec.template) ? spec.template : {};
  const strategyField = kind === 'Deployment' ? spec.strategy : spec.updateStrategy;
  const strategy = isObject(strategyField) ? strategyField : {};
  const rolling = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined;
  const maxSurge = intOrString(rolling?.maxSurge);
  const maxUnavailable = intOrString(rolling?.maxUnavailable);
  return {
    ref: { namespace: ref.namespace, kind, name: ref.name },
    labels: stringMap(meta.labels),
    annotations: stringMap(meta.annotations),
    ...(typeof spec.replicas === 'number' && { replicas: spec.replicas }),
    templateLabels: stringMap(isObject(template.metadata) ? template.metadata.labels : undefined),
    updateStrategy: {
      ...(typeof strategy.type === 'string' && { type: strategy.type }),
      ...(rolling && {
        rollingUpdate: { ...(maxSurge !== undefined && { maxSurge }), ...(maxUnavailable !== undefined && { maxUnavailable }) },
      }),
    },
    containers: containerSpecs(template.spec),
    source,
  };
}

/** The keys of `object` among `keys` that it has, as they are. */
function pick(object: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((key) => key in object).map((key) => [key, object[key]]));
}

function containerFields(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.filter(isObject).map((c) => ({
    ...pick(c, ['name', 'image', 'restartPolicy', 'resources', 'resizePolicy']),
    ...(Array.isArray(c.env) && { env: c.env.filter(isObject).map((e) => ({ name: e.name })) }),
  }));
}

/**
 * What `workloadFromObject` (and the scan, for the identity) reads of a workload object, copied:
 * the scan holds this for each workload document until it is indexed, not the whole document
 * (probes, env values, volumes are most of its bytes); a copy, since strings cut from the parse
 * can be slices that keep the whole file's text alive.
 */
export function workloadFields(doc: Json): Json {
  const meta = isObject(doc.metadata) ? doc.metadata : undefined;
  const spec = isObject(doc.spec) ? doc.spec : undefined;
  const template = isObject(spec?.template) ? spec.template : undefined;
  const podSpec = isObject(template?.spec) ? template.spec : undefined;
  return structuredClone({
    ...pick(doc, ['apiVersion', 'kind']),
    ...(meta && { metadata: pick(meta, ['name', 'namespace', 'labels', 'annotations']) }),
    ...(spec && {
      spec: {
        ...pick(spec, ['replicas', 'strategy', 'updateStrategy']),
        ...(template && {
          template: {
            ...(isObject(template.metadata) && { metadata: pick(template.metadata, ['labels']) }),
            ...(podSpec && { spec: { ...('containers' in podSpec && { containers: containerFields(podSpec.containers) }), ...('initContainers' in podSpec && { initContainers: containerFields(podSpec.initContainers) }) } }),
          },
        }),
      },
    }),
  });
}
