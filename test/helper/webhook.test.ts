import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/cluster/objects.js';
import type { AdmissionReview } from '../../src/helper/webhook.js';
import { admit, reviewResponse } from '../../src/helper/webhook.js';
import { buildWebhookState } from '../../src/helper/webhook-state.js';
import type { RecommendationView } from '../../src/lifecycle/pod-owners.js';
import { applyJsonPatch } from '../standins/kube/patch.js';
import type { Json } from '../standins/kube/patch.js';
import { aRecommendation } from '../support/builders.js';
import { aPod, aPodContainer } from './builders.js';

const replicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'cart-abc', namespace: 'shop', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart', controller: true }] },
};

function view(overrides: Partial<RecommendationView> & { containers?: Parameters<typeof aRecommendation>[0]; strategy?: 'in-place' | 'rollout'; kind?: string } = {}): RecommendationView {
  const { containers, strategy = 'in-place', kind = 'Deployment', ...rest } = overrides;
  return {
    recommendation: aRecommendation(containers, {
      targetRef: { apiVersion: 'apps/v1', kind, name: 'cart' },
      status: { phase: 'Applied', strategy, configuredStrategy: 'in-place' },
    }),
    generation: 2,
    observedGeneration: 2,
    ...rest,
  };
}

/** A pod as its controller sends it for admission: no name yet, no status. */
function newPod(overrides: Parameters<typeof aPod>[0] = {}): Pod {
  const { status: _status, ...pod } = aPod(overrides);
  return { ...pod, metadata: { ...pod.metadata, name: '' } };
}

function review(pod: Pod, operation = 'CREATE'): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', kind: { group: '', version: 'v1', kind: 'Pod' }, operation, namespace: 'shop', object: pod },
  };
}

function admitted(pod: Pod, views: RecommendationView[], siblings: Pod[] = []): Pod {
  const state = buildWebhookState({ recommendations: views, replicaSets: [replicaSet], pods: siblings });
  return applyJsonPatch(pod as unknown as Json, admit(review(pod), state)) as unknown as Pod;
}

