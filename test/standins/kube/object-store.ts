// Storage with one global, increasing resourceVersion and a bounded event history that watches
// resume from, like etcd plus the apiserver's watch cache.
import { expired } from './api-error.js';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  resourceVersion: number;
  /** `group/plural` of the resource. */
  key: string;
  type: EventType;
  object: KubeObject;
  /** The object before a MODIFIED/DELETED, so filtered watches can tell an object leaving their selector. */
  previous?: KubeObject;
}

export type StoreListener = (event: StoredEvent) => void;

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export class ObjectStore {
  private revision = 1;
  /** Watches may resume from any resourceVersion ≥ floor: every later event is still in history. */
  private floor = 0;
  private history: StoredEvent[] = [];
  private readonly buckets = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<StoreListener>();

  constructor(private readonly historyLimit: number) {}

  get resourceVersion(): number {
    return this.revision;
  }

  get(key: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.buckets.get(key)?.get(objectKey(namespace, name));
    return found && structuredClone(found);
  }

  /** Objects sorted by namespace and name, the order list continuations rely on. */
  list(key: string, namespace?: string): KubeObject[] {
    return this.select(key, namespace).map((object) => structuredClone(object));
  }

  /**
   * The stored objects themselves, sorted, for a caller that filters and pages before it copies
   * (a paged list of 10,000 pods must not copy them all for every page). Do not modify them.
   */
  select(key: string, namespace?: string, keep: (object: KubeObject) => boolean = () => true): readonly KubeObject[] {
    const bucket = [...(this.buckets.get(key)?.entries() ?? [])];
    return bucket
      .filter(([, object]) => (namespace === undefined || object.metadata.namespace === namespace) && keep(object))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => object);
  }

  /** Stores the object under a new resourceVersion; ADDED or MODIFIED by whether it existed. */
  write(key: string, object: KubeObject): KubeObject {
    const bucket = this.buckets.get(key) ?? new Map<string, KubeObject>();
    this.buckets.set(key, bucket);
    const id = objectKey(object.metadata.namespace, object.metadata.name ?? '');
    const previous = bucket.get(id);
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = String(++this.revision);
    bucket.set(id, stored);
    this.record({ resourceVersion: this.revision, key, type: previous ? 'MODIFIED' : 'ADDED', object: stored, ...(previous ? { previous } : {}) });
    return structuredClone(stored);
  }

  remove(key: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const bucket = this.buckets.get(key);
    const previous = bucket?.get(objectKey(namespace, name));
    if (!bucket || !previous) return undefined;
    bucket.delete(objectKey(namespace, name));
    // The DELETED event carries the object at the deletion's own resourceVersion.
    const deleted = structuredClone(previous);
    deleted.metadata.resourceVersion = String(++this.revision);
    this.record({ resourceVersion: this.revision, key, type: 'DELETED', object: deleted, previous });
    return structuredClone(deleted);
  }

  /** Events of `key` after `resourceVersion`; 410 Expired when history no longer reaches back. */
  eventsSince(key: string, resourceVersion: number): StoredEvent[] {
    if (resourceVersion < this.floor) throw expired(resourceVersion, this.floor);
    return this.history.filter((event) => event.key === key && event.resourceVersion > resourceVersion);
  }

  /** Forgets all history, as an etcd compaction does: older resourceVersions now answer 410. */
  compact(): void {
    this.history = [];
    this.floor = this.revision;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    while (this.history.length > this.historyLimit) {
      this.floor = this.history.shift()!.resourceVersion;
    }
    for (const listener of this.listeners) listener(event);
  }
}
