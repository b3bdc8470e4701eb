// Webhook latency (issue 5; DESIGN "Webhook benchmark": on 2 cores, p50/p99 at concurrency 8 and
// at an offered 1,000 requests/s, keep-alive; issue 15: p99 bar ≤ 3 ms, goal ≤ 2 ms). The server is the real one: the
// helper process (the bundle, as its Deployment runs it) serving HTTPS from certificate files, its state built by the
// helper itself from the stand-in, where it has resized a Deployment in place. The requests are
// AdmissionReviews of a pod CREATE as kube-apiserver sends them for a new pod of that Deployment,
// each answered with a JSONPatch, over keep-alive connections held as kube-apiserver holds them
// (Connections). Latency runs from when a request was due to be sent to the end of its response,
// so an open-loop backlog counts against the server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestCertificate } from '../test/standins/kube/test-certificate.js';
import { startHelperProcess, withHelper } from './helper-process.js';
import { cartPods, create, NAMESPACE, recommendation, RECOMMENDATIONS_PATH, recommendationPhase, resized, setUpCart, startCluster, until, WORKLOAD } from './in-place-cluster.js';
import { controllerPodSpec } from './pod-fixture.js';

export interface LatencyRun {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests answered per second over the measured part. */
  ratePerSecond: number;
  /** Failed, timed out (2 s, the webhook's timeoutSeconds) or answered without the patch. */
  failed: number;
}

/** The run of median p99 among several, with every run's p99 and the failures of all. */
export type MedianRun = LatencyRun & { p99sMs: number[] };

export interface WebhookBenchmark {
  /** Bytes of one AdmissionReview request body. */
  requestBytes: number;
  /** Patch operations in each answer. */
  patchOps: number;
  concurrency: MedianRun & { concurrency: number };
  openLoop: MedianRun & { offeredPerSecond: number };
}

/**
 * Each measurement runs this many times and the run of median p99 is reported: on two cores shared
 * by the client and the server, one run's p99 moves by a millisecond with the machine's other load.
 */
const RUNS = 3;

async function medianRun(measure: () => Promise<LatencyRun>): Promise<MedianRun> {
  const runs: LatencyRun[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measure());
  const byP99 = [...runs].sort((a, b) => a.p99Ms - b.p99Ms);
  const median = byP99[Math.floor(RUNS / 2)] as LatencyRun;
  return { ...median, failed: runs.reduce((sum, run) => sum + run.failed, 0), p99sMs: runs.map((run) => run.p99Ms) };
}

const TIMEOUT_MS = 2000;

/** A pod CREATE for a new pod of `replicaSet`, as kube-apiserver sends it to a mutating webhook (after defaulting). */
function reviewTemplate(replicaSet: { name: string; uid: string; hash: string }): string {
  const labels = { app: WORKLOAD, 'app.kubernetes.io/part-of': 'shop', 'pod-template-hash': replicaSet.hash };
  const mounts = [{ name: 'kube-api-access-x7k2p', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }];
  const common = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', volumeMounts: mounts };
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: '__NAME__',
      generateName: `${replicaSet.name}-`,
      namespace: NAMESPACE,
      uid: '__UID__',
      creationTimestamp: null,
      labels,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: replicaSet.name, uid: replicaSet.uid, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2026-12-02T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:app.kubernetes.io/part-of': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${replicaSet.uid}"}`]: {} } },
            'f:spec': {
              'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:env': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} }, 'k:{"name":"log-shipper"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } },
              'f:dnsPolicy': {},
              'f:enableServiceLinks': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:securityContext': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
      ],
    },
    spec: controllerPodSpec([
      {
        name: 'app',
        image: 'ghcr.io/example/cart:2.4.1',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'LOG_LEVEL', value: 'info' }],
        resources: { limits: { memory: '1Gi' }, requests: { cpu: '500m', memory: '512Mi' } },
        ...common,
      },
      { name: 'log-shipper', image: 'fluent/fluent-bit:3.1', resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } }, ...common },
    ]),
    status: {},
  };
  return JSON.stringify({
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid: '__UID__',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: '__NAME__',
      namespace: NAMESPACE,
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller', uid: '5b1f3c9e-0d7a-4a52-9a57-0b8f2c1d9e41', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] },
      object: pod,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  });
}

function reviewBody(template: string, i: number): string {
  const suffix = i.toString(36).padStart(5, '0');
  return template.replaceAll('__UID__', `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`).replaceAll('__NAME__', `${WORKLOAD}-${suffix}`);
}

/**
 * Keep-alive HTTPS connections to the webhook, one request at a time on each, as kube-apiserver's
 * webhook client holds them (HTTP/1.1: the helper offers no h2). Written on `tls` rather than
 * node's https client, which spent more CPU per request than the helper's server on these same two
 * cores: its queueing, not the webhook's, was counted in the latency. kube-apiserver is a Go
 * client and pays far less per call.
 */
