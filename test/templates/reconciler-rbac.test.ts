// The reconciler's ClusterRole grants what its cluster reads and writes use: every path it lists,
// the recommendation status it patches, the Events it creates — and nothing that writes workloads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SYNC_PATHS, VPA_LIST_PATH } from '../../src/cluster/cluster-reader.js';
import { SNAPSHOT_PATHS } from '../../src/cluster/kube-watch.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const file = join(import.meta.dirname, '../../templates/install/reconciler-rbac.yaml');
const role = parseAllDocuments(readFileSync(file, 'utf8'))
  .map((doc) => doc.toJS() as { kind: string; rules?: Rule[] })
  .find((doc) => doc.kind === 'ClusterRole');
const rules = role?.rules ?? [];

function allows(group: string, resource: string, verb: string): boolean {
  return rules.some((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource) && rule.verbs.includes(verb));
}

/** `/api/v1/pods` → ['', 'pods']; `/apis/apps/v1/deployments` → ['apps', 'deployments']. */
function groupAndResource(path: string): [string, string] {
  const parts = path.split('/').filter(Boolean);
  return parts[0] === 'api' ? ['', parts[2] ?? ''] : [parts[1] ?? '', parts[3] ?? ''];
}

describe('reconciler RBAC', () => {
  it.each([...Object.values({ ...SNAPSHOT_PATHS, ...SYNC_PATHS }), VPA_LIST_PATH])('lists %s', (path) => {
    const [group, resource] = groupAndResource(path);
    expect(allows(group, resource, 'list'), `${group}/${resource}`).toBe(true);
  });

  it('patches recommendation status and creates Events', () => {
    expect(allows('kerf.getkerf.dev', 'rightsizingrecommendations/status', 'patch')).toBe(true);
    expect(allows('events.k8s.io', 'events', 'create')).toBe(true);
  });

  it('R1: never writes workloads or pods (Git does, through PRs)', () => {
    const writes = ['create', 'update', 'patch', 'delete', '*'];
    for (const rule of rules) {
      const touchesWorkloads = rule.resources.some((resource) => ['pods', 'deployments', 'statefulsets', 'daemonsets', 'pods/resize', 'pods/eviction'].includes(resource));
      if (touchesWorkloads) expect(rule.verbs.filter((verb) => writes.includes(verb))).toEqual([]);
    }
  });
});
