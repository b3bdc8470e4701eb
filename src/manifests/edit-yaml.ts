// Read-only questions about parsed YAML nodes and their source text, for the resources editor.
import { isAlias, isCollection, isMap, isPair, isScalar, visit } from 'yaml';
import type { Document, Node, Pair, Range, YAMLMap } from 'yaml';
import { columnOf, indentOf, sameLine } from './edit-text.js';
import type { QuoteStyle } from './edit-text.js';

/** Options shared by every parse of the editor, matching the repository scan (duplicate keys: the last wins). */
export const PARSE_OPTIONS = { uniqueKeys: false } as const;

export function rangeOf(node: unknown): Range {
  const range = (node as { range?: Range | null } | null)?.range;
  if (!range) throw new RangeError('YAML node without a source range');
  return range;
}

/** The pair `key` of a mapping; with a repeated key the last one, as `toJS()` keeps it. */
export function findPair(map: YAMLMap, key: string): Pair | undefined {
  let found: Pair | undefined;
  for (const pair of map.items) if (isScalar(pair.key) && pair.key.value === key) found = pair;
  return found;
}

/** Where the source of a node or pair ends, trailing comments excluded. */
export function contentEnd(node: unknown): number {
  if (isPair(node)) return node.value ? contentEnd(node.value) : rangeOf(node.key)[1];
  if (isCollection(node) && !node.flow && node.items.length > 0) return contentEnd(node.items.at(-1));
  return rangeOf(node)[1];
}

export function quoteStyleOf(node: unknown): QuoteStyle | undefined {
  if (!isScalar(node)) return undefined;
  return node.type === 'PLAIN' || node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE' ? node.type : undefined;
}

/** An empty value that a new mapping can fill: `key:`, `key: ~`, `key: null` or `key: {}`. */
export function isEmptyValue(node: unknown): boolean {
  if (isScalar(node)) return node.value === null;
  return isMap(node) && node.items.length === 0;
}

/** Every node some alias of the document points at. */
export function aliasTargets(doc: Document): Set<unknown> {
  const targets = new Set<unknown>();
  visit(doc, {
    Alias(_, alias) {
      const target = alias.resolve(doc);
      if (target) targets.add(target);
    },
  });
  return targets;
}

/** Whether anything below `node` carries an anchor or is an alias (copying it would re-bind names). */
export function hasNestedAnchors(node: Node): boolean {
  let found = false;
  visit(node, (_, child) => {
    if (child !== node && (isAlias(child) || ((isScalar(child) || isCollection(child)) && child.anchor))) {
      found = true;
      return visit.BREAK;
    }
    return undefined;
  });
  return found;
}

/**
 * The indentation step the file uses, read from the first nested mapping found under `roots`
 * (in order): a block mapping's child key column minus its key column, or a multi-line flow
 * mapping's item column minus its opening line's indent. Two spaces when nothing tells.
 */
export function detectIndentStep(text: string, roots: readonly (Node | null | undefined)[]): number {
  for (const root of roots) {
    if (!root) continue;
    let step = 0;
    visit(root, {
      Pair(_, pair) {
        const value = pair.value;
        const first = isMap(value) ? value.items[0] : undefined;
        if (!isMap(value) || !first || !isScalar(pair.key) || !first.key) return undefined;
        const childStart = rangeOf(first.key)[0];
        const open = rangeOf(value)[0];
        if (value.flow) {
          step = sameLine(text, open, childStart) ? 0 : columnOf(text, childStart) - indentOf(text, open);
        } else {
          step = columnOf(text, childStart) - columnOf(text, rangeOf(pair.key)[0]);
        }
        return step > 0 ? visit.BREAK : undefined;
      },
    });
    if (step > 0) return step;
  }
  return 2;
}
