// Plain data (objects, arrays, scalars) whose strings are shared. A fleet's workloads
// repeat the same kinds, labels, images and quantities tens of thousands of times, and every copy
// of a string costs its bytes again; the pool keeps one of each. The strings it keeps are fresh
// copies, never slices of a parse's text, so nothing it holds keeps a file's text alive.

/** Below this length V8 copies a substring rather than slice it: such a string is already its own. */
const SLICED_MIN_LENGTH = 13;

export class StringPool {
  private readonly strings = new Map<string, string>();

  /** The pool's string equal to `value`, taken into the pool when it has none. */
  string(value: string): string {
    let kept = this.strings.get(value);
    if (kept === undefined) {
      kept = value.length < SLICED_MIN_LENGTH ? value : structuredClone(value);
      this.strings.set(kept, kept);
    }
    return kept;
  }

  /**
   * `value` with every string in it (keys aside) replaced by the pool's, in place, and returned:
   * an equal string in place of a string changes nothing anyone can see, and the objects and
   * arrays stay as they are (their shapes the compact ones their literals gave them). Each object
   * is visited once, so data an alias made circular is fine.
   */
  share<T>(value: T, seen = new Set<object>()): T {
    // A Buffer (a !!binary value) holds bytes, not strings.
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value) || seen.has(value)) return value;
    seen.add(value);
    const items = value as Record<string, unknown>;
    for (const key of Object.keys(items)) {
      const item = items[key];
      if (typeof item === 'string') items[key] = this.string(item);
      else this.share(item, seen);
    }
    return value;
  }
}
