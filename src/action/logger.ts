// The Logger of the ports, over @actions/core: warnings and errors become annotations, debug
// lines show with step debugging on. Facts go after the static text; the token never does.
import * as core from '@actions/core';
import type { Logger } from '../util/logger.js';
import { redact } from '../util/redact.js';

export function coreLogger(secrets: readonly string[]): Logger {
  const line = (message: string, meta: Record<string, unknown> = {}) =>
    redact(Object.keys(meta).length === 0 ? message : `${message} ${JSON.stringify(meta)}`, secrets);
  return {
    debug: (message, meta) => core.debug(line(message, meta)),
    info: (message, meta) => core.info(line(message, meta)),
    warn: (message, meta) => core.warning(line(message, meta)),
    error: (message, meta) => core.error(line(message, meta)),
  };
}
