// Where a field is written: line and column of a path in one YAML document, from the parser's node
// ranges. Only asked when there is a problem to report, so the file is parsed again lazily, once.
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';

import type { Locator, Position } from '../model/types.js';

/** A locator for document `document` of `text`. */
export function documentLocator(text: string, document: number): Locator {
  let parsed: { contents: unknown; lines: LineCounter } | undefined;
  return (path) => {
    if (!parsed) {
      const lines = new LineCounter();
      const doc = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: false })[document];
      parsed = { contents: doc && !Array.isArray(doc) ? doc.contents : undefined, lines };
    }
    const { lines } = parsed;
    const at = (node: unknown): Position | undefined => {
      const range = (node as Node | undefined)?.range;
      if (!range) return undefined;
      const { line, col } = lines.linePos(range[0]);
      return { line, column: col };
    };
    let node: unknown = parsed.contents;
    let found = at(node);
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) break;
        found = at(pair.key) ?? found;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        found = at(node) ?? found;
      } else break;
    }
    return found;
  };
}
