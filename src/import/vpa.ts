// A VerticalPodAutoscaler (autoscaling.k8s.io/v1) in `updateMode: Off` as a RightsizingRecommendation:
// requests from the chosen bound within the container policy's minAllowed/maxAllowed, and limits
// as VPA's admission controller would set them (GetProportionalLimit: the limit keeps its ratio
// to the request under RequestsAndLimits; RequestsOnly leaves it alone). Pure.
import type { ContainerRecommendation, ObjectRef, ResourceName } from '../model/types.js';
import { RESOURCE_NAMES, WORKLOAD_KINDS } from '../model/types.js';
import { Quantity } from '../rules/quantity.js';
import {
  assemble,
  quantityOf,
  roundUp,
  skipOf,
  type CurrentContainer,
  type CurrentValues,
  type Imported,
  type ImportOptions,
  type Skip,
} from './resources.js';
import { objectOrEmpty, type Json } from '../util/json.js';


export type VpaBound = 'target' | 'lowerBound' | 'upperBound' | 'uncappedTarget';
export const VPA_BOUNDS: readonly VpaBound[] = ['target', 'lowerBound', 'upperBound', 'uncappedTarget'];

export interface VpaImportOptions extends ImportOptions {
  bound: VpaBound;
}

const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(objectOrEmpty) : []);

/** The container policy VPA applies: the container's own, else the `*` default. */
function containerPolicy(vpa: Json, container: string): Json {
  const policies = list(objectOrEmpty(objectOrEmpty(vpa.spec).resourcePolicy).containerPolicies);
  return policies.find((policy) => policy.containerName === container) ?? policies.find((policy) => policy.containerName === '*') ?? {};
}

/** When the recommendation was made: the RecommendationProvided condition's last transition (never the clock). */
function generatedAt(vpa: Json): string | undefined {
  const provided = list(objectOrEmpty(vpa.status).conditions).find((condition) => condition.type === 'RecommendationProvided' && condition.status === 'True');
  return typeof provided?.lastTransitionTime === 'string' ? provided.lastTransitionTime : undefined;
}

/** Kubernetes' MilliValue/Value are whole milli-units and bytes; VPA scales those with integer division. */
function proportionalLimit(resource: ResourceName, limit: Quantity, request: Quantity | undefined, recommended: Quantity): Quantity {
  if (!request || request.isZero() || request.toMilli() === limit.toMilli()) return recommended;
  if (resource === 'cpu') return Quantity.fromMilli((limit.toMilli() * recommended.toMilli()) / request.toMilli());
  return Quantity.fromInteger((limit.toInteger() * recommended.toInteger()) / request.toInteger(), 'BinarySI');
}

function clamp(value: Quantity, min: Quantity | undefined, max: Quantity | undefined): Quantity {
  if (min && value.compare(min) < 0) return min;
  if (max && value.compare(max) > 0) return max;
  return value;
}

/** One container's proposal, or a skip. */
function containerProposal(
  name: string,
  recommendation: Json,
  policy: Json,
  current: CurrentContainer | undefined,
  options: VpaImportOptions,
  target: ObjectRef,
): ContainerRecommendation | Skip {
  if (policy.mode === 'Off') return skipOf(target, 'ContainerOff', `container ${name} has mode Off in the VPA's resourcePolicy`, name);
  const bound = objectOrEmpty(recommendation[options.bound]);
  const controlled = Array.isArray(policy.controlledResources) ? policy.controlledResources : RESOURCE_NAMES;
  const scalesLimits = policy.controlledValues !== 'RequestsOnly';
  const min = objectOrEmpty(policy.minAllowed);
  const max = objectOrEmpty(policy.maxAllowed);
  const proposal: ContainerRecommendation = { name, requests: {}, limits: {} };
  for (const resource of RESOURCE_NAMES) {
    if (!controlled.includes(resource) || bound[resource] === undefined) continue;
    const value = quantityOf(bound[resource]);
    if (!value) return skipOf(target, 'InvalidRecommendation', `container ${name}: ${options.bound}.${resource} ${JSON.stringify(bound[resource])} is not a quantity`, name);
    const currentLimit = quantityOf(current?.limits[resource]);
    let request = clamp(roundUp(value, options.round[resource]), quantityOf(min[resource]), quantityOf(max[resource]));
    // Under RequestsOnly VPA caps the request at the container's limit: a request above it is invalid.
    if (!scalesLimits && currentLimit && request.compare(currentLimit) > 0) request = currentLimit;
    if (request.isZero()) continue;
    proposal.requests[resource] = request.toString();
    if (scalesLimits && currentLimit && !currentLimit.isZero()) {
      const limit = proportionalLimit(resource, currentLimit, quantityOf(current?.requests[resource]), request);
      proposal.limits[resource] = roundUp(limit, options.round[resource]).toString();
    }
  }
  return proposal;
}

