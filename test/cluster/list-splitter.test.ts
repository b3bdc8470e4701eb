// The List splitter against JSON.parse: whatever the items hold (quotes, escapes, brackets inside
// strings, nested arrays) and wherever the chunks break, it hands on the same items, one at a time,
// and the rest of the document.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ListSplitter } from '../../src/cluster/list-splitter.js';

function split(text: string, cuts: number[]): { items: unknown[]; rest: unknown } {
  const items: unknown[] = [];
  const splitter = new ListSplitter((item) => items.push(item));
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
    splitter.write(text.slice(at, cut));
    at = cut;
  }
  splitter.write(text.slice(at));
  return { items, rest: splitter.end() };
}

const item = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 });

describe('ListSplitter', () => {
  it('gives the items and the rest JSON.parse gives, however the text is cut', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.string(), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (items, version, cuts, pretty) => {
        const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: version, continue: '{"]' }, items };
        const text = pretty ? JSON.stringify(list, null, 2) : JSON.stringify(list);
        const parsed = JSON.parse(text) as typeof list;
        expect(split(text, cuts)).toEqual({ items: parsed.items, rest: { ...parsed, items: [] } });
      }),
    );
  });

  it('hands each item on as soon as its text is complete', () => {
    const seen: unknown[] = [];
    const splitter = new ListSplitter((one) => seen.push(one));
    splitter.write('{"metadata":{},"items":[{"a":"}"},{"b":');
    expect(seen).toEqual([{ a: '}' }]);
    splitter.write('[1]}]}');
    expect(seen).toEqual([{ a: '}' }, { b: [1] }]);
    expect(splitter.end()).toEqual({ metadata: {}, items: [] });
  });

  it.each([
    ['cut short', '{"items":[{"a":1}'],
    ['inside a string', '{"items":[],"x":"ab'],
    ['not JSON', '{"items":[],"x":nope}'],
  ])('a list %s fails at the end', (_, text) => {
    const splitter = new ListSplitter(() => {});
    splitter.write(text);
    expect(() => splitter.end()).toThrow(SyntaxError);
  });
});
