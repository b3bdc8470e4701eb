// A List's JSON split as it arrives: each element of `items` is parsed on its own and handed on, so
// the caller can cut it down (cached-objects.ts) while the full object is still young garbage. Parsed
// whole, a page of 500 pods lives long enough to be promoted to V8's old space, and the helper's
// memory grew by seven times what it keeps.
// A Kubernetes List's one array member is `items`, so the array at the top level is taken to be it.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

export class ListSplitter {
  /** Unscanned text, and the current item's text from its start. */
  private buffer = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private inItems = false;
  /** Where the current item starts in `buffer`; -1 between items. */
  private itemStart = -1;
  /** Where the text outside `items` that is not yet kept starts in `buffer`; -1 inside `items`. */
  private copyFrom = 0;
  /** The document without its items: `{"kind":…,"metadata":{…},"items":[]}`. */
  private skeleton = '';

  constructor(private readonly onItem: (item: unknown) => void) {}

  write(chunk: string): void {
    let i = this.buffer.length;
    this.buffer += chunk;
    const text = this.buffer;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) {
        this.inString = true;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (this.depth === 1 && c === OPEN_ARRAY) {
          this.inItems = true;
          this.skeleton += text.slice(this.copyFrom, i + 1);
          this.copyFrom = -1;
        } else if (this.inItems && this.depth === 2) {
          this.itemStart = i;
        }
        this.depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        this.depth--;
        if (this.inItems && this.depth === 2) {
          this.onItem(JSON.parse(text.slice(this.itemStart, i + 1)));
          this.itemStart = -1;
        } else if (this.inItems && this.depth === 1) {
          this.inItems = false;
          this.copyFrom = i;
        }
      }
    }
    // Keep only what is still needed: the item under way, or nothing once the rest is in the skeleton.
    if (this.copyFrom >= 0) this.skeleton += text.slice(this.copyFrom);
    this.buffer = this.itemStart >= 0 ? text.slice(this.itemStart) : '';
    if (this.itemStart >= 0) this.itemStart = 0;
    if (this.copyFrom >= 0) this.copyFrom = 0;
  }

  /** The document with `items` empty; throws when the text ended early or is not JSON. */
  end(): unknown {
    if (this.depth !== 0 || this.inString) throw new SyntaxError('the list ended before its JSON did');
    return JSON.parse(this.skeleton);
  }
}
