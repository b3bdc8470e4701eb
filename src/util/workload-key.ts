// The keys the maps and messages of every module use for a workload and a namespaced object.

/** `namespace/kind/name`: one workload. */
export function workloadKey(ref: { namespace: string; kind: string; name: string }): string {
  return `${ref.namespace}/${ref.kind}/${ref.name}`;
}

/** `namespace/name` (no namespace: `default`), the key informers and the helper's own maps use. */
export function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}
