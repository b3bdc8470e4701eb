// How kerf reaches the API server: the pod's service account (in the cluster) or a kubeconfig's
// current context, read here rather than by client-node, whose KubeConfig loads its whole generated
// API (~75 MiB of the helper's memory). A kubeconfig whose user logs in through an exec plugin or
// an auth provider (the clouds' logins), or that names a proxy, is handed to client-node's
// KubeConfig, imported only then, which signs each request.
import { accessSync, constants, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { type Json, nonEmptyText, objectOrEmpty } from '../util/json.js';

/** Request options with headers present, for a connection to add its credentials to. */
export type KubeRequestOptions = RequestOptions & { headers: Record<string, string> };

export interface KubeConnection {
  /** The API server's URL, without a trailing slash. */
  readonly server: string;
  /** Adds TLS settings and credentials to one request (token files are read each time: they rotate). */
  authorize(options: KubeRequestOptions): Promise<void>;
}

export class KubeconfigError extends Error {
  readonly code = 'InvalidKubeconfig';
}

/** Kubeconfig text to data; the edges pass the YAML parser (only manifests/ imports it). */
export type KubeconfigParser = (text: string) => unknown;

export const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

async function bearer(options: KubeRequestOptions, tokenFile: string): Promise<void> {
  options.headers.authorization = `Bearer ${(await readFile(tokenFile, 'utf8')).trim()}`;
}

/** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its CA, and its token, which the kubelet rotates. */
export function inClusterConnection(env: NodeJS.ProcessEnv, root = SERVICE_ACCOUNT): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const ca = readFileSync(join(root, 'ca.crt'));
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`,
    async authorize(options) {
      options.ca = ca;
      await bearer(options, join(root, 'token'));
    },
  };
}


/** A kubeconfig file as read: its data, and the folder its relative paths start from. */
export interface KubeconfigFile {
  data: unknown;
  dir: string;
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile', 'token-file'];

/** The named entries of one list (clusters, users, contexts), relative paths made absolute. */
function entries(file: KubeconfigFile, list: string): [string, Json][] {
  const items = objectOrEmpty(file.data)[list];
  return (Array.isArray(items) ? items : []).flatMap((item): [string, Json][] => {
    const name = nonEmptyText(objectOrEmpty(item).name);
    if (!name) return [];
    const inner = { ...objectOrEmpty(objectOrEmpty(item)[list.slice(0, -1)]) };
    for (const field of PATH_FIELDS) {
      const path = nonEmptyText(inner[field]);
      if (path && !isAbsolute(path)) inner[field] = join(file.dir, path);
    }
    return [[name, inner]];
  });
}

/** Several kubeconfig files as kubectl merges them: the first file to set a name (or the current context) wins. */
function merge(files: readonly KubeconfigFile[]): { context: string | undefined; clusters: Map<string, Json>; users: Map<string, Json>; contexts: Map<string, Json> } {
  const named = (list: string) => {
    const map = new Map<string, Json>();
    for (const file of files) for (const [name, value] of entries(file, list)) if (!map.has(name)) map.set(name, value);
    return map;
  };
  const context = files.map((file) => nonEmptyText(objectOrEmpty(file.data)['current-context'])).find(Boolean);
  return { context, clusters: named('clusters'), users: named('users'), contexts: named('contexts') };
}

/** A file's contents or base64 data, as kubeconfig fields come in pairs. */
function material(file: unknown, data: unknown): Buffer | undefined {
  if (nonEmptyText(file)) return readFileSync(file as string);
  return nonEmptyText(data) ? Buffer.from(data as string, 'base64') : undefined;
}

/** The current context of one or more kubeconfig files (merged as kubectl merges KUBECONFIG). */
export function kubeconfigConnection(files: readonly KubeconfigFile[]): KubeConnection {
  const { context: current, clusters, users, contexts } = merge(files);
  if (!current) throw new KubeconfigError('the kubeconfig has no current-context');
  const context = contexts.get(current);
  if (!context) throw new KubeconfigError(`the kubeconfig's current-context ${current} is not among its contexts`);
  const cluster = clusters.get(nonEmptyText(context.cluster) ?? '');
  const server = nonEmptyText(cluster?.server)?.replace(/\/+$/, '');
  if (!cluster || !server) throw new KubeconfigError(`the kubeconfig's context ${current} names no cluster with a server`);
  const user = users.get(nonEmptyText(context.user) ?? '') ?? {};
  if (user.exec || user['auth-provider'] || cluster['proxy-url']) return signedByClientNode(files, current, server);

  const ca = material(cluster['certificate-authority'], cluster['certificate-authority-data']);
  const cert = material(user['client-certificate'], user['client-certificate-data']);
  const key = material(user['client-key'], user['client-key-data']);
  const token = nonEmptyText(user.token);
  // kubectl writes tokenFile; client-node reads token-file.
  const tokenFile = nonEmptyText(user.tokenFile) ?? nonEmptyText(user['token-file']);
  const basic = nonEmptyText(user.username) && `${user.username as string}:${String(user.password ?? '')}`;
  const impersonate = nonEmptyText(user.as);
  const tlsServerName = nonEmptyText(cluster['tls-server-name']);
  return {
    server,
    async authorize(options) {
      if (ca) options.ca = ca;
      if (cert) options.cert = cert;
      if (key) options.key = key;
      if (cluster['insecure-skip-tls-verify'] === true) options.rejectUnauthorized = false;
      if (tlsServerName) options.servername = tlsServerName;
      if (basic) options.auth = basic;
      if (impersonate) options.headers['impersonate-user'] = impersonate;
      if (token) options.headers.authorization = `Bearer ${token}`;
      else if (tokenFile) await bearer(options, tokenFile);
    },
  };
}

