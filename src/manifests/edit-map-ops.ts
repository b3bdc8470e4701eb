// Text operations on one YAML mapping: add a key, fill an empty value, remove a key, copy an
// aliased mapping in place. Each returns splices of the source; block or flow style, indentation
// and line endings follow what the mapping already uses.
import { isMap } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import {
  colonAfter,
  columnOf,
  commaAfter,
  deleteContentLines,
  insertLinesAfter,
  nextLineStart,
  renderScalar,
  sameLine,
  startsLine,
} from './edit-text.js';
import type { QuoteStyle, Splice } from './edit-text.js';
import { contentEnd, quoteStyleOf, rangeOf } from './edit-yaml.js';

/** A key to add, with its rendered scalar or a nested single-key mapping. */
export interface NewEntry {
  key: string;
  value: string | NewEntry;
}

export interface OpContext {
  text: string;
  eol: string;
  /** Indentation step of the file. */
  step: number;
  /** Key quoting when the mapping has no key to copy it from. */
  keyStyle: QuoteStyle;
  /** Throws the caller's `UnsupportedNode` error. */
  unsupported(problem: string): never;
}

export function insertIntoMap(ctx: OpContext, map: YAMLMap, entry: NewEntry): Splice[] {
  const { text } = ctx;
  const keyStyle = quoteStyleOf(map.items[0]?.key) ?? ctx.keyStyle;
  const last = map.items.at(-1);
  if (!last) return fillEmptyFlow(ctx, map, entry, keyStyle);
  const lastEnd = contentEnd(last);
  if (!map.flow) {
    const column = columnOf(text, rangeOf(map.items[0]?.key)[0]);
    return [insertLinesAfter(text, lastEnd, renderBlock(entry, column, ctx.step, keyStyle), ctx.eol)];
  }
  const comma = commaAfter(text, lastEnd);
  const close = rangeOf(map)[1] - 1;
  if (sameLine(text, lastEnd, close)) {
    return comma === -1
      ? [{ start: lastEnd, end: lastEnd, text: `, ${renderFlow(entry, keyStyle)}` }]
      : [{ start: comma + 1, end: comma + 1, text: ` ${renderFlow(entry, keyStyle)},` }];
  }
  // A multi-line flow mapping (KYAML): one item per line, keeping its trailing-comma habit.
  const trailingComma = comma !== -1;
  const column = columnOf(text, rangeOf(last.key)[0]);
  const lines = renderFlowLines(entry, column, ctx.step, keyStyle, trailingComma);
  if (trailingComma) return [insertLinesAfter(text, comma, lines, ctx.eol)];
  return [{ start: lastEnd, end: lastEnd, text: ',' }, insertLinesAfter(text, lastEnd, lines, ctx.eol)];
}

/**
 * Gives `pair` (whose value is `key:`, `~`, `null` or `{}`) the content `entry`. In a block
 * mapping the value becomes a block mapping on the following lines, keeping an inline comment
 * on the key's line; in flow context it becomes a flow mapping.
 */
export function fillEmpty(ctx: OpContext, pair: Pair, parent: YAMLMap, entry: NewEntry): Splice[] {
  const { text } = ctx;
  const value = pair.value;
  const keyStyle = quoteStyleOf(parent.items[0]?.key) ?? ctx.keyStyle;
  const [start, end] = rangeOf(value);
  if (!parent.flow && sameLine(text, start, end)) {
    const column = columnOf(text, rangeOf(pair.key)[0]) + ctx.step;
    return replaceWithBlock(ctx, pair, end, renderBlock(entry, column, ctx.step, keyStyle));
  }
  if (isMap(value)) return fillEmptyFlow(ctx, value, entry, keyStyle);
  if (start === end) ctx.unsupported('an empty value in a flow mapping cannot be filled');
  return [{ start, end, text: `{${renderFlow(entry, keyStyle)}}` }];
}

/**
 * Removes `pair` from `parent`: in block style its content lines (comment lines stay), in flow
 * style its item and one separating comma. A key that shares its line with a sequence dash
 * (`- resources:`) cannot lose its line, so its value becomes `{}`.
 */
export function removePair(ctx: OpContext, pair: Pair, parent: YAMLMap): Splice[] {
  const { text } = ctx;
  const keyStart = rangeOf(pair.key)[0];
  const end = contentEnd(pair);
  if (parent.flow) return removeFlowItem(ctx, pair, parent);
  if (startsLine(text, keyStart)) return deleteContentLines(text, keyStart, end);
  const [valueStart, valueEnd] = rangeOf(pair.value);
  if (sameLine(text, keyStart, valueEnd)) return [{ start: valueStart, end: valueEnd, text: '{}' }];
  const colon = colonAfter(text, rangeOf(pair.key)[1]);
  if (colon === -1 || sameLine(text, colon, valueStart)) ctx.unsupported('a multi-line value after a sequence dash cannot be removed');
  return [{ start: colon + 1, end: colon + 1, text: ' {}' }, ...deleteContentLines(text, nextLineStart(text, colon), end)];
}

/**
 * Replaces the alias that is `pair`'s value with a copy of the mapping it points at, re-indented
 * under `pair`, so the copy can be edited without touching the anchor's other users.
 */
