// Re-extract to confirm (Renovate's habit): the edited text must parse, carry the new values,
// and read exactly like the original everywhere else.
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { applyChangesJs, cloneTree, findContainerJs, pruneEmpty, readField, stringifyFields } from './edit-js.js';
import type { FieldChange } from './edit-js.js';

/** `toJS()` of every document of a file, for comparisons. */
export function documentsJs(docs: ReturnType<typeof parseAllDocuments>): unknown[] {
  return docs.map((doc) => doc.toJS({ maxAliasCount: -1 }));
}

/** What is wrong with `docs` (the edited text, parsed) as the result of `changes` on document `index` of `before`; undefined when nothing is. */
export function findEditProblem(
  before: readonly unknown[],
  docs: ReturnType<typeof parseAllDocuments>,
  index: number,
  changes: readonly FieldChange[],
  findContainer: (document: unknown, name: string) => Record<string, unknown> | undefined = findContainerJs,
): string | undefined {
  const error = docs.flatMap((doc) => doc.errors)[0];
  if (error) return `the edited text does not parse: ${error.message.split('\n')[0]}`;
  const after = documentsJs(docs);
  if (after.length !== before.length) return `the edited text has ${after.length} documents instead of ${before.length}`;
  const expected = cloneTree(before[index]);
  const actual = cloneTree(after[index]);
  for (const name of new Set(changes.map((change) => change.container))) {
    const want = findContainer(expected, name);
    const got = findContainer(actual, name);
    if (!want || !got) return `container "${name}" is missing after the edit`;
    const own = changes.filter((change) => change.container === name);
    applyChangesJs(want, own);
    for (const { field } of own) {
      const value = readField(got, field);
      const wanted = readField(want, field);
      if (value !== wanted) return `container "${name}" ${field} reads ${value ?? 'nothing'} after the edit, not ${wanted ?? 'nothing'}`;
    }
    stringifyFields(got, own.map((change) => change.field));
    pruneEmpty(got);
  }
  for (const [i, doc] of after.entries()) {
    const same = i === index ? isDeepStrictEqual(actual, expected) : isDeepStrictEqual(doc, before[i]);
    if (!same) return `document ${i} changed beyond the requested fields`;
  }
  return undefined;
}
