import { describe, expect, it } from 'vitest';
import { githubObjects, type PullRequestRecord } from './github-objects.js';
import { apiSubset, matchOperation } from './openapi-subset.js';
import { validateSchema, type JsonSchema } from './schema-validator.js';

const refs: Record<string, JsonSchema> = {
  '#/components/schemas/user': { type: 'object', required: ['login'], properties: { login: { type: 'string' } } },
};
const resolve = (ref: string): JsonSchema => refs[ref] ?? { type: 'string', enum: ['unresolved'] };

describe('validateSchema keywords', () => {
  it.each<{ name: string; schema: JsonSchema; value: unknown; problems: string[] }>([
    { name: 'integer accepts 3', schema: { type: 'integer' }, value: 3, problems: [] },
    { name: 'integer refuses 3.5', schema: { type: 'integer' }, value: 3.5, problems: ['$: expected integer, got number'] },
    { name: 'string refuses a number', schema: { type: 'string' }, value: 1, problems: ['$: expected string, got number'] },
    { name: 'object refuses an array', schema: { type: 'object' }, value: [], problems: ['$: expected object, got array'] },
    { name: 'null needs nullable', schema: { type: 'string' }, value: null, problems: ['$: expected string, got null'] },
    { name: 'nullable accepts null', schema: { type: 'string', nullable: true }, value: null, problems: [] },
    { name: 'enum', schema: { type: 'string', enum: ['open', 'closed'] }, value: 'merged', problems: ['$: "merged" is not one of ["open","closed"]'] },
    {
      name: 'required and nested properties',
      schema: { type: 'object', required: ['a'], properties: { b: { type: 'object', properties: { c: { type: 'boolean' } } } } },
      value: { b: { c: 'yes' } },
      problems: ['$: missing required property "a"', '$.b.c: expected boolean, got string'],
    },
    {
      name: 'items with their index',
      schema: { type: 'array', items: { type: 'integer' } },
      value: [1, 'two'],
      problems: ['$[1]: expected integer, got string'],
    },
    {
      name: 'additionalProperties false',
      schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      value: { a: 'x', z: 1 },
      problems: ['$: unexpected property "z"'],
    },
    {
      name: 'additionalProperties schema',
      schema: { type: 'object', additionalProperties: { type: 'string' } },
      value: { k: 2 },
      problems: ['$.k: expected string, got number'],
    },
    {
      name: 'allOf needs every part',
      schema: { allOf: [{ type: 'object', required: ['a'] }, { type: 'object', required: ['b'] }] },
      value: { a: 1 },
      problems: ['$: missing required property "b"'],
    },
    {
      name: 'anyOf needs one alternative',
      schema: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      value: true,
      problems: ['$: matches none of 2 alternatives ($: expected string, got boolean | $: expected integer, got boolean)'],
    },
    {
      name: 'oneOf accepts overlapping alternatives (as GitHub writes them)',
      schema: { oneOf: [{ type: 'string', nullable: true }, { type: 'integer', nullable: true }] },
      value: null,
      problems: [],
    },
    { name: '$ref is followed', schema: { $ref: '#/components/schemas/user' }, value: {}, problems: ['$: missing required property "login"'] },
  ])('$name', ({ schema, value, problems }) => {
    expect(validateSchema(schema, value, resolve)).toEqual(problems);
  });
});

describe("GitHub's schemas for the served operations", () => {
  const api = apiSubset();
  const schemaOf = (operationId: string, status: number): JsonSchema => {
    const schema = api.operations.find((op) => op.operationId === operationId)?.responses.get(status);
    if (!schema) throw new Error(`no schema for ${operationId} ${status}`);
    return schema;
  };
  const objects = githubObjects({
    apiUrl: 'http://127.0.0.1:1',
    htmlUrl: 'http://127.0.0.1:2',
    owner: 'acme',
    repo: 'deploy',
    defaultBranch: 'main',
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    idOf: (_kind, name) => name.length,
  });
  const record: PullRequestRecord = {
    number: 1,
    id: 1,
    title: 'Resize cart',
    body: null,
    head: 'kerf/shop/deployment/cart',
    base: 'main',
    headSha: 'a'.repeat(40),
    baseSha: 'b'.repeat(40),
    state: 'open',
    draft: false,
    merged: false,
    mergedAt: null,
    mergeCommitSha: null,
    closedAt: null,
    createdAt: '2026-12-02T10:00:00Z',
    updatedAt: '2026-12-02T10:00:00Z',
    labels: ['kerf'],
    requestedReviewers: ['alice'],
    requestedTeams: ['sre'],
    author: 'github-actions[bot]',
    maintainerCanModify: true,
  };
  const label = { id: 1, name: 'kerf', color: 'ededed', description: '' };
  const wellFormed = () => objects.pullRequest(record, [label], true, { comments: 0 });

  it('accepts the pull request the stand-in builds', () => {
    expect(validateSchema(schemaOf('pulls/get', 200), wellFormed(), api.resolveRef)).toEqual([]);
  });

  it.each<{ name: string; break: (pr: Record<string, unknown>) => void; problem: string }>([
    { name: 'a missing number', break: (pr) => delete pr.number, problem: '$: missing required property "number"' },
    { name: 'a state GitHub never sends', break: (pr) => (pr.state = 'merged'), problem: '$.state: "merged" is not one of ["open","closed"]' },
    { name: 'a null head sha', break: (pr) => ((pr.head as Record<string, unknown>).sha = null), problem: '$.head.sha: expected string, got null' },
    { name: 'a label id as text', break: (pr) => ((pr.labels as Record<string, unknown>[])[0]!.id = '1'), problem: '$.labels[0].id: expected integer, got string' },
  ])('catches a malformed pull request: $name', ({ break: malform, problem }) => {
    const pr = wellFormed() as unknown as Record<string, unknown>;
    malform(pr);
    expect(validateSchema(schemaOf('pulls/get', 200), pr, api.resolveRef)).toContain(problem);
  });

  it('matches served routes, decoding parameters that carry slashes', () => {
    const encoded = matchOperation(api, 'DELETE', '/repos/acme/deploy/git/refs/heads%2Fkerf%2Fshop%2Fdeployment%2Fcart');
    expect(encoded?.operation.operationId).toBe('git/delete-ref');
    expect(encoded?.params).toMatchObject({ owner: 'acme', repo: 'deploy', ref: 'heads/kerf/shop/deployment/cart' });
    const raw = matchOperation(api, 'GET', '/repos/acme/deploy/branches/kerf/a/protection');
    expect(raw?.params.branch).toBe('kerf/a');
    expect(matchOperation(api, 'GET', '/repos/acme/deploy/pulls/7')?.operation.operationId).toBe('pulls/get');
    expect(matchOperation(api, 'POST', '/repos/acme/deploy/pulls/7/merge')).toBeNull();
  });
});
