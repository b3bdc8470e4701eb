// Discovery documents (legacy, non-aggregated): what kubectl and client-node read to map kinds to
// resources, including subresources such as pods/resize and pods/eviction.
import type { ResourceRegistry, ResourceType } from './resources.js';
import { ALL_VERBS, apiVersionOf } from './resources.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '34',
  gitVersion: 'v1.34.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-08-27T00:00:00Z',
  goVersion: 'go1.24.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function subresourceEntry(type: ResourceType, subresource: string): Record<string, unknown> {
  const base = { name: `${type.plural}/${subresource}`, singularName: '', namespaced: type.namespaced };
  if (subresource === 'eviction') return { ...base, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] };
  return { ...base, kind: type.kind, verbs: ['get', 'patch', 'update'] };
}

export function resourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> {
  const types = registry.all().filter((type) => type.group === group && type.version === version);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: types.flatMap((type) => [
      {
        name: type.plural,
        singularName: type.singular,
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: ALL_VERBS,
        ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
        ...(type.categories.length > 0 ? { categories: type.categories } : {}),
      },
      ...type.subresources.map((subresource) => subresourceEntry(type, subresource)),
    ]),
  };
}

function groupEntry(group: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groupVersions().filter(({ group }) => group !== '').map(({ group, versions }) => groupEntry(group, versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const found = registry.groupVersions().find((entry) => entry.group === group && group !== '');
  return found && { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.group, found.versions) };
}

export function coreVersions(host: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: host }] };
}
