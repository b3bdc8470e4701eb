import type { Change, ContainerRecommendation, ResourceField, ResourceName, Workload } from '../model/types.js';
import { parseQuantity } from './quantity.js';

export class RecommendationMismatchError extends Error {
  readonly code = 'RecommendationMismatch';
}

const TARGETS: readonly ['requests' | 'limits', ResourceName][] = [
  ['requests', 'cpu'],
  ['requests', 'memory'],
  ['limits', 'cpu'],
  ['limits', 'memory'],
];

function differs(from: string | undefined, to: string | null, where: string): boolean {
  if (to === null) return from !== undefined;
  if (from === undefined) return true;
  try {
    return !parseQuantity(from).equals(parseQuantity(to));
  } catch (error) {
    throw new RecommendationMismatchError(`${where}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * What the recommendation changes on the workload as written, compared as quantities (so `0.5`
 * and `500m` are equal). A field the recommendation leaves out is left alone; `null` removes it.
 */
export function computeChanges(workload: Workload, containers: readonly ContainerRecommendation[]): Change[] {
  const changes: Change[] = [];
  const object = `${workload.source.file}: ${workload.ref.kind} ${workload.ref.namespace}/${workload.ref.name}`;
  for (const recommended of containers) {
    const container = workload.containers.find((c) => c.name === recommended.name);
    if (!container) {
      throw new RecommendationMismatchError(
        `${object}: the recommendation names container ${JSON.stringify(recommended.name)}, which the workload does not have (it has ${workload.containers.map((c) => c.name).join(', ') || 'none'})`,
      );
    }
    for (const [group, resource] of TARGETS) {
      const to = recommended[group][resource];
      if (to === undefined) continue;
      const from = container[group][resource];
      const field = `${group}.${resource}` as ResourceField;
      if (differs(from, to, `${object}: container ${container.name} ${field}`)) {
        changes.push({ container: container.name, field, from: from ?? null, to, file: container.sources?.[field] ?? workload.source.file });
      }
    }
  }
  return changes;
}
