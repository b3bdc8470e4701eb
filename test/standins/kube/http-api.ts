// The REST surface: routes /api and /apis paths to the cluster, answers errors as Status
// objects, and streams watches as newline-delimited JSON events.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest, methodNotAllowed, notFound } from './api-error.js';
import type { Cluster } from './cluster.js';
import { patchTypeOf } from './cluster.js';
import { apiGroup, apiGroupList, coreVersions, resourceList, SERVER_VERSION } from './discovery.js';
import type { KubeObject, StoredEvent } from './object-store.js';
import { openApiGroupVersion, openApiIndex } from './openapi-documents.js';
import { apiVersionOf, resourceKey } from './resources.js';
import type { ResourceType } from './resources.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';

const MAX_BODY = 3 * 1024 * 1024;

interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface Watch {
  type: ResourceType;
  response: ServerResponse;
  bookmarks: boolean;
  close(): void;
}

function send(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  // The apiserver sends Retry-After with every answer whose Status carries retryAfterSeconds (429, APF, storage init).
  const retryAfter = (body as { details?: { retryAfterSeconds?: number } } | undefined)?.details?.retryAfterSeconds;
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}) });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseObject(text: string, contentType: string | undefined): KubeObject {
  try {
    const parsed: unknown = (contentType ?? '').includes('yaml') ? parseYaml(text) : JSON.parse(text);
    return parsed as KubeObject;
  } catch (error) {
    throw badRequest(`error decoding request body: ${(error as Error).message}`);
  }
}

export class HttpApi {
  private readonly watches = new Set<Watch>();

  constructor(private readonly cluster: Cluster) {}

  /** Sends a BOOKMARK to every watch that asked for them, at the current resourceVersion. */
  sendBookmarks(): void {
    for (const watch of this.watches) {
      if (watch.bookmarks) this.writeEvent(watch.response, 'BOOKMARK', this.bookmark(watch.type));
    }
  }

  closeWatches(): void {
    for (const watch of [...this.watches]) watch.close();
  }

