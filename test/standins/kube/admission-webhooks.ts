// Mutating admission: the apiserver side of MutatingWebhookConfiguration. Webhooks are called
// over TLS with an AdmissionReview v1, their base64 JSONPatch is applied, and failurePolicy and
// timeoutSeconds are honoured.
import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { ApiError, internalError } from './api-error.js';
import type { KubeObject } from './object-store.js';
import { applyJsonPatch } from './patch.js';
import type { Json } from './patch.js';
import type { ResourceType } from './resources.js';
import { matchesLabelSelector } from './selectors.js';
import type { LabelSelector } from './selectors.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  type: ResourceType;
  object: KubeObject;
  oldObject?: KubeObject;
  namespaceLabels?: Record<string, string>;
  dryRun: boolean;
}

interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface MutatingWebhook {
  name: string;
  clientConfig: { url?: string; caBundle?: string; service?: unknown };
  rules?: RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

interface AdmissionResponse {
  uid?: string;
  allowed?: boolean;
  patch?: string;
  patchType?: string;
  status?: { code?: number; message?: string; reason?: string };
}

function listed(values: string[] | undefined, value: string): boolean {
  return (values ?? []).some((entry) => entry === '*' || entry === value);
}

function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes): boolean {
  const { type } = attributes;
  const scope = rule.scope ?? '*';
  return (
    listed(rule.operations, attributes.operation) &&
    listed(rule.apiGroups, type.group) &&
    listed(rule.apiVersions, type.version) &&
    listed(rule.resources, type.plural) &&
    (scope === '*' || (scope === 'Namespaced') === type.namespaced)
  );
}

/** Whether the apiserver would call `webhook` for this request. */
export function webhookApplies(webhook: MutatingWebhook, attributes: AdmissionAttributes): boolean {
  const everything: LabelSelector = {};
  // The object selector is checked against the new and the old object; either may match.
  const objects = attributes.oldObject ? [attributes.object, attributes.oldObject] : [attributes.object];
  return (
    (webhook.rules ?? []).some((rule) => ruleMatches(rule, attributes)) &&
    (!attributes.type.namespaced ||
      matchesLabelSelector(webhook.namespaceSelector ?? everything, attributes.namespaceLabels)) &&
    objects.some((object) => matchesLabelSelector(webhook.objectSelector ?? everything, object.metadata.labels))
  );
}

function post(url: URL, body: string, ca: string | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        ...(ca ? { ca } : {}),
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((response.statusCode ?? 500) >= 300) reject(new Error(`the server responded with status ${response.statusCode}: ${text}`));
          else resolve(text);
        });
        response.on('error', reject);
      },
    );
    call.on('error', (error) => reject(error.name === 'AbortError' ? new Error('context deadline exceeded') : error));
    call.end(body);
  });
}

async function callWebhook(webhook: MutatingWebhook, attributes: AdmissionAttributes): Promise<AdmissionResponse> {
  const url = webhook.clientConfig.url;
  if (!url?.startsWith('https://')) throw new Error('the stand-in calls only clientConfig.url webhooks over https');
  const uid = randomUUID();
  const { type, object } = attributes;
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: type.group, version: type.version, kind: type.kind },
      resource: { group: type.group, version: type.version, resource: type.plural },
      requestKind: { group: type.group, version: type.version, kind: type.kind },
      requestResource: { group: type.group, version: type.version, resource: type.plural },
      name: object.metadata.name ?? '',
      ...(type.namespaced ? { namespace: object.metadata.namespace } : {}),
      operation: attributes.operation,
      userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object,
      oldObject: attributes.oldObject ?? null,
      dryRun: attributes.dryRun,
      options: { apiVersion: 'meta.k8s.io/v1', kind: attributes.operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
    },
  };
  const ca = webhook.clientConfig.caBundle ? Buffer.from(webhook.clientConfig.caBundle, 'base64').toString('utf8') : undefined;
  const text = await post(new URL(url), JSON.stringify(review), ca, (webhook.timeoutSeconds ?? 10) * 1000);
  const response = (JSON.parse(text) as { response?: AdmissionResponse }).response;
  if (!response) throw new Error('webhook response was absent');
  if (response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${response.uid}"`);
  return response;
}

/** Runs every matching webhook of the stored configurations in order; returns the mutated object. */
export async function admit(configurations: KubeObject[], attributes: AdmissionAttributes): Promise<KubeObject> {
  let object = attributes.object;
  const sorted = [...configurations].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const configuration of sorted) {
    for (const webhook of (configuration.webhooks ?? []) as MutatingWebhook[]) {
      const current = { ...attributes, object };
      if (!webhookApplies(webhook, current)) continue;
      let response: AdmissionResponse;
      try {
        response = await callWebhook(webhook, current);
      } catch (error) {
        if (webhook.failurePolicy === 'Ignore') continue;
        throw internalError(`failed calling webhook "${webhook.name}": failed to call webhook: ${(error as Error).message}`);
      }
      if (!response.allowed) {
        const status = response.status ?? {};
        const explanation = status.message ? `: ${status.message}` : ' without explanation';
        throw new ApiError(Math.max(status.code ?? 400, 400), status.reason ?? '', `admission webhook "${webhook.name}" denied the request${explanation}`);
      }
      if (response.patch && response.patchType === 'JSONPatch') {
        const operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown;
        object = applyJsonPatch(object as unknown as Json, operations) as unknown as KubeObject;
      }
    }
  }
  return object;
}
