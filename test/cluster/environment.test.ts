// The cluster connections the edges build: from a kubeconfig's text (the Action's input) the run
// reaches that cluster without a file or KUBECONFIG, and nothing connects before it is asked.
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterFromKubeconfig } from '../../src/cluster/environment.js';
import { startKubeApi, type KubeApi } from '../standins/kube/start-kube-api.js';

let api: KubeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('clusterFromKubeconfig', () => {
  it("reads the cluster the text's current context names, whatever KUBECONFIG says", async () => {
    api = await startKubeApi();
    api.store.put({
      apiVersion: 'kerf.getkerf.dev/v1alpha1',
      kind: 'RightsizingRecommendation',
      metadata: { name: 'cart', namespace: 'shop' },
      spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'cart' }, containers: [{ name: 'app', requests: { cpu: '100m' } }] },
    });
    const text = await readFile(api.kubeconfigPath, 'utf8');
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = '/nonexistent/kubeconfig';
    try {
      const cluster = clusterFromKubeconfig(text, parse);
      expect(cluster.server).toBe("the kubeconfig's cluster"); // not connected yet
      expect((await cluster.recommendations()).map((object) => `${object.metadata.namespace}/${object.metadata.name}`)).toEqual(['shop/cart']);
      expect(cluster.server).toBe(api.url);
      await expect(cluster.port()).resolves.toBeDefined();
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('a text that is no kubeconfig fails the first read, with the parser’s words', async () => {
    const cluster = clusterFromKubeconfig('apiVersion: v1\nusers: [\n', parse);
    await expect(cluster.read()).rejects.toThrow(/flow sequence|flow collection|unexpected/i);
  });
});
