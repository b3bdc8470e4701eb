import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editResources, EditError } from '../../src/manifests/edit-resources.js';
import type { DocumentTarget, ResourceEdit } from '../../src/manifests/edit-resources.js';

const GOLDEN = join(import.meta.dirname, 'golden');

interface GoldenCase {
  description: string;
  target: DocumentTarget;
  edits: ResourceEdit[];
  /** An `EditError` code the edit must be refused with; no expected.yaml then. */
  error?: string;
}

const goldenCases = readdirSync(GOLDEN, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => {
    const dir = join(GOLDEN, entry.name);
    const spec = JSON.parse(readFileSync(join(dir, 'edits.json'), 'utf8')) as GoldenCase;
    return { name: `${spec.description} [${entry.name}]`, dir, spec };
  });

describe('editResources golden files', () => {
  it.each(goldenCases)('$name', ({ dir, spec }) => {
    const original = readFileSync(join(dir, 'original.yaml'), 'utf8');
    const edit = (): string => editResources(original, spec.target, spec.edits, 'original.yaml');
    if (spec.error) {
      expect(edit).toThrow(expect.objectContaining({ code: spec.error }));
      return;
    }
    const expected = readFileSync(join(dir, 'expected.yaml'), 'utf8');
    expect(edit()).toBe(expected);
    // Applying the same edits again finds everything in place and changes nothing.
    expect(editResources(expected, spec.target, spec.edits, 'expected.yaml')).toBe(expected);
  });
});
