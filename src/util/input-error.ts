/** Input that stops the run (exit 2): a missing repo, an unreadable recommendations path, a config kerf cannot run with, a bad flag. */
export class InputError extends Error {
  readonly code = 'InvalidInput';
}
