// The CRDs the stand-in serves: kerf's own from templates/crds/*.yaml when they exist, else a
// permissive stand-in per kerf kind (with a schema injected by the test, if any).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from './object-store.js';
import type { Schema } from './openapi-schema.js';

export const KERF_GROUP = 'kerf.getkerf.dev';
export const DEFAULT_CRD_DIRECTORY = fileURLToPath(new URL('../../../templates/crds/', import.meta.url));

const KERF_KINDS = [
  { kind: 'RightsizingPolicy', plural: 'rightsizingpolicies', singular: 'rightsizingpolicy' },
  { kind: 'RightsizingRecommendation', plural: 'rightsizingrecommendations', singular: 'rightsizingrecommendation' },
];

export function readCrdDirectory(directory: string): KubeObject[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((file) => /\.ya?ml$/.test(file))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(directory, file), 'utf8')).map((document) => document.toJS() as KubeObject | null))
    .filter((object): object is KubeObject => object?.kind === 'CustomResourceDefinition');
}

function fallbackCrd(kind: string, plural: string, singular: string, schema: Schema | undefined): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${KERF_GROUP}` },
    spec: {
      group: KERF_GROUP,
      scope: 'Namespaced',
      names: { kind, plural, singular, listKind: `${kind}List` },
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      }],
    },
  };
}

/** The given CRDs plus a fallback for each kerf kind none of them defines. */
export function withKerfFallbacks(crds: KubeObject[], schemas: Record<string, Schema>): KubeObject[] {
  const defined = new Set(crds.map((crd) => (crd.spec as { names?: { kind?: string } } | undefined)?.names?.kind));
  const missing = KERF_KINDS.filter(({ kind }) => !defined.has(kind));
  return [...crds, ...missing.map(({ kind, plural, singular }) => fallbackCrd(kind, plural, singular, schemas[kind]))];
}
