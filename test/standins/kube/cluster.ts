// The apiserver's request semantics over the object store: create/update/patch/delete with
// defaulting, mutating admission, validation, optimistic concurrency, generation, subresources
// (status, resize, eviction), garbage collection of dependents, and CRDs becoming served types.
import { randomUUID } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { admit } from './admission-webhooks.js';
import type { AdmissionOperation } from './admission-webhooks.js';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  methodNotAllowed,
  notFound,
  STALE_OBJECT,
  unsupportedMediaType,
} from './api-error.js';
import type { StatusCause } from './api-error.js';
import { defaultWorkload, validateWorkloadSelector } from './workload-defaults.js';
import { evictionDecision } from './eviction.js';
import type { KubeObject } from './object-store.js';
import { ObjectStore } from './object-store.js';
import { applyDefaults, prune, validateSchema } from './openapi-schema.js';
import type { Schema } from './openapi-schema.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, canonicalJson, isObject, PatchError } from './patch.js';
import type { Json } from './patch.js';
import { defaultPod, qosClass, validatePodResize, validatePodResources, validatePodUpdate } from './pods.js';
import type { Pod } from './pods.js';
import { apiVersionOf, ResourceRegistry, resourceKey } from './resources.js';
import type { ResourceType } from './resources.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { applyServerSide } from './server-side-apply.js';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  force?: boolean;
}

export interface ListOptions {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  limit?: number;
  continue?: string | null;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  return Array.from({ length: 5 }, () => NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)]).join('');
}

/** Everything but metadata and status: what a generation counts. */
function specOf(object: KubeObject): string {
  const { metadata: _metadata, status: _status, ...rest } = object;
  return canonicalJson(rest);
}

function validateName(type: ResourceType, name: string): StatusCause[] {
  const label = type.plural === 'namespaces';
  const pattern = label ? DNS_LABEL : DNS_SUBDOMAIN;
  if (pattern.test(name) && name.length <= (label ? 63 : 253)) return [];
  const what = label ? 'RFC 1123 label' : 'RFC 1123 subdomain';
  return [{
    reason: 'FieldValueInvalid',
    field: 'metadata.name',
    message: `Invalid value: "${name}": a lowercase ${what} must consist of lower case alphanumeric characters, '-'${label ? '' : " or '.'"}, and must start and end with an alphanumeric character`,
  }];
}

export interface ClusterOptions {
  historyLimit: number;
  clock: () => Date;
  /** Deleting a pod bound to a node marks it Terminating for its grace period; the kubelet removes it after. */
  gracefulPodDeletion?: boolean;
}

/** A 429 the next evictions answer instead of their real outcome (API Priority and Fairness, storage initializing). */
export interface EvictionThrottle {
  count: number;
  message: string;
  retryAfterSeconds: number;
}

export class Cluster {
  readonly registry = new ResourceRegistry();
  readonly store: ObjectStore;
  readonly clock: () => Date;
  /** Called after a pod is created, so the scheduler and kubelet simulators can start it. */
  onPodCreated: (pod: Pod) => void = () => undefined;
  readonly gracefulPodDeletion: boolean;
  private readonly throttles: EvictionThrottle[] = [];

