import type { LabelSelector } from '../model/types.js';

/** Kubernetes label-selector semantics; an empty selector matches everything. */
export function matchesSelector(labels: Record<string, string>, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    const ok =
      operator === 'In' ? has && values.includes(value as string)
      : operator === 'NotIn' ? !has || !values.includes(value as string)
      : operator === 'Exists' ? has
      : !has;
    if (!ok) return false;
  }
  return true;
}

export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}