class Connections {
  private readonly idle: TLSSocket[] = [];
  private readonly waiting: { resolve: (socket: TLSSocket) => void; reject: (error: Error) => void }[] = [];
  private open = 0;
  private closed = false;

  constructor(
    private readonly target: Target,
    private readonly max: number,
  ) {}

  /** One POST; resolves with the response body, rejects on an error, a status other than 200 or the timeout. */
  async post(body: string): Promise<string> {
    const socket = await this.take();
    try {
      const text = await exchange(socket, `POST /mutate-pods?timeout=2s HTTP/1.1\r\nHost: 127.0.0.1:${this.target.port}\r\nAccept: application/json, */*\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      this.give(socket);
      return text;
    } catch (error) {
      socket.destroy();
      throw error;
    }
  }

  /** Ends the idle connections, and any still being dialled as they come up. */
  close(): void {
    this.closed = true;
    for (const socket of this.idle.splice(0)) socket.destroy();
  }

  /**
   * As Go's http.Transport does for kube-apiserver: a request that finds no idle connection has a
   * new one dialled (up to `max`), but takes whichever connection is free first.
   */
  private take(): Promise<TLSSocket> {
    const socket = this.idle.pop();
    if (socket) return Promise.resolve(socket);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.open < this.max) this.dial();
    });
  }

  private give(socket: TLSSocket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(socket);
    else this.idle.push(socket);
  }

  private dial(): void {
    this.open++;
    let connected = false;
    const socket = connect({ host: '127.0.0.1', port: this.target.port, ca: this.target.ca }, () => {
      connected = true;
      this.give(socket);
    });
    socket.setNoDelay(true);
    // Once connected, an error is the request's (see exchange), and the connection then closes.
    socket.on('error', (error) => {
      if (!connected) this.waiting.shift()?.reject(error);
    });
    socket.on('close', () => {
      this.open--;
      const at = this.idle.indexOf(socket);
      if (at >= 0) this.idle.splice(at, 1);
      if (this.waiting.length > 0 && this.open < this.max) this.dial();
    });
  }
}

/** Writes one request and reads its response, framed by Content-Length (the helper never sends chunked). */
function exchange(socket: TLSSocket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received: Buffer = Buffer.alloc(0);
    const done = (error: Error | undefined, body?: string) => {
      clearTimeout(timer);
      socket.off('data', onData).off('error', done).off('close', onClose);
      if (error) reject(error);
      else resolve(body as string);
    };
    const onClose = () => done(new Error('connection closed'));
    const onData = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = received.subarray(0, headerEnd).toString('latin1');
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      if (length === undefined) return done(new Error(`no content-length: ${head.split('\r\n')[0]}`));
      const end = headerEnd + 4 + Number(length);
      if (received.length < end) return;
      if (received.length > end) return done(new Error('bytes after the response'));
      const status = head.slice(9, 12);
      if (status !== '200') return done(new Error(`status ${status}`));
      done(undefined, received.subarray(headerEnd + 4).toString('utf8'));
    };
    const timer = setTimeout(() => done(new Error('timed out')), TIMEOUT_MS);
    socket.on('data', onData).on('error', done).on('close', onClose);
    socket.write(request);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

function summarize(samples: number[], failed: number, elapsedMs: number): LatencyRun {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    requests: samples.length + failed,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? Number.NaN,
    ratePerSecond: ((samples.length + failed) * 1000) / elapsedMs,
    failed,
  };
}

interface Target {
  port: number;
  ca: string;
  template: string;
}

/** Measures one request; a sample in ms, or undefined when it failed or carried no patch. */
async function measured(connections: Connections, target: Target, i: number, from: number): Promise<number | undefined> {
  try {
    const text = await connections.post(reviewBody(target.template, i));
    return text.includes('"patch":') ? performance.now() - from : undefined;
  } catch {
    return undefined;
  }
}

/** `concurrency` connections, each sending its next request when the last one is answered. */
async function closedLoop(target: Target, concurrency: number, warmup: number, limit: { requests: number; ms: number }): Promise<LatencyRun> {
  const connections = new Connections(target, concurrency);
  try {
    let next = 0;
    const run = async (count: number, deadline: number, samples: number[] | undefined): Promise<number> => {
      let failed = 0;
      const end = next + count;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < end && performance.now() < deadline) {
            const sample = await measured(connections, target, next++, performance.now());
            if (sample === undefined) failed++;
            else samples?.push(sample);
          }
        }),
      );
      return failed;
    };
    await run(warmup, performance.now() + limit.ms, undefined);
    const samples: number[] = [];
    const start = performance.now();
    const failed = await run(limit.requests, start + limit.ms, samples);
    return summarize(samples, failed, performance.now() - start);
  } finally {
    connections.close();
  }
}

/**
 * Posts each request's index at its due time, from a thread of its own: node's timers fire on
 * whole milliseconds, and at a 1 ms interval the load client sent requests 0.6-0.9 ms after they
 * were due (median, measured), which counted as webhook latency; from this thread, ~0.15 ms. It
 * costs the client ~25 us of CPU a request more than a timer does.
 */
const TICKER = `
const { parentPort, workerData: { origin, interval, total } } = require('node:worker_threads');
const sleeper = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < total; i++) {
  const wait = origin + i * interval - (performance.timeOrigin + performance.now());
  if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
  parentPort.postMessage(i);
}
`;

/** Requests due at a fixed rate whether or not earlier ones were answered (open loop), over keep-alive connections. */
async function openLoop(target: Target, perSecond: number, warmupMs: number, durationMs: number): Promise<LatencyRun> {
  const connections = new Connections(target, 64);
  try {
    const interval = 1000 / perSecond;
    const warmup = Math.round((perSecond * warmupMs) / 1000);
    const total = warmup + Math.round((perSecond * durationMs) / 1000);
    const samples: number[] = [];
    const inFlight: Promise<void>[] = [];
    let failed = 0;
    // Due times on the clock both threads share; the ticker's start-up falls before the first.
    const origin = performance.timeOrigin + performance.now() + 100;
    const start = origin - performance.timeOrigin;
    const ticker = new Worker(TICKER, { eval: true, workerData: { origin, interval, total } });
    await new Promise<void>((resolve, reject) => {
      ticker.on('error', reject);
      ticker.on('message', (i: number) => {
        inFlight.push(
          measured(connections, target, 1_000_000 + i, start + i * interval).then((sample) => {
            if (i < warmup) return;
            if (sample === undefined) failed++;
            else samples.push(sample);
          }),
        );
        if (i === total - 1) resolve();
      });
    });
    await Promise.all(inFlight);
    return summarize(samples, failed, performance.now() - (start + warmup * interval));
  } finally {
    connections.close();
  }
}

export async function benchmarkWebhook(): Promise<WebhookBenchmark> {
  const tls = mkdtempSync(join(tmpdir(), 'kerf-bench-tls-'));
  // The kubelets are ticked here only until cart is resized: each tick lists every pod in this
  // process, which also runs the load client, and ticks every 10 ms during the measurement stalled
  // the client for a tenth of the time, counted as webhook latency.
  const api = await startCluster();
  try {
    const certificate = createTestCertificate();
    writeFileSync(join(tls, 'tls.crt'), certificate.cert);
    writeFileSync(join(tls, 'tls.key'), certificate.key, { mode: 0o600 });
    await setUpCart(api, 10);
    const helper = await startHelperProcess({
      kubeconfig: api.kubeconfigPath,
      args: ['--webhook-port', '0', '--tls-cert', join(tls, 'tls.crt'), '--tls-key', join(tls, 'tls.key')],
    });
    return await withHelper(helper, async () => {
      // A realistic in-place workload: the helper resizes cart's pods and releases the values to new pods.
      await create(api, RECOMMENDATIONS_PATH, recommendation());
      const kubelets = setInterval(() => api.nodes.tick(), 10);
      try {
        await until(() => recommendationPhase(api) === 'Applied' && cartPods(api).every(resized), 'cart resized in place', 60_000);
      } finally {
        clearInterval(kubelets);
      }
      const replicaSet = api.store.list('replicasets', NAMESPACE).find((object) => object.metadata.ownerReferences?.some((owner) => owner.name === WORKLOAD));
      const hash = replicaSet?.metadata.labels?.['pod-template-hash'];
      const { name, uid } = replicaSet?.metadata ?? {};
      if (!name || !uid || !hash) throw new Error('benchmark: no ReplicaSet of cart with a pod-template-hash');
      if (helper.webhookPort === undefined) throw new Error('benchmark: the helper serves no webhook');
      const target: Target = { port: helper.webhookPort, ca: certificate.cert, template: reviewTemplate({ name, uid, hash }) };

      // The answer must carry the patch, or the benchmark would time the path that does nothing.
      const probe = new Connections(target, 1);
      const answer = JSON.parse(await probe.post(reviewBody(target.template, 0))) as { response?: { patch?: string } };
      probe.close();
      const ops = answer.response?.patch ? (JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) as { path: string; value?: unknown }[]) : [];
      if (!ops.some((op) => op.path === '/spec/containers/0/resources/requests/cpu' && op.value === '250m')) {
        throw new Error(`benchmark: the webhook did not patch the pod: ${JSON.stringify(answer).slice(0, 300)}`);
      }

      const concurrency = await medianRun(() => closedLoop(target, 8, 1000, { requests: 20_000, ms: 10_000 }));
      const open = await medianRun(() => openLoop(target, 1000, 1000, 10_000));
      return {
        requestBytes: Buffer.byteLength(reviewBody(target.template, 0)),
        patchOps: ops.length,
        concurrency: { ...concurrency, concurrency: 8 },
        openLoop: { ...open, offeredPerSecond: 1000 },
      };
    });
  } finally {
    await api.close();
    rmSync(tls, { recursive: true, force: true });
  }
}
