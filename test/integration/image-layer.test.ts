// The helper image without a Docker engine: the runtime stage's COPY lines (read from the Dockerfile, so the
// two cannot drift) laid out in a directory with no node_modules in reach, and its ENTRYPOINT run from there.
// Everything of the image but `docker build` itself: the bundle is complete, ESM without a package.json
// beside it, and the Deployment's uid and args fit the image.
import { execFile, spawn } from 'node:child_process';
import { request } from 'node:https';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { fromSecretData } from '../../src/helper/serving-certificate.js';
import { startKubeApi } from '../standins/kube/start-kube-api.js';
import { freePort, until } from '../support/processes.js';
import { execForm, layOutRuntimeLayer, nodeModulesInReach, parseDockerfile, type Stage } from '../support/dockerfile.js';

const root = join(import.meta.dirname, '../..');
const example = join(root, 'examples/shop');
const run = promisify(execFile);
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1) as Stage;
const instructions = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword);

let layer: string;
let entrypoint: string[];

/** The image's ENTRYPOINT with `args` as node's arguments, run from the layer on this machine's node. */
function command(args: string[]): { argv: string[]; cwd: string } {
  const [node, ...rest] = entrypoint;
  expect(node).toBe('/nodejs/bin/node'); // where distroless keeps node
  return { argv: [...rest.map((arg) => (arg.startsWith('/') ? join(layer, arg) : arg)), ...args], cwd: join(layer, instructions('WORKDIR').at(-1)?.args ?? '/') };
}

/** The image's ENTRYPOINT with `args`, as the container runtime would start it, but on this machine's node. */
async function image(args: string[]) {
  const { argv, cwd } = command(args);
  try {
    const { stdout, stderr } = await run(process.execPath, argv, { cwd, env: { PATH: process.env.PATH ?? '', HOME: layer } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The helper container of the install's Deployment. */
const helperContainer = () =>
  (parseAllDocuments(readFileSync(join(root, 'templates/install/deployment.yaml'), 'utf8')).map((doc) => doc.toJS()).find((doc) => doc.kind === 'Deployment')).spec.template.spec
    .containers[0] as { env: { name: string; value?: string }[] };

/** The bundle's chunks as the build made them, where the image keeps them. */
const chunks = () => readdirSync(join(root, 'lib/kerf-gitops-chunks')).map((name) => `/app/kerf-gitops-chunks/${name}`);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length))
    .sort();
}

beforeAll(async () => {
  layer = await mkdtemp(join(tmpdir(), 'kerf-image-'));
  layOutRuntimeLayer(stages, root, layer);
  entrypoint = execForm(instructions('ENTRYPOINT').at(-1));
});

afterAll(() => rm(layer, { recursive: true, force: true }));

describe('the Dockerfile', () => {
  it('builds with npm ci and npm run build, and runs on a small Node 20 base', () => {
    const build = stages.find((stage) => stage.name === 'build');
    expect(build?.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args)).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(runtime.from).toMatch(/^(gcr\.io\/distroless\/nodejs20-debian12|node:20[.\w-]*-slim)\b/);
    expect(instructions('RUN')).toEqual([]); // distroless has no shell: the runtime stage only copies
  });

  it('runs as the uid the Deployment expects, with the Deployment adding only args to the ENTRYPOINT', () => {
    expect(instructions('USER').map((i) => i.args)).toEqual(['65532:65532']);
    const deployment = parseAllDocuments(readFileSync(join(root, 'templates/install/deployment.yaml'), 'utf8'))
      .map((doc) => doc.toJS())
      .find((doc) => doc.kind === 'Deployment');
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532 });
    expect(pod.containers[0].command).toBeUndefined();
    expect(pod.containers[0].args[0]).toBe('helper');
    expect(pod.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
  });

  it('carries the OCI labels, the version one with the release version', () => {
    const labels = instructions('LABEL').map((i) => i.args).join(' ');
    for (const key of ['title', 'description', 'source', 'licenses', 'version', 'revision']) expect(labels).toContain(`org.opencontainers.image.${key}=`);
    expect(labels).toContain('org.opencontainers.image.licenses="Apache-2.0"');
    expect(instructions('ARG').map((i) => i.args)).toContain(`VERSION=${version}`);
  });

  it('.dockerignore keeps local installs and builds out of the build context', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'lib', 'dist', '.git']));
  });
});

