// GitHub requests of reconcile for 100 changed workloads grouped per namespace (issue 3: a
// handful per PR, none for PRs that did not change), counted in the GitHub stand-in's log.
import type { FileChanges } from '../test/standins/git/bare-repo.js';
import { startGitServer } from '../test/standins/git/git-server.js';
import { OWNER, SOMEONE, TOKEN, startHarness } from '../test/reconcile/reconcile-harness.js';

export interface RunCount {
  requests: number;
  writes: number;
  pushes: number;
}

export interface GitHubRequestCounts {
  workloads: number;
  pullRequests: number;
  /** Opening every PR. */
  first: RunCount;
  /** The same plan again: reads only. */
  unchanged: RunCount;
  /** One namespace's recommendations changed: one PR updated. */
  oneChanged: RunCount;
}

function deployment(namespace: string, name: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  replicas: 3
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/${name}:1.0.0
          resources:
            requests: {cpu: 500m, memory: 512Mi}
`;
}

function recommendations(namespace: string, names: readonly string[], cpu: string): string {
  return names
    .map(
      (name) => `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingRecommendation
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: ${name}}
  containers:
    - name: app
      requests: {cpu: ${cpu}, memory: 384Mi}
`,
    )
    .join('---\n');
}

function repoFiles(namespaces: number, perNamespace: number): FileChanges {
  const files: FileChanges = {
    '.kerf/config.yaml': `groupBy: per-namespace\nlabels: [kerf]\nteamReviewers: [platform]\nprHourlyLimit: ${namespaces}\nprConcurrentLimit: ${namespaces}\n`,
  };
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${n}`;
    const names = Array.from({ length: perNamespace }, (_, i) => `app-${i}`);
    files[`${namespace}/policy.yaml`] = `apiVersion: kerf.getkerf.dev/v1alpha1
kind: RightsizingPolicy
metadata: {name: default, namespace: ${namespace}}
spec:
  mode: auto-patch
  apply: {strategy: rollout}
`;
    for (const name of names) files[`${namespace}/${name}.yaml`] = deployment(namespace, name);
    files[`${namespace}/recommendations.yaml`] = recommendations(namespace, names, '250m');
  }
  return files;
}

export async function countGitHubRequests(namespaces = 10, perNamespace = 10): Promise<GitHubRequestCounts> {
  const git = await startGitServer({ token: TOKEN });
  try {
    const h = await startHarness(git, { baseFiles: repoFiles(namespaces, perNamespace) });
    try {
      const count = async (run: () => Promise<unknown>): Promise<RunCount> => {
        const [requests, writes, pushes] = [h.gh.requests.length, h.gh.writeRequests().length, h.pushes()];
        await run();
        return { requests: h.gh.requests.length - requests, writes: h.gh.writeRequests().length - writes, pushes: h.pushes() - pushes };
      };
      const checked = async () => {
        const result = await h.run();
        if (result.errors.length > 0) throw new Error(`benchmark reconcile failed: ${result.errors[0]?.message}`);
      };
      const first = await count(checked);
      const unchanged = await count(checked);
      const names = Array.from({ length: perNamespace }, (_, i) => `app-${i}`);
      await git.pushAs(OWNER, h.repo, SOMEONE, 'main', { 'team-0/recommendations.yaml': recommendations('team-0', names, '300m') });
      const oneChanged = await count(checked);
      return { workloads: namespaces * perNamespace, pullRequests: h.gh.state.prs.length, first, unchanged, oneChanged };
    } finally {
      await h.close();
    }
  } finally {
    await git.close();
  }
}
