// Input that stops a run (bad flags, a missing repo, no cluster): one line on stderr and exit 2.
import { InputError } from '../util/input-error.js';

export class UsageError extends Error {
  readonly code = 'Usage';
}

/** Exit 2 with the message for input that stops the run; anything else is thrown on. */
export function inputStopsTheRun(error: unknown): number {
  if (error instanceof InputError || error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`kerf-gitops: ${(error as Error).message}\n`);
    return 2;
  }
  throw error;
}
