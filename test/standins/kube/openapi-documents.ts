// Minimal OpenAPI v3 documents: kubectl (apply, create, patch) reads them to learn that the
// server validates fields itself (the `fieldValidation` query parameter); without them it insists
// on downloading a full schema for client-side validation.
import type { ResourceRegistry, ResourceType } from './resources.js';

function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function openApiIndex(registry: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { group, versions } of registry.groupVersions()) {
    for (const version of versions) {
      const path = groupVersionPath(group, version);
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}` };
    }
  }
  return { paths };
}

function operation(type: ResourceType, action: string): Record<string, unknown> {
  const parameters = ['dryRun', 'fieldManager', 'fieldValidation', ...(action === 'patch' ? ['force'] : [])].map((name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' } }));
  return {
    operationId: `${action}${type.kind}`,
    parameters,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
    responses: { '200': { description: 'OK' } },
  };
}

/** The paths of one group/version, each write operation tagged with its kind and parameters. */
export function openApiGroupVersion(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = registry.all().filter((type) => type.group === group && type.version === version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const type of types) {
    const prefix = `/${groupVersionPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    paths[prefix] = { post: operation(type, 'post') };
    paths[`${prefix}/{name}`] = { put: operation(type, 'put'), patch: operation(type, 'patch') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.34.0' }, paths, components: { schemas: {} } };
}
