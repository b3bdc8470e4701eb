// Kustomize in the scan: which namespace and name each file's objects get, and the CPU/memory
// values a rendered workload really has after its overlays' patches (the last writer wins).
import type { ContainerSpec, PlanError, ResourceField, Workload } from '../model/types.js';
import { RESOURCE_FIELDS } from '../model/types.js';
import type { KustomizeWarningCode } from './kustomize-error.js';
import { buildKustomizeGraph, type KustomizeGraph } from './kustomize-graph.js';
import { KERF_PATCH_FILE } from './kustomize-overlay-patch.js';
import { resolveResourceSource, type Resolution } from './kustomize-resolve.js';
import type { RepoIndex } from './scan.js';
import type { ScannedFile } from './scanned-file.js';

export function buildGraph(files: Map<string, ScannedFile>): KustomizeGraph | undefined {
  const hasKustomization = [...files.keys()].some((file) => /(^|\/)(kustomization\.ya?ml|Kustomization)$/.test(file));
  return hasKustomization ? buildKustomizeGraph(files) : undefined;
}

export function resolveField(graph: KustomizeGraph, workload: Workload, container: string, field: ResourceField): Resolution {
  return resolveResourceSource(graph, workload.ref, container, field, workload.source.root === undefined ? {} : { root: workload.source.root });
}

/** The file kerf edits for a resolution; undefined when kerf cannot edit it. */
export function editedFile(resolution: Resolution): string | undefined {
  if (resolution.status !== 'resolved') return undefined;
  const { decision } = resolution;
  if (decision.kind === 'edit-file') return decision.file;
  if (decision.kind === 'overlay-patch') return decision.dir === '' || decision.dir === '.' ? KERF_PATCH_FILE : `${decision.dir}/${KERF_PATCH_FILE}`;
  return undefined;
}

function setValue(container: ContainerSpec, field: ResourceField, value: string | null | undefined): void {
  const [group, resource] = field.split('.') as ['requests' | 'limits', string];
  if (value === null || value === undefined) delete container[group][resource];
  else container[group][resource] = value;
}

/**
 * Replaces the scanned values of kustomize-rendered workloads with what their roots render, and
 * records which file kerf would edit for each field.
 */
export function applyKustomizeValues(index: RepoIndex, graph: KustomizeGraph): void {
  for (const workload of index.workloads.values()) {
    if (workload.source.root === undefined) continue;
    for (const container of workload.containers) {
      for (const field of RESOURCE_FIELDS) {
        const resolution = resolveField(graph, workload, container.name, field);
        if (resolution.status !== 'resolved') continue;
        const { source } = resolution;
        if (source.kind === 'none') setValue(container, field, undefined);
        else if (source.kind !== 'json6902' || 'value' in source) setValue(container, field, source.value);
        const file = editedFile(resolution);
        if (file !== undefined && file !== workload.source.file) (container.sources ??= {})[field] = file;
      }
    }
  }
}

/**
 * Warnings that make kerf's view of a rendering wrong or incomplete, with their problem codes; the
 * rest (files kerf need not read, patches that match nothing) are expected in real trees.
 */
const REPORTED_WARNINGS: Partial<Record<KustomizeWarningCode, string>> = {
  'missing-file': 'KustomizeError',
  cycle: 'KustomizationCycle',
  'unparsed-patch': 'KustomizeError',
  'remote-resource': 'RemoteResource',
  'unsupported-transformer': 'UnsupportedTransformer',
};

export function kustomizeErrors(graph: KustomizeGraph): PlanError[] {
  return graph.warnings.flatMap((warning) => {
    const code = REPORTED_WARNINGS[warning.code];
    // The warning's message already starts with its file.
    return code === undefined ? [] : [{ code, file: warning.file, message: warning.message }];
  });
}