/** client-node's KubeConfig over the same merged data, loaded on the first request, for the logins only it implements. */
function signedByClientNode(files: readonly KubeconfigFile[], current: string, server: string): KubeConnection {
  const { clusters, users, contexts } = merge(files);
  const list = (map: Map<string, Json>, field: string) => [...map].map(([name, value]) => ({ name, [field]: value }));
  const text = JSON.stringify({ apiVersion: 'v1', kind: 'Config', 'current-context': current, clusters: list(clusters, 'cluster'), users: list(users, 'user'), contexts: list(contexts, 'context') });
  let loaded: Promise<{ applyToHTTPSOptions(options: RequestOptions): Promise<void> }> | undefined;
  return {
    server,
    async authorize(options) {
      loaded ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromString(text);
        return kubeConfig;
      });
      await (await loaded).applyToHTTPSOptions(options);
    },
  };
}

/** The kubeconfig files of KUBECONFIG, else ~/.kube/config if there is one; none when neither is set. */
function kubeconfigPaths(env: NodeJS.ProcessEnv): string[] {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter(Boolean);
  const home = env.HOME && join(env.HOME, '.kube', 'config');
  return home && readable(home) ? [home] : [];
}

/**
 * Why no cluster can be reached from this environment: undefined when one is configured (KUBECONFIG,
 * ~/.kube/config, or the pod's service account, in that order, as kubectl and client-node look).
 */
export function clusterConfigProblem(env: NodeJS.ProcessEnv, root = SERVICE_ACCOUNT): string | undefined {
  const paths = kubeconfigPaths(env);
  if (paths.length > 0) {
    const unreadable = paths.filter((file) => !readable(file));
    return unreadable.length > 0 ? `cannot read KUBECONFIG ${unreadable.join(delimiter)}` : undefined;
  }
  if (env.KUBERNETES_SERVICE_HOST && readable(join(root, 'token'))) return undefined;
  return 'no cluster configured: set KUBECONFIG or run in a cluster';
}

/** The connection this environment configures (see clusterConfigProblem). */
export function connectionFromEnvironment(env: NodeJS.ProcessEnv, parse: KubeconfigParser, root = SERVICE_ACCOUNT): KubeConnection {
  const problem = clusterConfigProblem(env, root);
  if (problem) throw new KubeconfigError(problem);
  const paths = kubeconfigPaths(env);
  if (paths.length === 0) return inClusterConnection(env, root);
  return kubeconfigConnection(paths.map((path) => ({ data: parse(readFileSync(path, 'utf8')), dir: dirname(path) })));
}