describe('the runtime layer', () => {
  it('holds the bundle, its chunks and the licence, with no node_modules in reach', () => {
    expect(chunks().length).toBeGreaterThan(1);
    expect(files(layer)).toEqual(['/app/LICENSE', '/app/kerf-gitops.mjs', ...chunks()].sort());
    expect(nodeModulesInReach(join(layer, 'app'), existsSync)).toEqual([]);
  });

  it('--version prints the package version', async () => {
    expect(await image(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('helper --help prints the helper options', async () => {
    const { code, stdout } = await image(['helper', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--config', '--webhook-port', '--tls-cert', '--tls-key', '--no-webhook', '--health-port']) expect(stdout).toContain(flag);
  });

  it('plan on the example gives the same JSON as the CLI of the checkout, and writes nothing into the layer', async () => {
    const args = ['plan', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--output', 'json'];
    const fromImage = await image(args);
    expect(fromImage.code).toBe(0);
    const { stdout } = await run(process.execPath, [join(root, 'lib/cli.js'), ...args], { env: { ...process.env, KERF_PAUSE: '' } });
    expect(parse(fromImage.stdout)).toEqual(parse(stdout));
    expect(parse(fromImage.stdout).decisions.length).toBeGreaterThan(5);
    expect(files(layer)).toEqual(['/app/LICENSE', '/app/kerf-gitops.mjs', ...chunks()].sort());
  });

  it('reconcile --dry-run renders the PR bodies from the template carried in the bundle', async () => {
    const args = ['reconcile', '--repo', example, '--now', '2026-12-02T10:00:00Z', '--dry-run'];
    const fromImage = await image(args);
    expect(fromImage).toMatchObject({ code: 0, stderr: '' });
    const { stdout } = await run(process.execPath, [join(root, 'lib/cli.js'), ...args], { env: { ...process.env, KERF_PAUSE: '' } });
    expect(fromImage.stdout).toBe(stdout);
    expect(fromImage.stdout).toContain('Body:');
  });
});

/** POSTs to the webhook trusting only `ca`, checking the certificate's name is the Service's. */
function callWebhook(port: number, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mutate-pods', method: 'POST', ca, servername: 'kerf-gitops-helper.kerf-system.svc', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', operation: 'CREATE', object: {} } }));
  });
}

describe('the helper from the runtime layer', () => {
  it('runs against the cluster with its own certificate and the Deployment\'s NODE_OPTIONS: fills the Secret, writes the caBundle, serves TLS by the Service name, stops on SIGTERM', async () => {
    const nodeOptions = helperContainer().env.find((variable) => variable.name === 'NODE_OPTIONS')?.value;
    expect(nodeOptions).toMatch(/^--max-semi-space-size=\d+$/);
    const api = await startKubeApi();
    try {
      const manifest = parseAllDocuments(readFileSync(join(root, 'templates/install/webhook.yaml'), 'utf8'))[0]!.toJS();
      api.store.put(manifest);
      api.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'kerf-gitops-webhook-tls', namespace: 'kerf-system' } } as never);
      const [webhookPort, healthPort] = [await freePort(), await freePort()];
      const { argv, cwd } = command(['helper', '--webhook-port', String(webhookPort), '--health-port', String(healthPort), '--self-signed-cert']);
      const child = spawn(process.execPath, argv, { cwd, env: { PATH: process.env.PATH ?? '', HOME: layer, NODE_OPTIONS: nodeOptions, KUBECONFIG: api.kubeconfigPath, POD_NAME: 'helper-0', POD_NAMESPACE: 'kerf-system' } });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        await until(async () => ((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined), `readyz (${output})`, 150);
        const material = fromSecretData((api.store.get('secrets', 'kerf-system', 'kerf-gitops-webhook-tls') as { data?: Record<string, string> }).data);
        expect(material).toBeDefined();
        const configuration = api.store.get('mutatingwebhookconfigurations', '', 'kerf-gitops') as unknown as { webhooks: { clientConfig: { caBundle?: string } }[] };
        expect(configuration.webhooks[0]?.clientConfig.caBundle).toBe(Buffer.from(material!.caBundle).toString('base64'));
        expect(await callWebhook(webhookPort, material!.caBundle)).toBe(200);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exit).toBe(0);
    } finally {
      await api.close();
    }
  });
});

describe('the Dockerfile reader', () => {
  it('joins continued lines, skips comments and names stages', () => {
    const parsed = parseDockerfile('# syntax=docker/dockerfile:1\nFROM --platform=$BUILDPLATFORM a:1 AS one\nRUN x \\\n  y\nFROM b\nCOPY --from=one /w/f /g\n');
    expect(parsed).toEqual([
      { from: 'a:1', name: 'one', instructions: [{ keyword: 'RUN', args: 'x    y' }] },
      { from: 'b', name: undefined, instructions: [{ keyword: 'COPY', args: '--from=one /w/f /g' }] },
    ]);
  });

  it('refuses COPY forms it cannot lay out (from the context, globs)', () => {
    expect(() => layOutRuntimeLayer(parseDockerfile('FROM a AS b\nFROM c\nCOPY lib/x /x\n'), root, layer)).toThrow(/unsupported COPY/);
    expect(() => layOutRuntimeLayer(parseDockerfile('FROM a AS b\nWORKDIR /src\nFROM c\nCOPY --from=b /src/lib/*.mjs /x\n'), root, layer)).toThrow(/glob/);
  });
});