  handle = (request: IncomingMessage, response: ServerResponse): void => {
    this.dispatch(request, response).catch((error: unknown) => {
      const apiError = error instanceof ApiError ? error : new ApiError(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`);
      if (!response.headersSent) send(response, apiError.code, apiError.toStatus());
      else response.end();
    });
  };

  private async dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const segments = path.split('/').filter((segment) => segment !== '').map(decodeURIComponent);
    if (request.method === 'GET') {
      const document = this.discovery(segments, request.headers.host ?? '127.0.0.1');
      if (document) return send(response, 200, document);
    }
    const route = this.route(segments);
    if (!route) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    await this.serve(route, url.searchParams, request, response);
  }

  private discovery(segments: string[], host: string): unknown {
    const [first, second, third] = segments;
    if (segments.length === 1 && first === 'version') return SERVER_VERSION;
    if (first === 'openapi' && second === 'v3') {
      if (segments.length === 2) return openApiIndex(this.cluster.registry);
      const [, , root, ...groupVersion] = segments;
      const [group, version] = root === 'api' ? ['', groupVersion[0]] : [groupVersion[0], groupVersion[1]];
      return openApiGroupVersion(this.cluster.registry, group ?? '', version ?? '');
    }
    if (segments.length === 1 && ['healthz', 'readyz', 'livez'].includes(first ?? '')) return 'ok';
    if (segments.length === 1 && first === 'api') return coreVersions(host);
    if (segments.length === 2 && first === 'api' && second === 'v1') return resourceList(this.cluster.registry, '', 'v1');
    if (segments.length === 1 && first === 'apis') return apiGroupList(this.cluster.registry);
    if (segments.length === 2 && first === 'apis') return apiGroup(this.cluster.registry, second!);
    if (segments.length === 3 && first === 'apis' && this.cluster.registry.groupVersions().some((entry) => entry.group === second && entry.versions.includes(third!))) {
      return resourceList(this.cluster.registry, second!, third!);
    }
    return undefined;
  }

  private route(segments: string[]): Route | undefined {
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === 'api' && segments[1] === 'v1') [group, version, rest] = ['', 'v1', segments.slice(2)];
    else if (segments[0] === 'apis' && segments.length >= 4) [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
    else return undefined;
    const registry = this.cluster.registry;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      const type = registry.byPath(group, version, rest[2]!);
      if (type?.namespaced && rest.length <= 5) return { type, namespace: rest[1]!, ...(rest[3] ? { name: rest[3] } : {}), ...(rest[4] ? { subresource: rest[4] } : {}) };
    }
    const type = registry.byPath(group, version, rest[0] ?? '');
    if (!type || rest.length > 3 || (type.namespaced && rest.length > 1)) return undefined;
    return { type, ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { subresource: rest[2] } : {}) };
  }

  private async serve(route: Route, query: URLSearchParams, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { type, namespace, name, subresource } = route;
    const cluster = this.cluster;
    if (subresource && !type.subresources.includes(subresource)) throw notFound(type, name ?? '');
    const options = {
      dryRun: query.getAll('dryRun').includes('All'),
      ...(query.get('fieldManager') ? { fieldManager: query.get('fieldManager')! } : {}),
      force: query.get('force') === 'true',
    };
    const listOptions = {
      labelSelector: query.get('labelSelector'),
      fieldSelector: query.get('fieldSelector'),
      ...(query.get('limit') ? { limit: Number(query.get('limit')) } : {}),
      continue: query.get('continue'),
    };
    switch (request.method) {
      case 'GET':
        if (name) {
          if (subresource === 'eviction') throw methodNotAllowed();
          return send(response, 200, cluster.get(type, namespace, name));
        }
        if (['true', '1'].includes(query.get('watch') ?? '')) return this.watch(type, namespace, query, response);
        return send(response, 200, this.listBody(type, cluster.list(type, namespace, listOptions)));
      case 'POST': {
        const body = parseObject(await readBody(request), request.headers['content-type']);
        if (name && subresource === 'eviction') {
          cluster.evict(namespace!, name, body);
          return send(response, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
        }
        if (name) throw methodNotAllowed();
        return send(response, 201, await cluster.create(type, namespace, body, options));
      }
      case 'PUT':
        if (!name) throw methodNotAllowed();
        return send(response, 200, await cluster.update(type, namespace, name, parseObject(await readBody(request), request.headers['content-type']), subresource, options));
      case 'PATCH': {
        if (!name) throw methodNotAllowed();
        const patchType = patchTypeOf(request.headers['content-type']);
        const existed = patchType === 'apply' && cluster.store.get(resourceKey(type), type.namespaced ? namespace : undefined, name) !== undefined;
        const result = await cluster.patch(type, namespace, name, patchType, await readBody(request), subresource, options);
        return send(response, patchType === 'apply' && !existed ? 201 : 200, result);
      }
      case 'DELETE': {
        const text = await readBody(request);
        const deleteOptions = text.trim() ? (parseObject(text, 'application/json') as { preconditions?: { resourceVersion?: string; uid?: string }; gracePeriodSeconds?: number }) : {};
        if (!name) return send(response, 200, this.listBody(type, { items: cluster.deleteCollection(type, namespace, listOptions), resourceVersion: String(cluster.store.resourceVersion) }));
        const preconditions = deleteOptions.preconditions;
        const grace = query.get('gracePeriodSeconds') ?? deleteOptions.gracePeriodSeconds;
        return send(response, 200, cluster.delete(type, namespace, name, { ...(preconditions ? { preconditions } : {}), ...(grace !== undefined && grace !== null ? { gracePeriodSeconds: Number(grace) } : {}), dryRun: options.dryRun }));
      }
      default:
        throw methodNotAllowed();
    }
  }

  private listBody(type: ResourceType, result: { items: KubeObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number }): unknown {
    return {
      kind: `${type.kind}List`,
      apiVersion: apiVersionOf(type),
      metadata: {
        resourceVersion: result.resourceVersion,
        ...(result.continue ? { continue: result.continue, remainingItemCount: result.remainingItemCount } : {}),
      },
      items: result.items,
    };
  }

  private bookmark(type: ResourceType, annotations?: Record<string, string>): KubeObject {
    return {
      kind: type.kind,
      apiVersion: apiVersionOf(type),
      metadata: { resourceVersion: String(this.cluster.store.resourceVersion), ...(annotations ? { annotations } : {}) },
    };
  }

  private writeEvent(response: ServerResponse, type: string, object: unknown): void {
    response.write(`${JSON.stringify({ type, object })}\n`);
  }

  /**
   * A watch: replay from history (or synthetic ADDED events for the current state), then live
   * events. With selectors, an object entering the selection arrives as ADDED and one leaving it
   * as DELETED, as the watch cache reports them. A too-old resourceVersion is answered as the
   * apiserver does: 200, then one ERROR event carrying a 410 Expired Status.
   */
  private watch(type: ResourceType, namespace: string | undefined, query: URLSearchParams, response: ServerResponse): void {
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = parseFieldSelector(query.get('fieldSelector'));
    const matches = (object: KubeObject | undefined): boolean =>
      object !== undefined && (namespace === undefined || object.metadata.namespace === namespace) && matchesLabels(labels, object.metadata.labels) && matchesFields(fields, object);
    const key = resourceKey(type);
    const requested = query.get('resourceVersion') ?? '';
    const initialEvents = query.get('sendInitialEvents') === 'true';
    const bookmarks = query.get('allowWatchBookmarks') === 'true';
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    // Clients treat the watch as open once headers arrive, even before the first event.
    response.flushHeaders();

    const deliver = (event: StoredEvent): void => {
      if (event.key !== key) return;
      const now = matches(event.object);
      const before = event.type !== 'ADDED' && matches(event.previous);
      if (event.type === 'DELETED') {
        if (before) this.writeEvent(response, 'DELETED', event.object);
      } else if (now) {
        this.writeEvent(response, before ? 'MODIFIED' : 'ADDED', event.object);
      } else if (before) {
        this.writeEvent(response, 'DELETED', event.object);
      }
    };

    let replay: StoredEvent[] = [];
    if (requested === '' || requested === '0' || initialEvents) {
      for (const object of this.cluster.list(type, namespace, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') }).items) {
        this.writeEvent(response, 'ADDED', object);
      }
      if (initialEvents && bookmarks) this.writeEvent(response, 'BOOKMARK', this.bookmark(type, { 'k8s.io/initial-events-end': 'true' }));
    } else {
      try {
        replay = this.cluster.store.eventsSince(key, Number(requested));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        this.writeEvent(response, 'ERROR', error.toStatus());
        response.end();
        return;
      }
    }
    for (const event of replay) deliver(event);
    if (bookmarks && !initialEvents) this.writeEvent(response, 'BOOKMARK', this.bookmark(type));

    const unsubscribe = this.cluster.store.subscribe(deliver);
    const timeout = query.get('timeoutSeconds') ? setTimeout(() => watch.close(), Number(query.get('timeoutSeconds')) * 1000) : undefined;
    const watch: Watch = {
      type,
      response,
      bookmarks,
      close: () => {
        unsubscribe();
        clearTimeout(timeout);
        this.watches.delete(watch);
        response.end();
      },
    };
    this.watches.add(watch);
    response.on('close', () => watch.close());
  }
}
