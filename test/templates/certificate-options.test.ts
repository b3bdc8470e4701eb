// The two ways to get the webhook's certificate, as the README installs them: `kubectl apply --server-side -k
// templates/` (the helper's own, needing nothing else) and `-k templates/cert-manager/`. Rendered by real
// kustomize, and the default applied by real kubectl to the Kubernetes stand-in.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CertificateRotation } from '../../src/helper/certificate-rotation.js';
import { fromSecretData } from '../../src/helper/serving-certificate.js';
import type { Logger } from '../../src/util/logger.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';
import { standinClient } from '../support/kube-client.js';

const ROOT = join(import.meta.dirname, '../..');
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const run = promisify(execFile);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  type?: string;
  data?: unknown;
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace: string }[];
  spec?: Record<string, any>;
}

function render(dir: string): Doc[] {
  const result = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Doc);
}

const helperContainer = (docs: Doc[]) => docs.find((doc) => doc.kind === 'Deployment')!.spec!.template.spec.containers[0] as { args: string[] };
const helperPod = (docs: Doc[]) => docs.find((doc) => doc.kind === 'Deployment')!.spec!.template.spec as { volumes: { projected?: { sources: Record<string, any>[] } }[] };
const named = (docs: Doc[], kind: string, name: string) => docs.find((doc) => doc.kind === kind && doc.metadata.name === name);

/** Every grant of the render touching `resource`, as "verb name,…". */
function grantsOn(docs: Doc[], resource: string): string[] {
  return docs
    .filter((doc) => doc.kind === 'Role' || doc.kind === 'ClusterRole')
    .flatMap((doc) => (doc.rules ?? []).filter((rule) => rule.resources.includes(resource)).flatMap((rule) => rule.verbs.map((verb) => `${doc.kind}/${doc.metadata.name} ${verb} ${rule.resourceNames?.join(',') ?? '*'}`)))
    .sort();
}

describe.skipIf(!hasKubectl)('templates/: the helper makes its own certificate [needs kubectl]', () => {
  const docs = hasKubectl ? render('templates') : [];

  it('needs nothing of cert-manager', () => {
    expect(docs.filter((doc) => doc.apiVersion.startsWith('cert-manager.io/'))).toEqual([]);
    expect(docs.filter((doc) => Object.keys(doc.metadata.annotations ?? {}).some((key) => key.startsWith('cert-manager.io/')))).toEqual([]);
  });

  it('runs the helper with --self-signed-cert and mounts no certificate', () => {
    const { args } = helperContainer(docs);
    expect(args).toContain('--self-signed-cert');
    expect(args).not.toContain('--tls-cert');
    expect(helperPod(docs).volumes.flatMap((volume) => volume.projected?.sources ?? []).filter((source) => source.secret)).toEqual([]);
  });

  it('creates the Secret empty, so the helper needs no create', () => {
    const secret = named(docs, 'Secret', 'kerf-gitops-webhook-tls');
    expect(secret).toMatchObject({ type: 'Opaque', metadata: { namespace: 'kerf-system' } });
    expect(secret?.data).toBeUndefined();
  });

  it('RBAC: that Secret and that webhook configuration, by name, get and update only', () => {
    expect(grantsOn(docs, 'secrets')).toEqual(['Role/kerf-gitops-webhook-certificate get kerf-gitops-webhook-tls', 'Role/kerf-gitops-webhook-certificate update kerf-gitops-webhook-tls']);
    expect(grantsOn(docs, 'mutatingwebhookconfigurations')).toEqual([
      'ClusterRole/kerf-gitops-webhook-certificate get kerf-gitops',
      'ClusterRole/kerf-gitops-webhook-certificate update kerf-gitops',
    ]);
    expect(named(docs, 'MutatingWebhookConfiguration', 'kerf-gitops')).toBeDefined();
    const helper = { kind: 'ServiceAccount', name: 'kerf-gitops-helper', namespace: 'kerf-system' };
    for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
      expect(named(docs, kind, 'kerf-gitops-webhook-certificate')).toMatchObject({ roleRef: { kind: kind.replace('Binding', ''), name: 'kerf-gitops-webhook-certificate' }, subjects: [helper] });
    }
  });
});

