// A small mustache-like renderer for the PR body template: `{{name}}`, `{{a.b}}`, `{{.}}`,
// sections `{{#list}}…{{/list}}` (repeat per item, or once when truthy) and inverted sections
// `{{^name}}…{{/name}}`. Values are inserted as written: the template decides escaping.
// A line that holds only a section tag disappears, so templates can keep one tag per line.

export class TemplateError extends Error {
  readonly code = 'InvalidTemplate';
}

type Node =
  | { type: 'text'; text: string }
  | { type: 'value'; path: string }
  | { type: 'section'; path: string; inverted: boolean; children: Node[] };

const TAG = /\{\{\s*([#^/]?)\s*([\w.]+)\s*\}\}/g;

/** Drops the line break and indentation around tags that stand alone on their line. */
function standaloneTrimmed(template: string): string {
  return template.replace(/^[ \t]*(\{\{\s*[#^/]\s*[\w.]+\s*\}\})[ \t]*(?:\r?\n|$)/gm, '$1');
}

function parse(template: string, name: string): Node[] {
  const root: Node[] = [];
  const stack: { path: string; children: Node[] }[] = [{ path: '', children: root }];
  const source = standaloneTrimmed(template);
  let last = 0;
  for (const match of source.matchAll(TAG)) {
    const [tag, sigil, path] = match as unknown as [string, string, string];
    const top = stack[stack.length - 1] as { path: string; children: Node[] };
    if (match.index > last) top.children.push({ type: 'text', text: source.slice(last, match.index) });
    last = match.index + tag.length;
    if (sigil === '#' || sigil === '^') {
      const section: Node = { type: 'section', path, inverted: sigil === '^', children: [] };
      top.children.push(section);
      stack.push({ path, children: section.children });
    } else if (sigil === '/') {
      if (stack.length === 1 || top.path !== path) throw new TemplateError(`${name}: {{/${path}}} closes ${top.path ? `{{#${top.path}}}` : 'nothing'}`);
      stack.pop();
    } else {
      top.children.push({ type: 'value', path });
    }
  }
  if (stack.length > 1) throw new TemplateError(`${name}: {{#${stack[stack.length - 1]?.path}}} is never closed`);
  if (last < source.length) root.push({ type: 'text', text: source.slice(last) });
  return root;
}

function lookup(scopes: readonly unknown[], path: string): unknown {
  if (path === '.') return scopes[scopes.length - 1];
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i];
    if (scope !== null && typeof scope === 'object' && head in scope) {
      return rest.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], (scope as Record<string, unknown>)[head]);
    }
  }
  return undefined;
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function renderNodes(nodes: readonly Node[], scopes: unknown[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text') out += node.text;
    else if (node.type === 'value') {
      const value = lookup(scopes, node.path);
      out += value === undefined || value === null ? '' : String(value);
    } else {
      const value = lookup(scopes, node.path);
      if (node.inverted) {
        if (!truthy(value)) out += renderNodes(node.children, scopes);
      } else if (Array.isArray(value)) {
        for (const item of value) out += renderNodes(node.children, [...scopes, item]);
      } else if (truthy(value)) {
        out += renderNodes(node.children, [...scopes, value]);
      }
    }
  }
  return out;
}

/** Compiles once, renders many times; `name` names the template in errors. */
export function compileTemplate(template: string, name: string): (view: object) => string {
  const nodes = parse(template, name);
  return (view) => renderNodes(nodes, [view]);
}