describe('admit', () => {
  it('S2: a new pod of an in-place Deployment (pod → ReplicaSet → Deployment) gets the applied values', () => {
    const pod = admitted(newPod(), [view()]);
    expect(pod.spec.containers[0]?.resources).toEqual({ requests: { cpu: '250m', memory: '384Mi' }, limits: { memory: '1Gi' } });
  });

  it('N4: a limit removal reaches new pods through the webhook', () => {
    const pod = admitted(newPod(), [view({ containers: [{ name: 'app', requests: { cpu: '250m' }, limits: { memory: null } }] })]);
    expect(pod.spec.containers[0]?.resources).toEqual({ requests: { cpu: '250m', memory: '512Mi' } });
  });

  it('N4: removing one of two limits keeps the other', () => {
    const containers = [aPodContainer({ resources: { requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } } })];
    const pod = admitted(newPod({ containers }), [view({ containers: [{ name: 'app', requests: {}, limits: { memory: null } }] })]);
    expect(pod.spec.containers[0]?.resources).toEqual({ requests: { cpu: '500m' }, limits: { cpu: '1' } });
  });

  it.each([
    ['StatefulSet', { kind: 'StatefulSet', name: 'cart' }, { 'controller-revision-hash': 'cart-7d' }],
    ['DaemonSet', { kind: 'DaemonSet', name: 'cart' }, { 'controller-revision-hash': 'cart-7d' }],
  ])('S2: a %s pod is owned directly', (kind, owner, labels) => {
    const pod = admitted(newPod({ owner, labels }), [view({ kind })]);
    expect(pod.spec.containers[0]?.resources?.requests).toEqual({ cpu: '250m', memory: '384Mi' });
  });

  it('S2: only cpu and memory are touched; other resources stay as they are', () => {
    const containers = [aPodContainer({ resources: { requests: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' }, limits: { 'nvidia.com/gpu': '1' } } })];
    const pod = admitted(newPod({ containers }), [view({ containers: [{ name: 'app', requests: { cpu: '250m' }, limits: { memory: '2Gi' } }] })]);
    expect(pod.spec.containers[0]?.resources).toEqual({
      requests: { cpu: '250m', memory: '1Gi', 'ephemeral-storage': '1Gi' },
      limits: { 'nvidia.com/gpu': '1', memory: '2Gi' },
    });
  });

  it('S2: a container with no resources gets them built up', () => {
    const pod = admitted(newPod({ containers: [{ name: 'app', image: 'x' }] }), [view()]);
    expect(pod.spec.containers[0]?.resources).toEqual({ requests: { cpu: '250m', memory: '384Mi' } });
  });

  it('S2: a native sidecar is patched, a plain init container is not', () => {
    const base = newPod();
    base.spec.initContainers = [
      { name: 'init', image: 'x', resources: { requests: { cpu: '1' } } },
      { name: 'proxy', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } },
    ];
    const pod = admitted(base, [view({ containers: [
      { name: 'init', requests: { cpu: '100m' }, limits: {} },
      { name: 'proxy', requests: { cpu: '100m' }, limits: {} },
    ] })]);
    expect(pod.spec.initContainers?.map((c) => c.resources?.requests?.cpu)).toEqual(['1', '100m']);
  });

  it('S2: values already equal as quantities make no operation', () => {
    const containers = [aPodContainer({ resources: { requests: { cpu: '0.25', memory: '384Mi' } } })];
    const state = buildWebhookState({ recommendations: [view()], replicaSets: [replicaSet], pods: [] });
    expect(admit(review(newPod({ containers })), state)).toEqual([]);
  });

  it.each([
    ['an UPDATE', review(newPod(), 'UPDATE'), [view()]],
    ['a bare pod with no owner', review({ ...newPod(), metadata: { name: 'bare', labels: {} } }), [view()]],
    ['F3: a workload fallen back to rollout', review(newPod()), [view({ strategy: 'rollout' })]],
    ['a recommendation never released in place', review(newPod()), [view({ observedGeneration: undefined })]],
    ['Z1: a newer generation held, with no running pod of the revision to copy', review(newPod()), [view({ generation: 3 })]],
    ['a request that would end above its limit (the API server would refuse the pod)', review(newPod()), [view({ containers: [{ name: 'app', requests: { memory: '2Gi' }, limits: {} }] })]],
    ['a review with no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, [view()]],
  ])('no patch for %s', (_name, given, views) => {
    const state = buildWebhookState({ recommendations: views, replicaSets: [replicaSet], pods: [] });
    expect(admit(given as AdmissionReview, state)).toEqual([]);
  });

  it('Z1: while a newer generation is held, new pods get what running pods of their revision carry, never the new values', () => {
    const sibling = aPod({ name: 'cart-abc-1', containers: [aPodContainer({ resources: { requests: { cpu: '300m', memory: '400Mi' }, limits: { memory: '1Gi' } } })] });
    const pod = admitted(newPod(), [view({ generation: 3 })], [sibling]);
    expect(pod.spec.containers[0]?.resources).toEqual({ requests: { cpu: '300m', memory: '400Mi' }, limits: { memory: '1Gi' } });
  });

  it('Z1: when running pods of one revision differ, new pods get what the first of them by name carries, in whatever order the cache lists them', () => {
    const carrying = (name: string, cpu: string) => aPod({ name, containers: [aPodContainer({ resources: { requests: { cpu, memory: '400Mi' }, limits: { memory: '1Gi' } } })] });
    const siblings = [carrying('cart-abc-c', '320m'), carrying('cart-abc-a', '300m'), carrying('cart-abc-b', '310m')];
    for (const order of [siblings, [...siblings].reverse()]) {
      expect(admitted(newPod(), [view({ generation: 3 })], order).spec.containers[0]?.resources?.requests?.cpu).toBe('300m');
    }
  });

  it('the answer is allowed, with the patch base64-encoded as JSONPatch', () => {
    const ops = [{ op: 'add' as const, path: '/spec/containers/0/resources/requests/cpu', value: '250m' }];
    const answer = reviewResponse('u-1', ops);
    expect(answer.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(String(answer.response.patch), 'base64').toString())).toEqual(ops);
    expect(reviewResponse('u-2', []).response).toEqual({ uid: 'u-2', allowed: true });
  });
});
