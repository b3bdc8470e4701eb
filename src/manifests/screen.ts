// Screening before parsing: most documents of a GitOps repo (Services, ConfigMaps, Secrets, CRDs)
// are neither workloads nor kerf objects, and parsing them is most of a scan's time and memory.
// A pure function over a file's text finds each document by its markers and the `kind` it names
// at the top, and blanks out the documents that cannot matter before the text is parsed.

/**
 * The kinds a scan reads (workloads, what guards them, kerf's own objects, kustomize and Argo
 * CD objects); a document naming any other kind is skipped.
 */
export const SCANNED_KINDS: ReadonlySet<string> = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
  'RightsizingPolicy',
  'RightsizingRecommendation',
  'Kustomization',
  'Component',
  'Application',
  'ApplicationSet',
  'AppProject',
  'HelmRelease',
]);

// A marker line: `---` or `...` at the start of a line, alone or before a space or a comment.
const MARKER = /^(---|\.\.\.)(?=[ \t]|\r?\n?$)/;
/** A top-level `kind: Word` line: a key at column 0, the value a plain or quoted single word, maybe a comment after. */
const KIND_LINE = /^(["']?)kind\1[ \t]*:[ \t]*(["']?)([A-Za-z0-9.-]+)\2[ \t]*(#.*)?\r?\n?$/;
const KIND_KEY = /^(["']?)kind\1[ \t]*:/;

interface Span {
  /** Offsets of the document's lines, from its first line to the one before the next document's. */
  lines: { start: number; end: number }[];
  /** The one kind named at the top, or undefined when none or more than one or not plainly. */
  kind: string | undefined;
  /** When the kind cannot be told from the text (content on a marker line, an odd `kind` line). */
  unsure: boolean;
  explicitStart: boolean;
  hasContent: boolean;
}

/**
 * The text with every document whose top-level kind is plainly not in `kinds` blanked out: each
 * of its lines emptied but for its markers and directives, so the parse that follows sees the
 * same number of documents at the same lines (a skipped one reads as an empty document) and
 * builds nothing for it. Undefined when no document is kept. Documents whose kind is not plain
 * to see, and those whose text mentions `mention`, are kept.
 */
export function screenDocuments(text: string, kinds: Pick<ReadonlySet<string>, 'has'> = SCANNED_KINDS, mention?: string): string | undefined {
  const spans = splitDocuments(text);
  const mentions = mention === undefined ? [] : offsetsOf(text, mention);
  const mentioned = (span: Span): boolean => {
    const start = span.lines[0]?.start ?? 0;
    const end = span.lines.at(-1)?.end ?? 0;
    return mentions.some((at) => at >= start && at < end);
  };
  const keep = spans.map((span) => span.unsure || span.kind === undefined || kinds.has(span.kind) || mentioned(span));
  if (!keep.some(Boolean)) return undefined;
  if (keep.every(Boolean)) return text;
  let out = '';
  spans.forEach((span, i) => {
    if (keep[i]) {
      const first = span.lines[0];
      const last = span.lines.at(-1);
      if (first && last) out += text.slice(first.start, last.end);
      return;
    }
    // A skipped document keeps its place: an explicit start marker stands in for it.
    let marked = false;
    for (const { start, end } of span.lines) {
      const line = text.slice(start, end);
      const eol = line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
      if (MARKER.test(line) || line.startsWith('%')) {
        marked ||= line.startsWith('---');
        out += line;
      } else if (!marked && !isBlankOrComment(line)) {
        out += `---${eol}`;
        marked = true;
      } else {
        out += eol;
      }
    }
  });
  return out;
}

/**
 * Where each document of the file starts and ends by its markers: every byte in exactly one
 * document, each document parseable on its own (its directives and comments come with it).
 */
export function documentBounds(text: string): { start: number; end: number }[] {
  return splitDocuments(text).map(({ lines }) => ({ start: lines[0]?.start ?? text.length, end: lines.at(-1)?.end ?? text.length }));
}

/** Every offset at which `word` occurs in `text`. */
function offsetsOf(text: string, word: string): number[] {
  const offsets: number[] = [];
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) offsets.push(at);
  return offsets;
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

/** The file's documents as its markers delimit them; lines before a document's first content belong to it. */
function splitDocuments(text: string): Span[] {
  const spans: Span[] = [];
  const open = (): Span => ({ lines: [], kind: undefined, unsure: false, explicitStart: false, hasContent: false });
  let current = open();
  let kinds = 0;
  const close = () => {
    if (kinds > 1) current.unsure = true;
    spans.push(current);
    current = open();
    kinds = 0;
  };
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    const line = text.slice(start, end);
    const marker = MARKER.exec(line)?.[1];
    if (marker === '---') {
      if (current.explicitStart || current.hasContent) close();
      current.explicitStart = true;
      // Content after the marker (`--- !tag`, `--- |`, `--- {kind: X}`): not plain to see.
      if (!isBlankOrComment(line.slice(3))) current.unsure = current.hasContent = true;
      current.lines.push({ start, end });
    } else if (marker === '...') {
      current.lines.push({ start, end });
      if (current.explicitStart || current.hasContent) close();
    } else {
      current.lines.push({ start, end });
      if (!isBlankOrComment(line) && !line.startsWith('%')) current.hasContent = true;
      if (KIND_KEY.test(line)) {
        kinds++;
        const kind = KIND_LINE.exec(line)?.[3];
        if (kind === undefined) current.unsure = true;
        else current.kind = kind;
      }
    }
    start = end;
  }
  // Trailing blank or comment lines stay with the last document; a file of only those is one span.
  const last = spans.at(-1);
  if (last && !current.explicitStart && !current.hasContent) last.lines.push(...current.lines);
  else close();
  return spans;
}
