// One small Logger for every part: static message text, facts in meta; JSON lines in the helper.
import type { Writable } from 'node:stream';

export interface Logger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

type Level = keyof Logger;
const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

/** JSON lines on `stream`, each stamped with `now()` (the caller's clock). */
export function jsonLineLogger(stream: Writable, options: { level?: Level; now: () => Date }): Logger {
  const threshold = LEVELS.indexOf(options.level ?? 'info');
  const { now } = options;
  const write = (level: Level) => (message: string, meta: Record<string, unknown> = {}) => {
    if (LEVELS.indexOf(level) < threshold) return;
    stream.write(`${JSON.stringify({ time: now().toISOString(), level, msg: message, ...meta })}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