/** The workload a VPA targets, its namespace being the VPA's. */
export function vpaTarget(vpa: Json): ObjectRef & { apiVersion?: string } {
  const ref = objectOrEmpty(objectOrEmpty(vpa.spec).targetRef);
  return {
    namespace: typeof objectOrEmpty(vpa.metadata).namespace === 'string' ? (objectOrEmpty(vpa.metadata).namespace as string) : 'default',
    kind: String(ref.kind ?? ''),
    name: String(ref.name ?? ''),
    ...(typeof ref.apiVersion === 'string' && { apiVersion: ref.apiVersion }),
  };
}

/** One VPA as a recommendation for the workload it targets, with a reason for everything skipped. */
export function fromVpa(served: object, currentValues: CurrentValues, options: VpaImportOptions): Imported {
  const vpa = served as Json;
  const target = vpaTarget(vpa);
  const vpaName = `VerticalPodAutoscaler ${target.namespace}/${String(objectOrEmpty(vpa.metadata).name ?? '?')}`;
  const skip = (reason: Skip['reason'], message: string): Imported => ({ skips: [skipOf(target, reason, message)] });
  // No updateMode means VPA's default, which updates pods (Auto, Recreate in newer releases).
  if (!(WORKLOAD_KINDS as readonly string[]).includes(target.kind)) return skip('UnsupportedKind', `${vpaName} targets a ${target.kind || 'missing kind'}; kerf rightsizes Deployments, StatefulSets and DaemonSets`);
  const current = currentValues(target);
  if (!current) return skip('NotInRepo', `the repo's manifests do not define it (${vpaName})`);
  const mode = objectOrEmpty(objectOrEmpty(vpa.spec).updatePolicy).updateMode;
  if (mode !== 'Off') return skip('UpdatingMode', `${vpaName} has updateMode ${typeof mode === 'string' ? mode : 'unset (VPA updates pods)'}: VPA applies its recommendations itself; kerf takes only VPAs in updateMode Off`);
  const recommendations = list(objectOrEmpty(objectOrEmpty(vpa.status).recommendation).containerRecommendations);
  if (recommendations.length === 0) return skip('NoRecommendation', `${vpaName} has no recommendation yet`);
  const skips: Skip[] = [];
  const proposals: ContainerRecommendation[] = [];
  for (const recommendation of recommendations) {
    const container = String(recommendation.containerName ?? '');
    const result = containerProposal(container, recommendation, containerPolicy(vpa, container), current.find((c) => c.name === container), options, target);
    if ('reason' in result) skips.push(result);
    else proposals.push(result);
  }
  const at = generatedAt(vpa);
  // Goldilocks labels the VPAs it creates (in Off mode, one per workload of a labelled namespace).
  const recommender = objectOrEmpty(objectOrEmpty(vpa.metadata).labels).source === 'goldilocks' ? 'goldilocks' : 'vpa';
  return assemble(target, proposals, current, { recommender, bound: options.bound, ...(at && { generatedAt: at }) }, options, skips);
}

/** The VPAs among parsed documents: single objects and the items of a List (`kubectl get vpa -A -o yaml`). */
export function vpasIn(documents: readonly unknown[]): Json[] {
  return documents.flatMap((document) => {
    const doc = objectOrEmpty(document);
    if (Array.isArray(doc.items)) return vpasIn(doc.items);
    return doc.kind === 'VerticalPodAutoscaler' && String(doc.apiVersion).startsWith('autoscaling.k8s.io/') ? [doc] : [];
  });
}
