// Time from a recommendation to all pods of a 50-pod Deployment resized in place (issue 5): the
// helper process watches the stand-in, whose kubelets sync on a short interval; the clock starts
// when the recommendation is created through the API.
import { startHelperProcess, withHelper } from './helper-process.js';
import { cartPods, create, recommendation, RECOMMENDATIONS_PATH, recommendationPhase, resized, setUpCart, startCluster, until } from './in-place-cluster.js';

export interface ResizeBenchmark {
  pods: number;
  kubeletIntervalMs: number;
  /** From the create of the recommendation until every pod runs with the new values. */
  allResizedMs: number;
  /** Until the recommendation's status says Applied. */
  appliedMs: number;
}

export async function benchmarkResize(pods = 50, kubeletIntervalMs = 10): Promise<ResizeBenchmark> {
  const api = await startCluster({ kubeletIntervalMs });
  try {
    await setUpCart(api, pods);
    const helper = await startHelperProcess({ kubeconfig: api.kubeconfigPath });
    return await withHelper(helper, async () => {
      // The helper acts once it holds the Lease.
      await until(() => (api.store.get('leases', 'kerf-system', 'kerf-gitops-helper')?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === 'bench-helper', 'the helper holding its Lease', 30_000);
      const start = performance.now();
      await create(api, RECOMMENDATIONS_PATH, recommendation());
      await until(() => {
        const all = cartPods(api);
        return all.length === pods && all.every(resized);
      }, `all ${pods} pods resized`, 120_000, 2);
      const allResizedMs = performance.now() - start;
      await until(() => recommendationPhase(api) === 'Applied', 'the recommendation Applied', 30_000, 2);
      const appliedMs = performance.now() - start;
      return { pods, kubeletIntervalMs, allResizedMs, appliedMs };
    });
  } finally {
    await api.close();
  }
}
