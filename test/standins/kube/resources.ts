// The resource types the stand-in serves: what discovery lists and what the router resolves a
// path or an apiVersion/kind to. CRDs add types at runtime.
import { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-models/apps/v1';
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Lease } from 'kubernetes-models/coordination.k8s.io/v1';
import { Event as EventV1 } from 'kubernetes-models/events.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Event, Namespace, Node, Pod, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import type { StatusCause } from './api-error.js';
import type { Schema } from './openapi-schema.js';

/** Problems of an object as Status causes; empty when valid. */
export type Validator = (object: unknown) => StatusCause[];

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** Subresources served at `{plural}/{name}/{sub}`; `status` splits status writes from spec writes. */
  subresources: string[];
  categories: string[];
  validate: Validator;
  /** A CRD's structural schema: custom resources are pruned and defaulted by it before validation. */
  schema?: Schema;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

export function resourceKey(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${type.group}/${type.plural}`;
}

interface Model {
  validate(): void;
}

interface SchemaError {
  instancePath: string;
  message?: string;
}

/** `/spec/containers/0/name` → `spec.containers[0].name`, the apiserver's field path notation. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .filter((token) => token !== '')
    .map((token) => (/^\d+$/.test(token) ? `[${token}]` : `.${token}`))
    .join('')
    .replace(/^\./, '');
}

/** Validation through the kubernetes-models JSON schemas of the built-in kind. */
function modelValidator(Constructor: new (data: never) => Model): Validator {
  return (object) => {
    try {
      new Constructor(object as never).validate();
      return [];
    } catch (error) {
      const errors = (error as { errors?: SchemaError[] }).errors ?? [{ instancePath: '', message: (error as Error).message }];
      return errors.map((problem) => ({
        reason: 'FieldValueInvalid',
        field: fieldPath(problem.instancePath) || '<root>',
        message: `Invalid value: ${problem.message ?? 'invalid'}`,
      }));
    }
  };
}

type BuiltIn = Omit<ResourceType, 'validate' | 'categories' | 'shortNames' | 'subresources'> &
  Partial<Pick<ResourceType, 'shortNames' | 'subresources' | 'categories'>> & { model: new (data: never) => Model };

const BUILT_INS: BuiltIn[] = [
  { group: '', version: 'v1', plural: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false, shortNames: ['ns'], subresources: ['status'], model: Namespace },
  { group: '', version: 'v1', plural: 'nodes', singular: 'node', kind: 'Node', namespaced: false, shortNames: ['no'], subresources: ['status'], model: Node },
  { group: '', version: 'v1', plural: 'pods', singular: 'pod', kind: 'Pod', namespaced: true, shortNames: ['po'], subresources: ['status', 'resize', 'eviction'], categories: ['all'], model: Pod },
  { group: '', version: 'v1', plural: 'secrets', singular: 'secret', kind: 'Secret', namespaced: true, model: Secret },
  { group: '', version: 'v1', plural: 'configmaps', singular: 'configmap', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], model: ConfigMap },
  { group: '', version: 'v1', plural: 'services', singular: 'service', kind: 'Service', namespaced: true, shortNames: ['svc'], subresources: ['status'], categories: ['all'], model: Service },
  { group: '', version: 'v1', plural: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], model: ServiceAccount },
  // RBAC objects are stored (so an install applies); the stand-in authorizes nothing.
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', singular: 'role', kind: 'Role', namespaced: true, model: Role },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, model: RoleBinding },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, model: ClusterRole },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, model: ClusterRoleBinding },
  { group: '', version: 'v1', plural: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'], model: Event },
  { group: 'apps', version: 'v1', plural: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], subresources: ['status'], categories: ['all'], model: Deployment },
  { group: 'apps', version: 'v1', plural: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], subresources: ['status'], categories: ['all'], model: StatefulSet },
  { group: 'apps', version: 'v1', plural: 'daemonsets', singular: 'daemonset', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], subresources: ['status'], categories: ['all'], model: DaemonSet },
  { group: 'apps', version: 'v1', plural: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], subresources: ['status'], categories: ['all'], model: ReplicaSet },
  { group: 'apps', version: 'v1', plural: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision', namespaced: true, model: ControllerRevision },
  { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], subresources: ['status'], model: PodDisruptionBudget },
  { group: 'autoscaling', version: 'v2', plural: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], subresources: ['status'], categories: ['all'], model: HorizontalPodAutoscaler },
  { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', singular: 'lease', kind: 'Lease', namespaced: true, model: Lease },
  { group: 'events.k8s.io', version: 'v1', plural: 'events', singular: 'event', kind: 'Event', namespaced: true, shortNames: ['ev'], model: EventV1 },
  { group: 'admissionregistration.k8s.io', version: 'v1', plural: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration', kind: 'MutatingWebhookConfiguration', namespaced: false, model: MutatingWebhookConfiguration },
  { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', singular: 'customresourcedefinition', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], subresources: ['status'], model: CustomResourceDefinition },
];

export class ResourceRegistry {
  private readonly types: ResourceType[] = [];

  constructor() {
    for (const { model, ...type } of BUILT_INS) {
      this.register({ shortNames: [], subresources: [], categories: [], ...type, validate: modelValidator(model) });
    }
  }

  register(type: ResourceType): void {
    const index = this.types.findIndex(
      (known) => known.group === type.group && known.version === type.version && known.plural === type.plural,
    );
    if (index >= 0) this.types[index] = type;
    else this.types.push(type);
  }

  unregister(group: string, plural: string): void {
    for (let index = this.types.length - 1; index >= 0; index--) {
      const type = this.types[index]!;
      if (type.group === group && type.plural === plural) this.types.splice(index, 1);
    }
  }

  all(): readonly ResourceType[] {
    return this.types;
  }

  byPath(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((type) => type.group === group && type.version === version && type.plural === plural);
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types.find((type) => apiVersionOf(type) === apiVersion && type.kind === kind);
  }

  /** `pods`, `Pod`, `po`, `deployments.apps`, `rightsizingrecommendations.kerf.getkerf.dev`. */
  resolve(reference: string): ResourceType {
    const matches = this.types.filter((type) =>
      [type.plural, type.singular, type.kind, ...type.shortNames].some(
        (name) => reference === name || reference === `${name}.${type.group}`,
      ),
    );
    // `events` names both core v1 and events.k8s.io/v1; like kubectl, prefer the core group.
    const found = matches.find((type) => type.group === '') ?? matches[0];
    if (!found) throw new Error(`unknown resource "${reference}"`);
    return found;
  }

  groupVersions(): { group: string; versions: string[] }[] {
    const groups: { group: string; versions: string[] }[] = [];
    for (const type of this.types) {
      const entry = groups.find((known) => known.group === type.group);
      if (!entry) groups.push({ group: type.group, versions: [type.version] });
      else if (!entry.versions.includes(type.version)) entry.versions.push(type.version);
    }
    return groups;
  }
}