export function expandAlias(ctx: OpContext, pair: Pair, parent: YAMLMap, target: YAMLMap): Splice[] {
  const { text } = ctx;
  const source = text.slice(rangeOf(target)[0], contentEnd(target)).replace(/\r?\n$/, '');
  const [aliasStart, aliasEnd] = rangeOf(pair.value);
  if (target.flow && !source.includes('\n')) return [{ start: aliasStart, end: aliasEnd, text: source }];
  if (target.flow || parent.flow) ctx.unsupported('only a block or one-line flow mapping can be copied in place of an alias');
  const from = columnOf(text, rangeOf(target)[0]);
  const to = columnOf(text, rangeOf(pair.key)[0]) + ctx.step;
  const lines = source.split('\n').map((line, index) => {
    const bare = line.replace(/\r$/, '');
    if (index === 0) return ' '.repeat(to) + bare;
    const indent = bare.length - bare.trimStart().length;
    return bare.trim() === '' ? '' : ' '.repeat(to) + bare.slice(Math.min(indent, from));
  });
  return replaceWithBlock(ctx, pair, aliasEnd, lines);
}

/** Sets the scalar (or alias) value of `pair` to already rendered text. */
export function replaceValue(ctx: OpContext, pair: Pair, rendered: string): Splice {
  const [start, end] = rangeOf(pair.value);
  if (start !== end) return { start, end, text: rendered };
  const colon = colonAfter(ctx.text, rangeOf(pair.key)[1]);
  if (colon === -1) ctx.unsupported('a key without a `:` cannot be given a value');
  return { start: colon + 1, end: colon + 1, text: ` ${rendered}` };
}

/** Drops the key's inline value (`{}`, `~`, `*alias`) up to `valueEnd` and puts `lines` under the key. */
function replaceWithBlock(ctx: OpContext, pair: Pair, valueEnd: number, lines: string[]): Splice[] {
  const colon = colonAfter(ctx.text, rangeOf(pair.key)[1]);
  if (colon === -1) ctx.unsupported('a key without a `:` cannot be given a mapping');
  const drop: Splice[] = valueEnd > colon + 1 ? [{ start: colon + 1, end: valueEnd, text: '' }] : [];
  // After the value's line, not the key's: Helm writes `resources:` and `{}` on separate lines.
  return [...drop, insertLinesAfter(ctx.text, Math.max(colon, valueEnd), lines, ctx.eol)];
}

function fillEmptyFlow(ctx: OpContext, map: YAMLMap, entry: NewEntry, keyStyle: QuoteStyle): Splice[] {
  if (!map.flow) ctx.unsupported('an empty block mapping has no place for a key');
  const [open, end] = rangeOf(map);
  return [{ start: open + 1, end: end - 1, text: renderFlow(entry, keyStyle) }];
}

function removeFlowItem(ctx: OpContext, pair: Pair, map: YAMLMap): Splice[] {
  const { text } = ctx;
  const [open, end] = rangeOf(map);
  const index = map.items.indexOf(pair);
  if (map.items.length === 1) return [{ start: open + 1, end: end - 1, text: '' }];
  const keyStart = rangeOf(pair.key)[0];
  const itemEnd = contentEnd(pair);
  const restOfLine = text.slice(itemEnd, nextLineStart(text, itemEnd));
  // Alone on its line(s): whole lines go, and the neighbours keep their own commas.
  if (startsLine(text, keyStart) && /^[ \t]*,?[ \t]*(#.*)?\r?\n?$/.test(restOfLine)) {
    return deleteContentLines(text, keyStart, itemEnd);
  }
  const next = map.items[index + 1];
  if (next) return [{ start: keyStart, end: rangeOf(next.key)[0], text: '' }];
  return [{ start: contentEnd(map.items[index - 1]), end: itemEnd, text: '' }];
}

function renderKey(key: string, style: QuoteStyle): string {
  return `${renderScalar(key, style)}:`;
}

function renderBlock(entry: NewEntry, column: number, step: number, keyStyle: QuoteStyle): string[] {
  const head = ' '.repeat(column) + renderKey(entry.key, keyStyle);
  if (typeof entry.value === 'string') return [`${head} ${entry.value}`];
  return [head, ...renderBlock(entry.value, column + step, step, keyStyle)];
}

function renderFlow(entry: NewEntry, keyStyle: QuoteStyle): string {
  const value = typeof entry.value === 'string' ? entry.value : `{${renderFlow(entry.value, keyStyle)}}`;
  return `${renderKey(entry.key, keyStyle)} ${value}`;
}

function renderFlowLines(entry: NewEntry, column: number, step: number, keyStyle: QuoteStyle, comma: boolean): string[] {
  const pad = ' '.repeat(column);
  const end = comma ? ',' : '';
  if (typeof entry.value === 'string') return [`${pad}${renderKey(entry.key, keyStyle)} ${entry.value}${end}`];
  return [`${pad}${renderKey(entry.key, keyStyle)} {`, ...renderFlowLines(entry.value, column + step, step, keyStyle, comma), `${pad}}${end}`];
}

