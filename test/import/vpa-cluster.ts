// VPAs in the Kubernetes stand-in, created as a user and the VPA recommender would: the object
// through the API (validated and pruned by the VPA CRD), then the recommender's status through
// the status subresource.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CRD_DIRECTORY, readCrdDirectory } from '../standins/kube/custom-resources.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';

const VPA_CRDS = fileURLToPath(new URL('../standins/kube/crds/', import.meta.url));

/** The stand-in serving kerf's CRDs and VPA's. */
export function startKubeApiWithVpa(): Promise<KubeApi> {
  return startKubeApi({ crds: [...readCrdDirectory(DEFAULT_CRD_DIRECTORY), ...readCrdDirectory(VPA_CRDS)] });
}

const VPA = { group: 'autoscaling.k8s.io', version: 'v1', plural: 'verticalpodautoscalers' };

export interface VpaSpec {
  name: string;
  namespace: string;
  target: { kind: string; name: string };
  updateMode?: string;
  containerPolicies?: unknown[];
  /** status.recommendation.containerRecommendations; none means the recommender has not written one yet. */
  recommendations?: unknown[];
  /** When the RecommendationProvided condition turned True. */
  providedAt?: string;
}

/** Creates the namespace unless it exists (409 AlreadyExists). */
export async function ensureNamespace(api: KubeApi, name: string): Promise<void> {
  await api.kubeConfig().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } }).catch((error: { code?: number }) => {
    if (error.code !== 409) throw error;
  });
}

export async function createVpa(api: KubeApi, vpa: VpaSpec): Promise<void> {
  await ensureNamespace(api, vpa.namespace);
  const client = api.kubeConfig().makeApiClient(CustomObjectsApi);
  const body = {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: vpa.name, namespace: vpa.namespace },
    spec: {
      targetRef: { apiVersion: 'apps/v1', ...vpa.target },
      ...(vpa.updateMode && { updatePolicy: { updateMode: vpa.updateMode } }),
      ...(vpa.containerPolicies && { resourcePolicy: { containerPolicies: vpa.containerPolicies } }),
    },
  };
  const created = (await client.createNamespacedCustomObject({ ...VPA, namespace: vpa.namespace, body })) as Record<string, unknown>;
  if (!vpa.recommendations) return;
  const at = vpa.providedAt ?? '2026-12-01T06:00:00Z';
  await client.replaceNamespacedCustomObjectStatus({
    ...VPA,
    namespace: vpa.namespace,
    name: vpa.name,
    body: {
      ...created,
      status: {
        conditions: [{ type: 'RecommendationProvided', status: 'True', lastTransitionTime: at }],
        recommendation: { containerRecommendations: vpa.recommendations },
      },
    },
  });
}
