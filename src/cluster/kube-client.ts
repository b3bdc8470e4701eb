// The Kubernetes API as kerf uses it: JSON over node:http(s), every failure a ClusterError with a
// stable code, lists read a page at a time and watches as streams of events. Bodies stay raw JSON
// (times are strings, unknown fields kept), which is what the rules read and what a replace sends
// back. One client for the helper and the reconciler; kube-connection.ts says how to reach the server.
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ClusterError } from './cluster-port.js';
import type { ClusterErrorCode, ClusterErrorDetails } from './cluster-port.js';
import type { KubeConnection, KubeRequestOptions } from './kube-connection.js';
import { ListSplitter } from './list-splitter.js';
import type { KubeObject } from './objects.js';
import { isObject, objectOrEmpty, type Json } from '../util/json.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';

/** One event of a watch: ADDED, MODIFIED, DELETED and BOOKMARK carry an object, ERROR a Status. */
export interface WatchEvent {
  type: string;
  object: unknown;
}

export interface KubeWatch {
  /** Settles when the stream ends (the server closes it now and then) or when stopped; rejects when it cannot open. */
  done: Promise<void>;
  stop(): void;
}

export interface KubeClient {
  readonly server: string;
  /** One call answered with JSON; `what` names it in errors. Bodies are JSON, sent as `contentType` (default application/json). */
  call<T>(what: string, method: Method, path: string, body?: unknown, contentType?: string): Promise<T>;
  get<T>(path: string): Promise<T>;
  /** A List (or one page of it), each item parsed on its own and passed through `keep` as it arrives. */
  list(path: string, keep: (item: KubeObject) => KubeObject): Promise<ListPage>;
  /** Watches `path` from `resourceVersion` (with bookmarks), passing each event as it arrives. */
  watch(path: string, resourceVersion: string, onEvent: (event: WatchEvent) => void): KubeWatch;
}

export interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items: KubeObject[];
}

const CODES: Record<number, ClusterErrorCode> = { 404: 'NotFound', 422: 'Invalid', 429: 'TooManyRequests' };

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The Status's causes and the server's retry advice (the header wins: APF sets it). */
function errorDetails(status: Json | undefined, headers: IncomingHttpHeaders): ClusterErrorDetails {
  const details = objectOrEmpty(status?.details);
  const causes = Array.isArray(details.causes)
    ? details.causes.flatMap((cause) => {
        return isObject(cause) ? [{ reason: String(cause.reason ?? ''), message: String(cause.message ?? '') }] : [];
      })
    : undefined;
  const header = headers['retry-after'];
  const retryAfterSeconds = header !== undefined && Number.isFinite(Number(header)) ? Number(header) : typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
  const serverMessage = typeof status?.message === 'string' ? status.message : '';
  return { ...(causes && { causes }), ...(retryAfterSeconds !== undefined && { retryAfterSeconds }), ...(serverMessage && { serverMessage }) };
}

/** A refused call as a ClusterError with a stable code (409 splits on the Status reason). */
function clusterError(what: string, statusCode: number, text: string, headers: IncomingHttpHeaders): ClusterError {
  const body = parsed(text);
  const status = isObject(body) ? body : undefined;
  const code = statusCode === 409 ? (status?.reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict') : (CODES[statusCode] ?? 'Failed');
  const message = status ? String(status.message ?? '') : text.slice(0, 200);
  return new ClusterError(code, `${what}: ${statusCode} ${message}`.trim(), statusCode, undefined, errorDetails(status, headers));
}

/** A response's body as one string, decoded as it arrives (held once, not as chunks and their concatenation). */
function text(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    response.setEncoding('utf8');
    let body = '';
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () => resolve(body));
    response.on('error', reject);
  });
}

