import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../src/reconcile/template.js';

describe('the body template renderer', () => {
  it.each([
    ['values, dotted paths and the current item', '{{a}} {{b.c}} {{#list}}[{{.}}]{{/list}}', { a: 1, b: { c: 'x' }, list: ['p', 'q'] }, '1 x [p][q]'],
    ['sections see their item first, then the outer view', '{{#rows}}{{name}}@{{where}};{{/rows}}', { where: 'ns', rows: [{ name: 'a' }, { name: 'b', where: 'own' }] }, 'a@ns;b@own;'],
    ['a truthy value renders once, a falsy one or an empty list not at all', '{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{#none}}E{{/none}}', { yes: 'x', no: null, none: [] }, 'Y'],
    ['inverted sections render when falsy or empty', '{{^none}}empty{{/none}}{{^yes}}never{{/yes}}', { none: [], yes: true }, 'empty'],
    ['missing values render as nothing', '[{{nope}}]', {}, '[]'],
    ['a line holding only a section tag disappears', 'a\n{{#list}}\n- {{.}}\n{{/list}}\nb\n', { list: [1, 2] }, 'a\n- 1\n- 2\nb\n'],
    ['CRLF lines too', 'a\r\n{{#list}}\r\n{{.}}\r\n{{/list}}\r\nb', { list: [1] }, 'a\r\n1\r\nb'],
  ])('%s', (_, template, view, expected) => {
    expect(compileTemplate(template, 't')(view)).toBe(expected);
  });

  it.each([
    ['{{#a}}never closed', 't: {{#a}} is never closed'],
    ['{{#a}}x{{/b}}', 't: {{/b}} closes {{#a}}'],
    ['x{{/b}}', 't: {{/b}} closes nothing'],
  ])('refuses %s', (template, message) => {
    expect(() => compileTemplate(template, 't')).toThrow(new TemplateError(message));
  });
});
