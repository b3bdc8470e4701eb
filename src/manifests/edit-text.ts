// Byte-level helpers for splicing YAML source text. Everything here works on offsets into the
// original text, so bytes outside a splice are never touched.
import { parse } from 'yaml';

/** Replace `text[start, end)` with `text`. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

export type QuoteStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE';

/**
 * Applies non-overlapping splices to `text[from, to)` and returns that part, edited; overlapping
 * splices, or ones outside the part, mean a planning bug, so they throw.
 */
export function applySplices(text: string, splices: readonly Splice[], from = 0, to = text.length): string {
  const ordered = [...splices].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = from;
  for (const splice of ordered) {
    if (splice.start < at) throw new RangeError(`overlapping splices at offset ${splice.start}`);
    if (splice.end > to) throw new RangeError(`a splice at offset ${splice.start} ends past ${to}`);
    out += text.slice(at, splice.start) + splice.text;
    at = splice.end;
  }
  return out + text.slice(at, to);
}

/** The file's own line ending, judged by its first line break. */
export function detectEol(text: string): string {
  const newline = text.indexOf('\n');
  return newline > 0 && text[newline - 1] === '\r' ? '\r\n' : '\n';
}

export function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Offset just past the line break of the line holding `pos`, or the text's length on the last line. */
export function nextLineStart(text: string, pos: number): number {
  const newline = text.indexOf('\n', pos);
  return newline === -1 ? text.length : newline + 1;
}

export function columnOf(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

/** Leading spaces of the line holding `pos`. */
export function indentOf(text: string, pos: number): number {
  const start = lineStart(text, pos);
  let end = start;
  while (text[end] === ' ') end++;
  return end - start;
}

/** Whether only indentation precedes `pos` on its line. */
export function startsLine(text: string, pos: number): boolean {
  return text.slice(lineStart(text, pos), pos).trim() === '';
}

export function sameLine(text: string, a: number, b: number): boolean {
  const [low, high] = a <= b ? [a, b] : [b, a];
  return !text.slice(low, high).includes('\n');
}

/**
 * Inserts whole lines after the line that holds `pos`. A `pos` right after a line break (the end
 * of a block scalar) inserts there. On a last line without a final newline the file keeps
 * lacking one.
 */
export function insertLinesAfter(text: string, pos: number, lines: readonly string[], eol: string): Splice {
  const at = pos > 0 && text[pos - 1] === '\n' ? pos : nextLineStart(text, pos);
  if (at === text.length && !text.endsWith('\n') && text.length > 0) {
    return { start: at, end: at, text: lines.map((line) => eol + line).join('') };
  }
  return { start: at, end: at, text: lines.map((line) => line + eol).join('') };
}

/**
 * Deletes the lines from the one holding `from` to the one holding `to`, except blank and
 * comment-only lines, which belong to the reader rather than to the removed keys.
 */
export function deleteContentLines(text: string, from: number, to: number): Splice[] {
  const ranges: [number, number][] = [];
  const last = to > from && text[to - 1] === '\n' ? to - 1 : to;
  for (let start = lineStart(text, from); start <= last && start < text.length; start = nextLineStart(text, start)) {
    const end = nextLineStart(text, start);
    const content = text.slice(start, end).trim();
    if (content === '' || content.startsWith('#')) continue;
    const previous = ranges.at(-1);
    if (previous && previous[1] === start) previous[1] = end;
    else ranges.push([start, end]);
  }
  return ranges.map(([start, end]) => {
    // Removing an unterminated last line takes the break before it, so the file still ends as it did.
    if (end === text.length && !text.endsWith('\n') && start > 0) {
      return { start: start - (text[start - 2] === '\r' ? 2 : 1), end, text: '' };
    }
    return { start, end, text: '' };
  });
}

/** Offset of the first `,` after `pos`, skipping spaces, line breaks and comments; -1 if other text comes first. */
export function commaAfter(text: string, pos: number): number {
  let at = pos;
  while (at < text.length) {
    const char = text[at];
    if (char === ',') return at;
    if (char === '#') at = nextLineStart(text, at);
    else if (char === ' ' || char === '\t' || char === '\r' || char === '\n') at++;
    else return -1;
  }
  return -1;
}

/** Offset of the `:` that ends a mapping key, or -1 (explicit `? key` forms). */
export function colonAfter(text: string, keyEnd: number): number {
  let at = keyEnd;
  while (text[at] === ' ' || text[at] === '\t') at++;
  return text[at] === ':' ? at : -1;
}

/**
 * Renders a value in the given style. Plain is kept only when the text reads back as itself
 * (a string, or a number whose text round-trips such as `2` or `0.5`); `1e3`, `.5`, `true` or
 * an empty string are double-quoted instead.
 */
export function renderScalar(value: string, style: QuoteStyle): string {
  if (style === 'QUOTE_SINGLE') return `'${value.replaceAll("'", "''")}'`;
  if (style === 'PLAIN' && isPlainSafe(value)) return value;
  return JSON.stringify(value);
}

function isPlainSafe(value: string): boolean {
  if (!/^[A-Za-z0-9._+-]+$/.test(value)) return false;
  const read: unknown = parse(value);
  return read === value || (typeof read === 'number' && String(read) === value);
}
