// Label and field selectors: the string grammar of `?labelSelector=` / `?fieldSelector=` and the
// structured metav1.LabelSelector of PDBs, workloads and webhooks.
import { badRequest } from './api-error.js';

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Splits on commas that are not inside a `(…)` value set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const SET_BASED = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/;
const EQUALITY = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=()]*)$/;
const EXISTS = /^(!?)([^\s!=()]+)$/;

export function parseLabelSelector(text: string | null | undefined): Requirement[] {
  if (!text) return [];
  return splitTopLevel(text).map((term) => {
    const set = SET_BASED.exec(term);
    if (set) {
      const values = (set[3] ?? '').split(',').map((value) => value.trim()).filter((value) => value !== '');
      return { key: set[1]!, operator: set[2] === 'in' ? 'In' : 'NotIn', values };
    }
    const equality = EQUALITY.exec(term);
    if (equality) {
      return { key: equality[1]!, operator: equality[2] === '!=' ? 'NotIn' : 'In', values: [equality[3]!] };
    }
    const exists = EXISTS.exec(term);
    if (exists) return { key: exists[2]!, operator: exists[1] ? 'DoesNotExist' : 'Exists', values: [] };
    throw badRequest(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
  });
}

/** A metav1.LabelSelector as requirements; `null` (no selector) selects nothing, `{}` everything. */
export function labelSelectorRequirements(selector: LabelSelector | null | undefined): Requirement[] | null {
  if (!selector) return null;
  const fromLabels = Object.entries(selector.matchLabels ?? {}).map(([key, value]): Requirement => ({
    key,
    operator: 'In',
    values: [value],
  }));
  const fromExpressions = (selector.matchExpressions ?? []).map((expression): Requirement => ({
    key: expression.key,
    operator: expression.operator as Operator,
    values: expression.values ?? [],
  }));
  return [...fromLabels, ...fromExpressions];
}

export function matchesLabels(requirements: Requirement[] | null, labels: Record<string, string> | undefined): boolean {
  if (requirements === null) return false;
  const set = labels ?? {};
  return requirements.every((requirement) => {
    const has = Object.prototype.hasOwnProperty.call(set, requirement.key);
    const value = set[requirement.key];
    switch (requirement.operator) {
      case 'In':
        return has && requirement.values.includes(value!);
      case 'NotIn':
        return !has || !requirement.values.includes(value!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
    }
  });
}

export function matchesLabelSelector(selector: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  return matchesLabels(labelSelectorRequirements(selector), labels);
}

export interface FieldRequirement {
  path: string[];
  equals: boolean;
  value: string;
}

const FIELD_TERM = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/;

export function parseFieldSelector(text: string | null | undefined): FieldRequirement[] {
  if (!text) return [];
  return splitTopLevel(text).map((term) => {
    const match = FIELD_TERM.exec(term);
    if (!match) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
    return { path: match[1]!.split('.'), equals: match[2] !== '!=', value: match[3]!.trim() };
  });
}

/**
 * Every field the apiserver indexes for the kinds kerf lists (metadata.name, metadata.namespace,
 * spec.nodeName, status.phase, involvedObject.*) is a plain path into the object, so a path walk
 * serves them all; a missing field compares as "".
 */
export function matchesFields(requirements: FieldRequirement[], object: unknown): boolean {
  return requirements.every((requirement) => {
    let current: unknown = object;
    for (const key of requirement.path) {
      current = current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
    }
    const actual = current === undefined || current === null ? '' : String(current);
    return (actual === requirement.value) === requirement.equals;
  });
}
