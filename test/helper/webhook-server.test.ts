import { copyFileSync, utimesSync } from 'node:fs';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:https';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookServer } from '../../src/helper/webhook.js';
import type { WebhookState } from '../../src/helper/webhook-state.js';
import type { Logger } from '../../src/util/logger.js';
import { aPod } from './builders.js';
import { certificateFiles } from './tls.js';
import type { CertificateFiles } from './tls.js';

const warnings: string[] = [];
const infos: string[] = [];
const logger: Logger = { debug: () => {}, info: (msg) => infos.push(msg), warn: (msg) => warnings.push(msg), error: () => {} };

let certificate: CertificateFiles;
let server: Server;
let state: () => WebhookState;

function post(path: string, body: string, ca = certificate.caPem): Promise<{ status: number; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const pod = aPod({ owner: { kind: 'StatefulSet', name: 'db' }, labels: { 'controller-revision-hash': 'db-1' } });
const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u-7', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', namespace: 'shop', object: pod },
});

beforeAll(async () => {
  certificate = certificateFiles();
  state = () => ({
    replicaSetOwners: new Map(),
    applied: new Map([['shop/StatefulSet/db', { released: [{ name: 'app', requests: { cpu: '100m' }, limits: {} }], byRevision: new Map() }]]),
  });
  server = await startWebhookServer({ tlsCert: certificate.certFile, tlsKey: certificate.keyFile, port: 0, host: '127.0.0.1', state: () => state(), logger, reloadIntervalMs: 20 });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  certificate.cleanup();
});

describe('webhook server', () => {
  it('S2: answers a review on /mutate-pods over TLS with the patch', async () => {
    const answer = await post('/mutate-pods', review);
    const response = JSON.parse(answer.body).response;
    expect(response).toMatchObject({ uid: 'u-7', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(response.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/containers/0/resources/requests/cpu', value: '100m' },
    ]);
  });

  it.each([
    ['a body that is not JSON', 'not json'],
    ['a state that throws', review],
  ])('fails open on %s: allowed, no patch', async (name, body) => {
    const healthy = state;
    if (name === 'a state that throws') state = () => { throw new Error('cache not ready'); };
    try {
      const answer = await post('/mutate-pods', body);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).response).toEqual({ uid: body === review ? 'u-7' : '', allowed: true });
      expect(warnings.at(-1)).toBe('webhook request failed open');
    } finally {
      state = healthy;
    }
  });

  it('keeps idle connections open longer than kube-apiserver\'s webhook client does (90 s), so the client closes them', () => {
    expect(server.keepAliveTimeout).toBeGreaterThan(90_000);
  });

  it('answers 404 off its path', async () => {
    expect((await post('/other', review)).status).toBe(404);
  });

  // Last: it replaces the certificate the other tests trust.
  it('takes a renewed certificate from its files without a restart', async () => {
    const renewed = certificateFiles();
    try {
      copyFileSync(renewed.certFile, certificate.certFile);
      copyFileSync(renewed.keyFile, certificate.keyFile);
      const future = new Date(Date.now() + 5000);
      utimesSync(certificate.certFile, future, future);
      await vi.waitFor(() => expect(infos).toContain('webhook certificate reloaded'), { timeout: 2000 });
      expect((await post('/mutate-pods', review, renewed.caPem)).status).toBe(200);
      await expect(post('/mutate-pods', review, certificate.caPem)).rejects.toThrow();
    } finally {
      renewed.cleanup();
    }
  });
});