export function kubeClient(connection: KubeConnection): KubeClient {
  const { server } = connection;

  /** Sends one request; `sent` sees it (to abort a watch). Failures to connect are ClusterErrors. */
  async function open(what: string, method: Method, path: string, body: string | undefined, contentType: string, sent: (request: ClientRequest) => void = () => {}): Promise<IncomingMessage> {
    const url = new URL(server + path);
    const options: KubeRequestOptions = {
      method,
      headers: { accept: 'application/json', ...(body !== undefined && { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) }) },
    };
    try {
      await connection.authorize(options);
    } catch (error) {
      throw new ClusterError('Failed', `${what}: credentials: ${(error as Error).message}`, undefined, { cause: error });
    }
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const request = send(url, options, resolve);
      request.on('error', (error) => reject(new ClusterError('Failed', `${what}: ${error.message}`, undefined, { cause: error })));
      sent(request);
      request.end(body);
    });
  }

  async function call<T>(what: string, method: Method, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const response = await open(what, method, path, body === undefined ? undefined : JSON.stringify(body), contentType);
    const answer = await text(response);
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw clusterError(what, status, answer, response.headers);
    try {
      return JSON.parse(answer) as T;
    } catch (error) {
      throw new ClusterError('Failed', `${what}: not JSON`, status, { cause: error });
    }
  }

  async function list(path: string, keep: (item: KubeObject) => KubeObject): Promise<ListPage> {
    const what = `GET ${path}`;
    const response = await open(what, 'GET', path, undefined, '');
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw clusterError(what, status, await text(response), response.headers);
    const items: KubeObject[] = [];
    const splitter = new ListSplitter((item) => items.push(keep(item as KubeObject)));
    return new Promise((resolve, reject) => {
      const fail = (error: unknown) => reject(new ClusterError('Failed', `${what}: not JSON`, status, { cause: error }));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        try {
          splitter.write(chunk);
        } catch (error) {
          fail(error);
          response.destroy();
        }
      });
      response.on('end', () => {
        try {
          resolve({ ...(splitter.end() as Omit<ListPage, 'items'>), items });
        } catch (error) {
          fail(error);
        }
      });
      response.on('error', (error) => reject(new ClusterError('Failed', `${what}: ${error.message}`, status, { cause: error })));
    });
  }

  function watch(path: string, resourceVersion: string, onEvent: (event: WatchEvent) => void): KubeWatch {
    let request: ClientRequest | undefined;
    let stopped = false;
    const what = `watch ${path}`;
    const query = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', ...(resourceVersion && { resourceVersion }) });
    const done = (async () => {
      if (stopped) return;
      const response = await open(what, 'GET', `${path}?${query}`, undefined, '', (sent) => {
        request = sent;
        if (stopped) sent.destroy();
        // A peer that vanished without closing the connection is found by TCP keep-alive, as client-go does.
        sent.on('socket', (socket) => socket.setKeepAlive(true, 30_000));
      });
      if (response.statusCode !== 200) throw clusterError(what, response.statusCode ?? 0, await text(response), response.headers);
      await new Promise<void>((resolve, reject) => {
        response.setEncoding('utf8');
        let buffered = '';
        response.on('data', (chunk: string) => {
          buffered += chunk;
          for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            if (line.trim() === '') continue;
            try {
              onEvent(JSON.parse(line) as WatchEvent);
            } catch (error) {
              reject(new ClusterError('Failed', `${what}: an event that is not JSON`, 200, { cause: error }));
              request?.destroy();
              return;
            }
          }
        });
        // Ended, cut off or stopped: the caller watches again from the last resourceVersion it saw.
        response.on('error', () => {});
        response.on('close', resolve);
      });
    })();
    return {
      done,
      stop() {
        stopped = true;
        request?.destroy();
      },
    };
  }

  return { server, call, get: (path) => call(`GET ${path}`, 'GET', path), list, watch };
}

/** Items per list page: client-go's reflector pages by 500 too. */
export const PAGE_SIZE = 500;

/** How often a list whose continue token expired (410) is started again from the first page. */
const LIST_ATTEMPTS = 3;

export interface PagedList {
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

/**
 * Every item of a list, a page at a time (`limit`/`continue`), each page's items passed through
 * `keep` before the next page is read. The resource version is the first page's: the API server
 * serves every page from that snapshot, so a watch from it misses nothing. A continue token that
 * expired (410) starts the list again, as client-go's pager does.
 */
export async function listPaged(client: KubeClient, path: string, keep: (item: KubeObject) => KubeObject = (item) => item, pageSize = PAGE_SIZE): Promise<PagedList> {
  for (let attempt = 1; ; attempt++) {
    const items: KubeObject[] = [];
    let resourceVersion: string | undefined;
    let token: string | undefined;
    try {
      do {
        const query = new URLSearchParams({ limit: String(pageSize), ...(token && { continue: token }) });
        const page = await client.list(`${path}?${query}`, keep);
        resourceVersion ??= page.metadata?.resourceVersion ?? '';
        items.push(...page.items);
        token = page.metadata?.continue || undefined;
      } while (token);
      return { metadata: { resourceVersion: resourceVersion ?? '' }, items };
    } catch (error) {
      const expired = token !== undefined && error instanceof ClusterError && error.status === 410;
      if (!expired || attempt >= LIST_ATTEMPTS) throw error;
    }
  }
}
