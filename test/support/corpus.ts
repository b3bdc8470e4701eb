import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shared real-world corpus: `KERF_CORPUS`, else `../shared/corpus` beside the checkout, else the
 * workplace's `/work/shared/corpus`. Tests that need it skip, by name, where none exists.
 */
const candidates = [process.env.KERF_CORPUS, join(import.meta.dirname, '../../../shared/corpus'), '/work/shared/corpus'];
export const corpusDir = candidates.find((dir): dir is string => dir !== undefined && dir !== '' && existsSync(dir)) ?? join(import.meta.dirname, '../../../shared/corpus');
export const hasCorpus = existsSync(corpusDir);
