// The pod webhook (S2, N4): new pods of an in-place workload get the values already applied, as a
// JSONPatch touching only CPU and memory. `admit` is pure; the HTTPS server around it fails open,
// so a broken helper never blocks a pod.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { RESOURCE_NAMES, type ContainerRecommendation } from '../model/types.js';
import { parseQuantity, type Quantity } from '../rules/quantity.js';
import type { Pod, PodContainer, ResourceList } from '../cluster/objects.js';
import { isObject } from '../util/json.js';
import type { Logger } from '../util/logger.js';
import type { WebhookState } from './webhook-state.js';
import { podWorkload, revisionOf } from '../lifecycle/pod-owners.js';
import { workloadKey } from '../util/workload-key.js';

export const WEBHOOK_PATH = '/mutate-pods';

export interface JsonPatchOperation {
  op: 'add' | 'remove';
  path: string;
  value?: unknown;
}

export interface AdmissionRequest {
  uid: string;
  kind?: { group: string; version: string; kind: string };
  operation?: string;
  namespace?: string;
  object?: unknown;
}

export interface AdmissionReview {
  apiVersion?: string;
  kind?: string;
  request?: AdmissionRequest;
}

/**
 * Parsed quantities by their text. Every pod of a workload carries the same few values, and
 * parsing them exactly (bigints) on each review was a third of what an admission allocated, which
 * sets how often a young-generation GC pauses the webhook. Bounded: pod specs are not ours to trust.
 */
const quantities = new Map<string, Quantity>();
const QUANTITIES_KEPT = 1024;

function quantity(text: string): Quantity {
  let parsed = quantities.get(text);
  if (parsed === undefined) {
    parsed = parseQuantity(text);
    if (quantities.size >= QUANTITIES_KEPT) quantities.clear();
    quantities.set(text, parsed);
  }
  return parsed;
}

function same(a: string | undefined, b: string): boolean {
  return a !== undefined && (a === b || quantity(a).equals(quantity(b)));
}

/** The operations that give one container the wanted values, and what its resources become. */
function containerPatch(base: string, container: PodContainer, wanted: ContainerRecommendation): { ops: JsonPatchOperation[]; result: Required<Pick<NonNullable<PodContainer['resources']>, 'requests' | 'limits'>> } {
  const ops: JsonPatchOperation[] = [];
  const resources = container.resources;
  if (!resources) ops.push({ op: 'add', path: `${base}/resources`, value: {} });
  const result = { requests: { ...resources?.requests }, limits: { ...resources?.limits } };
  for (const group of ['requests', 'limits'] as const) {
    const current: ResourceList | undefined = resources?.[group];
    const groupOps: JsonPatchOperation[] = [];
    let created = current !== undefined;
    for (const resource of RESOURCE_NAMES) {
      const to = wanted[group][resource];
      if (to === undefined) continue;
      const from = current?.[resource];
      if (to === null) {
        if (from === undefined) continue;
        groupOps.push({ op: 'remove', path: `${base}/resources/${group}/${resource}` });
        delete result[group][resource];
        continue;
      }
      if (same(from, to)) continue;
      if (!created) {
        groupOps.push({ op: 'add', path: `${base}/resources/${group}`, value: {} });
        created = true;
      }
      groupOps.push({ op: 'add', path: `${base}/resources/${group}/${resource}`, value: to });
      result[group][resource] = to;
    }
    // The last entry removed: drop the map, as the API server would not keep an empty one.
    const emptied = current !== undefined && Object.keys(current).length > 0 && Object.keys(result[group]).length === 0;
    ops.push(...(emptied ? [{ op: 'remove' as const, path: `${base}/resources/${group}` }] : groupOps));
  }
  return { ops, result };
}

/** A request above its limit would make the API server refuse the pod: better no patch at all. */
function requestsWithinLimits(result: { requests: ResourceList; limits: ResourceList }): boolean {
  return RESOURCE_NAMES.every((resource) => {
    const request = result.requests[resource];
    const limit = result.limits[resource];
    return request === undefined || limit === undefined || quantity(request).compare(quantity(limit)) <= 0;
  });
}

/**
 * The JSONPatch for a pod CREATE: only for pods of a workload whose values the helper applies in
 * place, only cpu/memory requests and limits, removals included (N4). Anything else: no patch.
 */
