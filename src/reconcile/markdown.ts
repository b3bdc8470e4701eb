// Values from Git or the cluster (names, quantities) placed in kerf's Markdown so that they read
// as themselves: never a table cell boundary, HTML, emphasis, an @mention or a closing keyword
// ("Fixes #1"); and the body bounded to what GitHub accepts.

/** GitHub refuses a pull request body (or comment) longer than this many characters. */
export const GITHUB_BODY_LIMIT = 65_536;

/** Room a follow-up comment keeps for its own first line. */
const CONTINUED_ROOM = 200;

function oneLine(value: string): string {
  return value.replace(/\r\n|\r|\n/g, ' ');
}

/**
 * An inline code span that shows `value` literally: GitHub links no mention or issue reference
 * and renders no HTML inside one. The fence is one backtick longer than the longest run inside,
 * padded with a space when the value starts or ends with a backtick (CommonMark's rule).
 */
export function code(value: string): string {
  const text = oneLine(value);
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^`|`$|^ .* $/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** `code` for a GFM table cell: a pipe splits cells before code spans are read, even inside one, so it is escaped. */
export function codeCell(value: string): string {
  return code(value).replace(/\|/g, '\\|');
}

/** Text that is only letters, digits and punctuation Markdown gives no meaning here (quantities, `(none)`). */
const INERT = /^[A-Za-z0-9 .:/+\-()→,%]*$/;

/** GitHub's closing keywords, which close an issue named after them even by URL. */
const CLOSING_KEYWORD = /\b(close[sd]?|fix(e[sd])?|resolve[sd]?)\b/i;

const isInert = (value: string): boolean => INERT.test(value) && !CLOSING_KEYWORD.test(value);

/** A value as plain text where that is inert, else as code: `700m` stays `700m`, anything odd cannot turn into Markdown. */
export function literal(value: string): string {
  return isInert(value) ? value : code(value);
}

/** `literal` for a GFM table cell. */
export function literalCell(value: string): string {
  return isInert(value) ? value : codeCell(value);
}

export interface BoundedBody {
  body: string;
  /** What did not fit, to post as follow-up comments (each within the limit); empty when all fit. */
  rest: string[];
}

/**
 * The rendered body cut at a line break to GitHub's limit, keeping what follows its last `keep`
 * (kerf's metadata marker) and saying where the rest went; the rest in comment-sized pieces.
 */
export function boundBody(body: string, keep: string, limit: number = GITHUB_BODY_LIMIT): BoundedBody {
  if (body.length <= limit) return { body, rest: [] };
  const at = keep === '' ? -1 : body.lastIndexOf(keep);
  const tail = at < 0 ? '' : body.slice(at);
  const main = at < 0 ? body : body.slice(0, at);
  const note = `\n\n> This description is cut at GitHub's limit of ${limit.toLocaleString('en-US')} characters; the rest follows in the comments below.\n\n`;
  const room = limit - note.length - tail.length;
  const cut = Math.max(main.lastIndexOf('\n', room), 0) || room;
  return { body: main.slice(0, cut) + note + tail, rest: pieces(main.slice(cut).replace(/^\n/, ''), limit - CONTINUED_ROOM) };
}

function pieces(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = rest.lastIndexOf('\n', limit) > 0 ? rest.lastIndexOf('\n', limit) : limit;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest.trim() !== '') out.push(rest);
  return out;
}
