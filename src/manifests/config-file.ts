// `.kerf/config.yaml` (the reconciler's, or the helper's mounted one) read from its bytes.
import type { KerfConfig, PlanError } from '../model/types.js';
import { CONFIG_DEFAULTS, validateConfig } from '../model/validate.js';
import { documentLocator } from './yaml-locate.js';
import { decodeUtf8, parseFile } from './scanned-file.js';

/**
 * The config file's bytes read through the same pipeline as every manifest (UTF-8, YAML errors,
 * duplicate keys, aliases, then the schema). A file that cannot be read as a config at all pauses
 * the run: its pause or freeze may be in the part that failed.
 */
export function readConfigText(shown: string, bytes: Uint8Array): { config: KerfConfig; errors: PlanError[] } {
  const errors: PlanError[] = [];
  const text = decodeUtf8(shown, bytes, errors);
  const scanned = text === undefined ? undefined : parseFile(shown, text, errors);
  if (!scanned || scanned.broken) {
    for (const error of errors) error.message += '; counts as paused until it is fixed';
    return { config: { ...CONFIG_DEFAULTS, pause: true }, errors };
  }
  const validated = validateConfig(scanned.documents[0] ?? null, { file: shown, locate: documentLocator(scanned.text, 0) });
  return { config: validated.config, errors: [...errors, ...validated.errors] };
}