export function admit(review: AdmissionReview, state: WebhookState): JsonPatchOperation[] {
  const request = review.request;
  if (!request || request.operation !== 'CREATE' || request.kind?.kind !== 'Pod' || !isObject(request.object)) return [];
  const pod = request.object as unknown as Pod;
  const namespace = request.namespace ?? pod.metadata?.namespace ?? 'default';
  if (!pod.metadata || !pod.spec) return [];
  const owner = podWorkload(pod, namespace, state.replicaSetOwners);
  if (!owner) return [];
  const applied = state.applied.get(workloadKey({ namespace, kind: owner.kind, name: owner.name }));
  const revision = revisionOf(pod.metadata.labels);
  const wanted = applied?.released ?? (revision !== undefined ? applied?.byRevision.get(revision) : undefined);
  if (!wanted) return [];
  const ops: JsonPatchOperation[] = [];
  const lists = [['containers', pod.spec.containers], ['initContainers', pod.spec.initContainers ?? []]] as const;
  for (const [field, containers] of lists) {
    for (const [index, container] of containers.entries()) {
      // Plain init containers run before the pod starts; only native sidecars keep running.
      if (field === 'initContainers' && container.restartPolicy !== 'Always') continue;
      const values = wanted.find((entry) => entry.name === container.name);
      if (!values) continue;
      const patch = containerPatch(`/spec/${field}/${index}`, container, values);
      if (!requestsWithinLimits(patch.result)) return [];
      ops.push(...patch.ops);
    }
  }
  return ops;
}

/** The AdmissionReview answer: always allowed, with the patch when there is one. */
export function reviewResponse(uid: string, ops: readonly JsonPatchOperation[]): AdmissionReview & { response: Record<string, unknown> } {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed: true,
      ...(ops.length > 0 && { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') }),
    },
  };
}

/** Certificate files (cert-manager's mounted Secret), re-read when they change. */
export interface CertificateFiles {
  tlsCert: string;
  tlsKey: string;
}

/** A certificate in memory (the helper's own); the caller renews it with `server.setSecureContext`. */
export interface CertificateInMemory {
  certificate: { cert: string; key: string };
}

export type WebhookServerOptions = (CertificateFiles | CertificateInMemory) & {
  port: number;
  host?: string;
  state: () => WebhookState;
  logger: Logger;
  /** How often to look for a renewed certificate (cert-manager rewrites the mounted Secret); default 60 s. */
  reloadIntervalMs?: number;
};

/** Re-reads the certificate and key when their files change, so a renewal needs no restart. */
function reloadOnChange(server: Server, options: CertificateFiles & WebhookServerOptions): void {
  const stamp = () => `${statSync(options.tlsCert).mtimeMs}|${statSync(options.tlsKey).mtimeMs}`;
  let seen = stamp();
  const timer = setInterval(() => {
    try {
      const now = stamp();
      if (now === seen) return;
      server.setSecureContext({ cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) });
      seen = now;
      options.logger.info('webhook certificate reloaded', { cert: options.tlsCert });
    } catch (error) {
      options.logger.warn('webhook certificate not reloaded, keeping the current one', { error: (error as Error).message });
    }
  }, options.reloadIntervalMs ?? 60_000);
  timer.unref();
  server.on('close', () => clearInterval(timer));
}

const MAX_BODY = 3 * 1024 * 1024;

/**
 * How long an idle connection is kept: longer than kube-apiserver's webhook client keeps one (Go's
 * http.Transport, 90 s), so the client is the one to close it. Closing first (node's default is
 * 5 s) makes the next call after a quiet spell pay a new TLS handshake, and a call sent just as the
 * server closes fails, which the API server does not retry for a POST.
 */
const KEEP_ALIVE_MS = 120_000;

/** The HTTPS server on `/mutate-pods`; any error answers allowed without a patch (fail open). */
export async function startWebhookServer(options: WebhookServerOptions): Promise<Server> {
  const { logger } = options;
  const initial = 'certificate' in options ? options.certificate : { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) };
  const server = createServer(initial, (req, res) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== WEBHOOK_PATH) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      let uid = '';
      let ops: JsonPatchOperation[] = [];
      try {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReview;
        uid = review.request?.uid ?? '';
        if (size > MAX_BODY) throw new Error(`admission review larger than ${MAX_BODY} bytes`);
        ops = admit(review, options.state());
      } catch (error) {
        ops = [];
        logger.warn('webhook request failed open', { uid, error: (error as Error).message });
      }
      const body = JSON.stringify(reviewResponse(uid, ops));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (!('certificate' in options)) reloadOnChange(server, options);
  return server;
}
