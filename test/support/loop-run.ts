// One scheduled reconcile run against the Kubernetes stand-in with the loop closed (statuses,
// Events, merges reaching the cluster), as `reconcile --recommendations cluster` wires it.
import { kubeClusterSource } from '../../src/cluster/cluster-reader.js';
import { kubeClusterPort } from '../../src/cluster/kube-cluster-port.js';
import { gitRevisions } from '../../src/git/git-history.js';
import { createGitHub } from '../../src/github/github.js';
import type { ReconcileResult } from '../../src/reconcile/change-set.js';
import { OWNER, TOKEN, type Harness } from '../reconcile/reconcile-harness.js';
import type { KubeApi } from '../standins/kube/start-kube-api.js';
import { standinClient } from './kube-client.js';

export function loopRun(h: Harness, api: KubeApi, clock: () => Date): () => Promise<ReconcileResult> {
  return () =>
    h.run({ recommendations: ['cluster'], cluster: kubeClusterSource(standinClient(api)), now: clock() }, {
      loop: ({ git: gitPort, github }) => ({
        cluster: kubeClusterPort(standinClient(api)),
        pulls: createGitHub({ token: TOKEN, apiUrl: h.gh.url, repository: `${OWNER}/${h.repo}`, pacing: { writeMs: 0, notificationMs: 0 } }),
        revisions: gitRevisions(h.clone),
        git: gitPort,
        github,
        identity: 'reconcile-test',
      }),
    });
}
