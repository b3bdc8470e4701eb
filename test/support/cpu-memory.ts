// For judging an edit: a workload document with its containers' CPU/memory taken out, so that
// everything else can be compared whole.
type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `doc` with every container's CPU/memory requests and limits taken out (and mappings left empty dropped). */
export function withoutCpuMemory<T>(doc: T, containersOf: (doc: unknown) => Json[]): T {
  const copy = JSON.parse(JSON.stringify(doc ?? null)) as T;
  for (const container of containersOf(copy)) {
    const resources = container['resources'];
    if (!isJson(resources)) {
      if (resources === null) delete container['resources'];
      continue;
    }
    for (const group of ['requests', 'limits']) {
      const values = resources[group];
      if (!isJson(values)) continue;
      delete values['cpu'];
      delete values['memory'];
      if (Object.keys(values).length === 0) delete resources[group];
    }
    if (Object.keys(resources).length === 0) delete container['resources'];
  }
  return copy;
}