  constructor(options: ClusterOptions) {
    this.store = new ObjectStore(options.historyLimit);
    this.clock = options.clock;
    this.gracefulPodDeletion = options.gracefulPodDeletion ?? false;
    for (const name of ['default', 'kube-system', 'kube-public']) this.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  now(): string {
    return this.clock().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  typeOf(object: KubeObject): ResourceType {
    const type = this.registry.byKind(object.apiVersion ?? '', object.kind ?? '');
    if (!type) throw badRequest(`no matches for kind "${object.kind}" in version "${object.apiVersion}"`);
    return type;
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const found = this.store.get(resourceKey(type), type.namespaced ? namespace : undefined, name);
    if (!found) throw notFound(type, name);
    return found;
  }

  list(type: ResourceType, namespace: string | undefined, options: ListOptions = {}): ListResult {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    const after = options.continue ? (JSON.parse(Buffer.from(options.continue, 'base64').toString('utf8')) as { key: string }).key : undefined;
    const matching = this.store.select(
      resourceKey(type),
      type.namespaced ? namespace : undefined,
      (object) =>
        matchesLabels(labels, object.metadata.labels) &&
        matchesFields(fields, object) &&
        (after === undefined || `${object.metadata.namespace ?? ''}/${object.metadata.name}` > after),
    );
    const resourceVersion = String(this.store.resourceVersion);
    if (!options.limit || matching.length <= options.limit) return { items: matching.map((object) => structuredClone(object)), resourceVersion };
    const items = matching.slice(0, options.limit).map((object) => structuredClone(object));
    const last = items[items.length - 1]!;
    const token = Buffer.from(JSON.stringify({ key: `${last.metadata.namespace ?? ''}/${last.metadata.name}` })).toString('base64');
    return { items, resourceVersion, continue: token, remainingItemCount: matching.length - items.length };
  }

  /** Test setup: stores the object as given (status included), without admission or validation. */
  put(object: KubeObject): KubeObject {
    const type = this.typeOf(object);
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : undefined;
    if (namespace && !this.store.get('/namespaces', undefined, namespace)) {
      this.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    }
    const previous = this.store.get(resourceKey(type), namespace, object.metadata.name ?? '');
    const stored = structuredClone(object);
    stored.apiVersion = apiVersionOf(type);
    stored.kind = type.kind;
    stored.metadata = {
      ...stored.metadata,
      ...(namespace ? { namespace } : {}),
      uid: previous?.metadata.uid ?? stored.metadata.uid ?? randomUUID(),
      creationTimestamp: previous?.metadata.creationTimestamp ?? stored.metadata.creationTimestamp ?? this.now(),
      generation: stored.metadata.generation ?? ((previous?.metadata.generation ?? 0) + (previous && specOf(previous) === specOf(stored) ? 0 : 1)),
    };
    if (type.plural === 'namespaces') this.labelNamespace(stored);
    const written = this.store.write(resourceKey(type), stored);
    this.afterWrite(type, written);
    return written;
  }

  async create(type: ResourceType, namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    this.checkKind(type, body);
    let object = structuredClone(body);
    object.metadata ??= {};
    if (type.namespaced) {
      if (object.metadata.namespace && object.metadata.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      object.metadata.namespace = namespace;
      const namespaceObject = this.store.get('/namespaces', undefined, namespace ?? '');
      if (!namespaceObject) throw notFound(this.registry.resolve('namespaces'), namespace ?? '');
    }
    if (!object.metadata.name && object.metadata.generateName) object.metadata.name = object.metadata.generateName + randomSuffix();
    if (!object.metadata.name) {
      throw invalid(type, '', [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
    }
    object = this.prepare(type, object);
    if (type.subresources.includes('status') && type.plural !== 'namespaces') delete object.status;
    if (type.plural === 'pods') this.initialPodStatus(object as Pod);
    if (type.plural === 'namespaces') this.labelNamespace(object);
    object = await this.admit('CREATE', type, object, undefined, options);
    this.validate(type, object);
    if (this.store.get(resourceKey(type), object.metadata.namespace, object.metadata.name!)) throw alreadyExists(type, object.metadata.name!);
    const { resourceVersion: _ignored, ...metadata } = object.metadata;
    object.metadata = { ...metadata, uid: randomUUID(), creationTimestamp: this.now(), generation: 1 };
    if (options.dryRun) return object;
    const written = this.store.write(resourceKey(type), object);
    this.afterWrite(type, written);
    if (type.plural === 'pods') this.onPodCreated(written as Pod);
    return this.store.get(resourceKey(type), written.metadata.namespace, written.metadata.name!) ?? written;
  }

  async update(type: ResourceType, namespace: string | undefined, name: string, body: KubeObject, subresource: string | undefined, options: WriteOptions = {}): Promise<KubeObject> {
    this.checkKind(type, body);
    if (body.metadata?.name && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const previous = this.get(type, namespace, name);
    return this.commit(type, previous, structuredClone(body), subresource, options);
  }

  async patch(type: ResourceType, namespace: string | undefined, name: string, patchType: PatchType, body: string, subresource: string | undefined, options: WriteOptions = {}): Promise<KubeObject> {
    if (patchType === 'apply') return this.apply(type, namespace, name, body, subresource, options);
    let patch: Json;
    try {
      patch = JSON.parse(body) as Json;
    } catch (error) {
      throw badRequest(`error decoding patch: ${(error as Error).message}`);
    }
    const previous = this.get(type, namespace, name);
    let patched: Json;
    try {
      const base = previous as unknown as Json;
      patched = patchType === 'json' ? applyJsonPatch(base, patch) : patchType === 'merge' ? applyMergePatch(base, patch) : applyStrategicMergePatch(base, patch);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      throw invalid(type, name, [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${body}: ${error.message}` }]);
    }
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    return this.commit(type, previous, patched as unknown as KubeObject, subresource, options);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: { preconditions?: { resourceVersion?: string; uid?: string }; dryRun?: boolean; gracePeriodSeconds?: number } = {}): KubeObject {
    const previous = this.get(type, namespace, name);
    const { resourceVersion, uid } = options.preconditions ?? {};
    if (resourceVersion && resourceVersion !== previous.metadata.resourceVersion) {
      throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${previous.metadata.resourceVersion}`);
    }
    if (uid && uid !== previous.metadata.uid) {
      throw conflict(type, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${previous.metadata.uid}`);
    }
    if (options.dryRun) return previous;
    if (type.plural === 'pods' && type.group === '') {
      const terminating = this.terminate(previous as Pod, options.gracePeriodSeconds);
      if (terminating) return terminating;
    }
    return this.remove(type, previous);
  }

  /** Removes the object now, and its dependents. */
  remove(type: ResourceType, object: KubeObject): KubeObject {
    const deleted = this.store.remove(resourceKey(type), object.metadata.namespace, object.metadata.name!)!;
    this.collectGarbage(type, deleted);
    return deleted;
  }

  /**
   * Graceful deletion as the apiserver does it for a pod a kubelet runs: deletionTimestamp is set
   * to now plus the grace period (DeleteOptions, else terminationGracePeriodSeconds, else 30 s)
   * and the kubelet removes the pod once it has stopped. Undefined when the pod goes at once.
   */
  private terminate(pod: Pod, gracePeriodSeconds: number | undefined): KubeObject | undefined {
    if (!this.gracefulPodDeletion || !pod.spec.nodeName || ['Succeeded', 'Failed'].includes(pod.status?.phase ?? '')) return undefined;
    const grace = gracePeriodSeconds ?? (pod.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30;
    if (grace <= 0) return undefined;
    if (pod.metadata.deletionTimestamp) return pod;
    const at = Math.ceil(this.clock().getTime() / 1000) * 1000 + grace * 1000;
    const marked = structuredClone(pod);
    marked.metadata.deletionTimestamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    marked.metadata.deletionGracePeriodSeconds = grace;
    return this.store.write('/pods', marked);
  }

  /** Makes the next `count` evictions answer 429 TooManyRequests with Retry-After, as APF throttling does. */
  throttleEvictions(throttle: EvictionThrottle): void {
    this.throttles.push({ ...throttle });
  }

  deleteCollection(type: ResourceType, namespace: string | undefined, options: ListOptions): KubeObject[] {
    return this.list(type, namespace, options).items.map((object) => this.delete(type, object.metadata.namespace, object.metadata.name!));
  }

  /** POST pods/{name}/eviction: deletes the pod unless a PodDisruptionBudget forbids it (429). */
  evict(namespace: string, name: string, body: KubeObject): void {
    const pods = this.registry.resolve('pods');
    if (body.kind !== 'Eviction' || !['policy/v1', 'policy/v1beta1'].includes(body.apiVersion ?? '')) {
      throw badRequest(`expected an Eviction of policy/v1, got ${body.kind} of ${body.apiVersion}`);
    }
    if (body.metadata?.name && body.metadata.name !== name) throw badRequest(`name in URL does not match name in Eviction object`);
    const throttle = this.throttles[0];
    if (throttle) {
      if (--throttle.count <= 0) this.throttles.shift();
      throw new ApiError(429, 'TooManyRequests', throttle.message, { retryAfterSeconds: throttle.retryAfterSeconds });
    }
    const pod = this.get(pods, namespace, name) as Pod;
    const budgets = this.store.list('policy/poddisruptionbudgets', namespace);
    const namespacePods = this.store.list('/pods', namespace) as Pod[];
    const decision = evictionDecision(pod, budgets, namespacePods);
    if (decision.kind === 'refused') throw decision.error;
    const deleteOptions = isObject(body.deleteOptions as Json) ? (body.deleteOptions as { preconditions?: { resourceVersion?: string; uid?: string }; dryRun?: string[] }) : {};
    this.delete(pods, namespace, name, { ...(deleteOptions.preconditions ? { preconditions: deleteOptions.preconditions } : {}), dryRun: (deleteOptions.dryRun ?? []).includes('All') });
  }

  /** CRDs: a stored CustomResourceDefinition serves its resource at once. */
  registerCustomResource(crd: KubeObject): void {
    const spec = crd.spec as {
      group: string;
      scope: string;
      names: { plural: string; singular?: string; kind: string; shortNames?: string[]; categories?: string[] };
      versions: { name: string; served: boolean; schema?: { openAPIV3Schema?: Schema }; subresources?: { status?: object } }[];
    };
    this.registry.unregister(spec.group, spec.names.plural);
    for (const version of spec.versions.filter((candidate) => candidate.served)) {
      const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      this.registry.register({
        group: spec.group,
        version: version.name,
        plural: spec.names.plural,
        singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
        kind: spec.names.kind,
        namespaced: spec.scope === 'Namespaced',
        shortNames: spec.names.shortNames ?? [],
        subresources: version.subresources?.status ? ['status'] : [],
        categories: spec.names.categories ?? [],
        schema,
        validate: (object) => validateSchema(object as Json, schema),
      });
    }
  }

  private checkKind(type: ResourceType, body: KubeObject): void {
    if (!isObject(body as unknown as Json)) throw badRequest('the request body must be an object');
    if ((body.kind && body.kind !== type.kind) || (body.apiVersion && body.apiVersion !== apiVersionOf(type))) {
      throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(type)}) or kind ${body.kind} is not ${type.kind}`);
    }
  }

  /** Pruning and defaulting, the apiserver's steps between decoding and admission. */
  private prepare(type: ResourceType, input: KubeObject): KubeObject {
    let object = structuredClone(input);
    object.apiVersion = apiVersionOf(type);
    object.kind = type.kind;
    if (type.schema) object = applyDefaults(prune(object as unknown as Json, type.schema, true), type.schema) as unknown as KubeObject;
    if (type.plural === 'pods') defaultPod(object as Pod);
    defaultWorkload(type, object);
    return object;
  }

  private validate(type: ResourceType, object: KubeObject): void {
    const causes = [...validateName(type, object.metadata.name ?? ''), ...type.validate(object), ...validateWorkloadSelector(type, object)];
    if (type.plural === 'pods') causes.push(...validatePodResources(object as Pod));
    if (causes.length > 0) throw invalid(type, object.metadata.name ?? '', causes);
  }

  private async admit(operation: AdmissionOperation, type: ResourceType, object: KubeObject, oldObject: KubeObject | undefined, options: WriteOptions): Promise<KubeObject> {
    const configurations = this.store.list('admissionregistration.k8s.io/mutatingwebhookconfigurations');
    if (configurations.length === 0) return object;
    const namespace = type.namespaced ? this.store.get('/namespaces', undefined, object.metadata.namespace ?? '') : undefined;
    const mutated = await admit(configurations, {
      operation,
      type,
      object,
      ...(oldObject ? { oldObject } : {}),
      ...(namespace?.metadata.labels ? { namespaceLabels: namespace.metadata.labels } : {}),
      dryRun: options.dryRun ?? false,
    });
    return this.prepare(type, mutated);
  }

  private async commit(type: ResourceType, previous: KubeObject, body: KubeObject, subresource: string | undefined, options: WriteOptions): Promise<KubeObject> {
    const name = previous.metadata.name!;
    if (subresource && !type.subresources.includes(subresource)) throw notFound(type, name);
    if (subresource === 'eviction') throw methodNotAllowed();
    const requested = body.metadata?.resourceVersion;
    if (requested && requested !== previous.metadata.resourceVersion) throw conflict(type, name, STALE_OBJECT);
    let next: KubeObject;
    if (subresource === 'status') {
      // A status write changes status only; a spec write (with a status subresource) never does.
      next = { ...structuredClone(previous), status: body.status };
      if (body.status === undefined) delete next.status;
    } else if (subresource === 'resize') {
      next = { ...structuredClone(previous), spec: body.spec };
    } else {
      next = this.prepare(type, { ...body, metadata: { ...(body.metadata ?? {}) } });
      if (type.subresources.includes('status')) {
        if (previous.status === undefined) delete next.status;
        else next.status = previous.status;
      }
      next.metadata = { ...next.metadata, name, uid: previous.metadata.uid!, creationTimestamp: previous.metadata.creationTimestamp! };
      if (type.namespaced) next.metadata.namespace = previous.metadata.namespace!;
      else delete next.metadata.namespace;
      if (type.plural === 'namespaces') this.labelNamespace(next);
      next = await this.admit('UPDATE', type, next, previous, options);
    }
    next.metadata.resourceVersion = previous.metadata.resourceVersion!;
    next.metadata.generation = (previous.metadata.generation ?? 1) + (specOf(previous) === specOf(next) ? 0 : 1);
    if (type.plural === 'pods') {
      const causes = subresource === 'resize' ? validatePodResize(previous as Pod, next as Pod) : subresource ? [] : validatePodUpdate(previous as Pod, next as Pod);
      if (causes.length > 0) throw invalid(type, name, causes);
    }
    this.validate(type, next);
    if (options.dryRun) return next;
    const written = this.store.write(resourceKey(type), next);
    this.afterWrite(type, written);
    return written;
  }

  private async apply(type: ResourceType, namespace: string | undefined, name: string, body: string, subresource: string | undefined, options: WriteOptions): Promise<KubeObject> {
    if (!options.fieldManager) {
      throw invalid({ group: 'meta.k8s.io', plural: 'patchoptions', kind: 'PatchOptions' }, '', [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }]);
    }
    let applied: unknown;
    try {
      applied = parseYaml(body);
    } catch (error) {
      throw badRequest(`error decoding YAML: ${(error as Error).message}`);
    }
    if (!isObject(applied as Json)) throw badRequest('an apply patch must be an object');
    const config = applied as KubeObject;
    config.metadata ??= {};
    const existing = this.store.get(resourceKey(type), type.namespaced ? namespace : undefined, name);
    const merged = applyServerSide(existing, config, { manager: options.fieldManager, force: options.force ?? false, apiVersion: apiVersionOf(type), time: this.now(), type });
    if (!existing) {
      const created = await this.create(type, namespace, { ...merged, metadata: { ...merged.metadata, name } }, options);
      return created;
    }
    return this.commit(type, existing, merged, subresource, options);
  }

  private initialPodStatus(pod: Pod): void {
    pod.status = { phase: 'Pending', qosClass: qosClass(pod) };
  }

  private labelNamespace(namespace: KubeObject): void {
    namespace.metadata.labels = { ...(namespace.metadata.labels ?? {}), 'kubernetes.io/metadata.name': namespace.metadata.name ?? '' };
  }

  private afterWrite(type: ResourceType, written: KubeObject): void {
    if (type.plural === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') this.registerCustomResource(written);
  }

  /** Background cascading deletion: dependents (ownerReferences) and a namespace's contents go too. */
  private collectGarbage(type: ResourceType, deleted: KubeObject): void {
    for (const dependentType of this.registry.all()) {
      for (const dependent of this.store.list(resourceKey(dependentType))) {
        const owned = dependent.metadata.ownerReferences?.some((owner) => owner.uid === deleted.metadata.uid);
        const inNamespace = type.plural === 'namespaces' && type.group === '' && dependent.metadata.namespace === deleted.metadata.name;
        if (owned || inNamespace) {
          const removed = this.store.remove(resourceKey(dependentType), dependent.metadata.namespace, dependent.metadata.name!);
          if (removed) this.collectGarbage(dependentType, removed);
        }
      }
    }
  }
}

export function patchTypeOf(contentType: string | undefined): PatchType {
  const media = (contentType ?? '').split(';')[0]!.trim();
  const patchType = PATCH_CONTENT_TYPES[media];
  if (!patchType) throw unsupportedMediaType(media);
  return patchType;
}

