import type { RightsizingPolicy, Workload } from '../model/types.js';
import { isEmptySelector, matchesSelector } from './selector.js';

export type PolicyMatch =
  | { kind: 'covered'; policy: RightsizingPolicy }
  | { kind: 'uncovered' }
  | { kind: 'ambiguous'; policies: [RightsizingPolicy, RightsizingPolicy] };

/**
 * The policy of the workload's namespace whose selector matches its labels. A matching non-empty
 * selector beats an empty one; two equally specific matches leave the workload alone. An invalid
 * policy that may cover the workload wins: its selector cannot be trusted, so it holds the workload.
 */
export function selectPolicy(workload: Workload, policiesOfNamespace: readonly RightsizingPolicy[]): PolicyMatch {
  const matching = policiesOfNamespace.filter(
    (policy) => policy.namespace === workload.ref.namespace && matchesSelector(workload.labels, policy.selector),
  );
  const invalid = matching.find((policy) => policy.invalid !== undefined);
  if (invalid) return { kind: 'covered', policy: invalid };
  const specific = matching.filter((policy) => !isEmptySelector(policy.selector));
  const candidates = specific.length > 0 ? specific : matching;
  const [first, second] = candidates;
  if (!first) return { kind: 'uncovered' };
  if (second) return { kind: 'ambiguous', policies: [first, second] };
  return { kind: 'covered', policy: first };
}
