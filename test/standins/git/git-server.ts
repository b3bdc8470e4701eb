import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { branchHead, commitToBranch, type FileChanges } from './bare-repo.js';
import { isolatedGitEnv, runGit, type GitIdentity } from './run-git.js';

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';
const SEED_IDENTITY: GitIdentity = { name: 'Repo Seeder', email: 'seeder@example.test' };

export interface GitRequest {
  method: string;
  /** e.g. `/acme/deploy.git/git-receive-pack` */
  path: string;
  status: number;
}

export interface CreateBareRepoOptions {
  defaultBranch?: string;
  files?: FileChanges;
  author?: GitIdentity;
  message?: string;
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly token: string;
  /** Every HTTP request answered, in order (pushes are POSTs to `git-receive-pack`). */
  readonly requests: GitRequest[];
  /**
   * Clone URL of a repository. By default it carries `x-access-token:<token>`;
   * `{ token: null }` gives the bare URL (as actions/checkout leaves `origin`),
   * `{ token: 'other' }` a URL with another (e.g. wrong) token.
   */
  url(owner: string, repo: string, options?: { token?: string | null }): string;
  /** Creates `<owner>/<repo>.git` with one commit holding `files` on the default branch; resolves with its sha. */
  createBareRepo(owner: string, repo: string, options?: CreateBareRepoOptions): Promise<string>;
  bareDir(owner: string, repo: string): string;
  /** Someone else commits `files` on `branch` (created from the default branch if missing); resolves with the new head. */
  pushAs(owner: string, repo: string, author: GitIdentity, branch: string, files: FileChanges): Promise<string>;
  /** Head commit of a branch, or null when it does not exist. */
  headOf(owner: string, repo: string, branch: string): Promise<string | null>;
  close(): Promise<void>;
}

/** Serves bare repositories over git's smart HTTP protocol (git http-backend as CGI) behind token Basic auth. */
export async function startGitServer(options: { token: string }): Promise<GitServer> {
  const root = await mkdtemp(path.join(tmpdir(), 'kerf-git-standin-'));
  const requests: GitRequest[] = [];
  const children = new Set<ChildProcess>();
  const bareDir = (owner: string, repo: string): string => path.join(root, owner, `${repo}.git`);

  const server = createServer((req, res) => {
    res.on('finish', () => requests.push({ method: req.method ?? '', path: pathOf(req), status: res.statusCode }));
    const user = authenticatedUser(req, options.token);
    if (user === null) {
      // GitHub answers git clients this way; git then fails with "Authentication failed".
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="GitHub"', 'Content-Type': 'text/plain' });
      res.end('Invalid username or token.\n');
      return;
    }
    serveWithHttpBackend(req, res, root, user, children);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    token: options.token,
    requests,
    url(owner, repo, urlOptions = {}) {
      const token = urlOptions.token === undefined ? options.token : urlOptions.token;
      const credentials = token === null ? '' : `x-access-token:${encodeURIComponent(token)}@`;
      return `http://${credentials}127.0.0.1:${port}/${owner}/${repo}.git`;
    },
    async createBareRepo(owner, repo, repoOptions = {}) {
      const dir = bareDir(owner, repo);
      const defaultBranch = repoOptions.defaultBranch ?? 'main';
      await mkdir(dir, { recursive: true });
      await runGit(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`], { cwd: dir });
      return commitToBranch(dir, {
        branch: defaultBranch,
        files: repoOptions.files ?? {},
        identity: repoOptions.author ?? SEED_IDENTITY,
        message: repoOptions.message ?? 'Initial commit',
      });
    },
    bareDir,
    pushAs(owner, repo, author, branch, files) {
      return commitToBranch(bareDir(owner, repo), {
        branch,
        files,
        identity: author,
        message: `Change by ${author.name}`,
        from: 'HEAD',
      });
    },
    headOf(owner, repo, branch) {
      return branchHead(bareDir(owner, repo), branch);
    },
    async close() {
      for (const child of children) child.kill();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://standin').pathname;
}

/** The Basic-auth user name when the password is the token (any user name, as GitHub accepts), else null. */
function authenticatedUser(req: IncomingMessage, token: string): string | null {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.slice(colon + 1) !== token) return null;
  return decoded.slice(0, colon) || 'x-access-token';
}

function serveWithHttpBackend(
  req: IncomingMessage,
  res: ServerResponse,
  root: string,
  user: string,
  children: Set<ChildProcess>,
): void {
  const url = new URL(req.url ?? '/', 'http://standin');
  const env: NodeJS.ProcessEnv = {
    ...isolatedGitEnv(),
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    // Pushing needs receive-pack; http-backend enables it for an authenticated REMOTE_USER, say so explicitly.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.receivepack',
    GIT_CONFIG_VALUE_0: 'true',
    REMOTE_USER: user,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: 'HTTP/1.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  };
  // Without a length http-backend reads the (chunked) body to EOF.
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;

  const child = spawn(HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => {}); // http-backend may exit before reading the whole body (e.g. 404)
  req.pipe(child.stdin);

  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const parsed = parseCgiHead(head);
    if (!parsed) return;
    headersSent = true;
    res.writeHead(parsed.status, parsed.headers);
    if (parsed.rest.length > 0) res.write(parsed.rest);
  });
  child.on('close', (code) => {
    children.delete(child);
    if (!headersSent) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`git http-backend failed (exit ${code}): ${stderr}`);
      return;
    }
    res.end();
  });
}

/** Splits a CGI response into status, headers and the start of the body; null until the blank line arrived. */
function parseCgiHead(buffer: Buffer): { status: number; headers: Record<string, string>; rest: Buffer } | null {
  const text = buffer.toString('latin1');
  const crlf = text.indexOf('\r\n\r\n');
  const lf = text.indexOf('\n\n');
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, length: 4 } : lf >= 0 ? { at: lf, length: 2 } : null;
  if (!end) return null;
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end.at).split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
    else headers[name] = value;
  }
  return { status, headers, rest: buffer.subarray(end.at + end.length) };
}
