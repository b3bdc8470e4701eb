import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The shared real-world corpus (../shared/corpus); tests that need it skip, by name, where it is absent. */
export const corpusDir = join(import.meta.dirname, '../../../shared/corpus');
export const hasCorpus = existsSync(corpusDir);