describe.skipIf(!hasKubectl)('templates/cert-manager/: cert-manager issues it [needs kubectl]', () => {
  const docs = hasKubectl ? render('templates/cert-manager') : [];

  it('the helper serves the files of the Secret the Certificate fills, and the injector fills the caBundle from it', () => {
    const { args } = helperContainer(docs);
    const after = (flag: string) => args[args.indexOf(flag) + 1];
    expect(args).not.toContain('--self-signed-cert');
    const sources = helperPod(docs).volumes.flatMap((volume) => volume.projected?.sources ?? []);
    const certificate = named(docs, 'Certificate', 'kerf-gitops-webhook')!;
    expect(sources.find((source) => source.secret)?.secret).toEqual({
      name: certificate.spec!.secretName,
      items: [{ key: 'tls.crt', path: 'tls/tls.crt' }, { key: 'tls.key', path: 'tls/tls.key' }],
    });
    expect([after('--tls-cert'), after('--tls-key')]).toEqual(['/etc/kerf/tls/tls.crt', '/etc/kerf/tls/tls.key']);
    expect(named(docs, 'MutatingWebhookConfiguration', 'kerf-gitops')?.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': `kerf-system/${certificate.metadata.name}` });
    expect(certificate.spec!.dnsNames).toEqual(['kerf-gitops-helper.kerf-system.svc', 'kerf-gitops-helper.kerf-system.svc.cluster.local']);
    expect(named(docs, 'Issuer', certificate.spec!.issuerRef.name)?.spec).toEqual({ selfSigned: {} });
  });

  it('grants the helper nothing on Secrets or webhook configurations', () => {
    expect(grantsOn(docs, 'secrets')).toEqual([]);
    expect(grantsOn(docs, 'mutatingwebhookconfigurations')).toEqual([]);
    expect(named(docs, 'Secret', 'kerf-gitops-webhook-tls')).toBeUndefined();
  });
});

describe.skipIf(!hasKubectl)('kubectl apply --server-side to the stand-in [needs kubectl]', () => {
  let api: KubeApi;
  let home: string;
  const kubectl = (...args: string[]) => run('kubectl', ['--kubeconfig', api.kubeconfigPath, ...args], { cwd: ROOT, env: { ...process.env, HOME: home } });

  beforeEach(async () => {
    api = await startKubeApi({ crds: [] });
    home = mkdtempSync(join(tmpdir(), 'kerf-apply-'));
  });
  afterEach(async () => {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('-k templates/ applies without cert-manager; the helper fills the Secret and caBundle, and a re-apply keeps both', async () => {
    await kubectl('apply', '--server-side', '-k', 'templates/');
    const rotation = new CertificateRotation({
      client: standinClient(api),
      namespace: 'kerf-system',
      secretName: 'kerf-gitops-webhook-tls',
      webhookConfiguration: 'kerf-gitops',
      hosts: ['kerf-gitops-helper.kerf-system.svc', 'kerf-gitops-helper.kerf-system.svc.cluster.local'],
      now: () => new Date(),
      logger: quiet,
    });
    const material = await rotation.ensure();
    await kubectl('apply', '--server-side', '-k', 'templates/');
    const secret = api.store.get('secrets', 'kerf-system', 'kerf-gitops-webhook-tls') as unknown as { data?: Record<string, string> };
    expect(fromSecretData(secret.data)).toEqual(material);
    const configuration = api.store.get('mutatingwebhookconfigurations', '', 'kerf-gitops') as unknown as { webhooks: { clientConfig: { caBundle?: string } }[] };
    expect(configuration.webhooks.map((webhook) => webhook.clientConfig.caBundle)).toEqual([Buffer.from(material.caBundle).toString('base64'), Buffer.from(material.caBundle).toString('base64')]);
  });

  it('-k templates/cert-manager/ needs cert-manager\'s CRDs first', async () => {
    // --validate=false: for a kind it does not know kubectl falls back to /openapi/v2, which the stand-in does
    // not serve; past validation, kubectl's mapping step gives the error a real cluster gives.
    const failed = await kubectl('apply', '--server-side', '--validate=false', '-k', 'templates/cert-manager/').catch((error: { stderr: string }) => error);
    expect((failed as { stderr: string }).stderr).toMatch(/no matches for kind "(Issuer|Certificate)"/);
  });
});
