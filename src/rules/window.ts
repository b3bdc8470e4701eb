// Maintenance and freeze windows (W1–W3, Z3). A list of window specs is compiled once into values
// plus problems; evaluating at a `now` is pure, so callers can cache both steps.
import { CronExpression, CronExpressionParser, type CronFieldCollection } from 'cron-parser';
import { IANAZone } from 'luxon';
import { DurationError, parseDuration } from './duration.js';
import { parseRfc3339 } from './window-timestamp.js';
import { fromWallTime, recentRewindMs, toWallTime } from './window-zone.js';

/** W2: a list holds at most this many windows. */
export const MAX_WINDOWS = 16;

/** Where a list comes from: a policy's `spec.apply`, or the config's chart-wide freeze. */
export type WindowList = 'maintenanceWindows' | 'freezeWindows' | 'freeze.windows';
export type WindowKind = 'maintenance' | 'freeze';

export type WindowErrorCode =
  | 'InvalidWindow'
  | 'InvalidSchedule'
  | 'InvalidTimeZone'
  | 'InvalidDuration'
  | 'InvalidTime'
  | 'TooManyWindows';

/** A problem with one window of a list; the caller adds the policy or file. */
export class WindowError extends Error {
  readonly code: WindowErrorCode;
  /** 0-based position in the list. */
  readonly index: number;
  /** The window's field at fault, when one is. */
  readonly field: string | undefined;

  constructor(code: WindowErrorCode, index: number, field: string | undefined, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WindowError';
    this.code = code;
    this.index = index;
    this.field = field;
  }
}

export interface OneOffWindow {
  readonly kind: 'one-off';
  readonly index: number;
  readonly start: Date;
  readonly end: Date;
}

export interface RecurringWindow {
  readonly kind: 'recurring';
  readonly index: number;
  readonly schedule: string;
  readonly timeZone: string;
  readonly durationMs: number;
  readonly zone: IANAZone;
  readonly fields: CronFieldCollection;
}

export type CompiledWindow = OneOffWindow | RecurringWindow;

export interface CompiledWindows {
  readonly list: WindowList;
  /** The valid windows, in list order. */
  readonly windows: readonly CompiledWindow[];
  /** Every problem found; a window with at least one is invalid. */
  readonly errors: readonly WindowError[];
}

export interface WindowEvaluation {
  open: boolean;
  /** Earliest opening of a valid window strictly after `now`; null when none opens again. */
  nextWindow: Date | null;
  /** Indexes of the valid windows open at `now`. */
  openWindows: number[];
  /** Indexes of the invalid windows (closed for maintenance, W3; open for freeze, Z3). */
  invalidWindows: number[];
}

const RECURRING_FIELDS = ['schedule', 'duration', 'timeZone'];
const ONE_OFF_FIELDS = ['start', 'end'];
const KNOWN_FIELDS = [...RECURRING_FIELDS, ...ONE_OFF_FIELDS];
const EXAMPLE_TIME = '2026-12-06T01:00:00Z';
const CRON_FIELDS = 'minute hour day-of-month month day-of-week';
/** Any fixed instant: parsing does not depend on it, but cron-parser must never see the local clock. */
const PARSE_DATE = new Date(0);
// cron-parser's `H` picks a random value unless seeded: a window must not move between runs.
const HASHED = /(?<![a-z])h(?![a-z])/i;

/** The problems of one window, as WindowErrors naming the list, the index and the field. */
class WindowProblems {
  readonly errors: WindowError[] = [];
  readonly #list: WindowList;
  readonly #index: number;

  constructor(list: WindowList, index: number) {
    this.#list = list;
    this.#index = index;
  }

  add(code: WindowErrorCode, field: string | undefined, detail: string, cause?: unknown): void {
    const where = `${this.#list}[${this.#index}]${field === undefined ? '' : `.${field}`}`;
    const options = cause === undefined ? undefined : { cause };
    this.errors.push(new WindowError(code, this.#index, field, `${where}: ${detail}`, options));
  }
}

/** Compile a list of window specs (W1, W2); the 17th and later windows are invalid. */
export function compileWindows(specs: readonly unknown[], list: WindowList): CompiledWindows {
  const windows: CompiledWindow[] = [];
  const errors: WindowError[] = [];
  specs.forEach((spec, index) => {
    const problems = new WindowProblems(list, index);
    if (index >= MAX_WINDOWS) {
      problems.add('TooManyWindows', undefined, `a list holds at most ${MAX_WINDOWS} windows; this is window ${index + 1}`);
    }
    const window = index < MAX_WINDOWS ? compileWindow(spec, index, problems) : undefined;
    if (window && problems.errors.length === 0) windows.push(window);
    errors.push(...problems.errors);
  });
  return { list, windows, errors };
}

function compileWindow(spec: unknown, index: number, problems: WindowProblems): CompiledWindow | undefined {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    problems.add('InvalidWindow', undefined, `${JSON.stringify(spec)} is not a window (a mapping)`);
    return undefined;
  }
  const fields = spec as Record<string, unknown>;
  // YAML writes an empty field as null: it counts as absent.
  const present = Object.keys(fields).filter((key) => fields[key] !== undefined && fields[key] !== null);
  for (const key of present.filter((key) => !KNOWN_FIELDS.includes(key))) {
    problems.add('InvalidWindow', key, `unknown field; a window has ${KNOWN_FIELDS.join(', ')}`);
  }
  const recurring = present.some((key) => RECURRING_FIELDS.includes(key));
  const oneOff = present.some((key) => ONE_OFF_FIELDS.includes(key));
  if (recurring && oneOff) {
    const forms = `recurring (${RECURRING_FIELDS.join(', ')}) and one-off (${ONE_OFF_FIELDS.join(', ')})`;
    problems.add('InvalidWindow', undefined, `mixes ${forms} fields`);
    return undefined;
  }
  if (recurring) return compileRecurring(fields, index, problems);
  if (oneOff) return compileOneOff(fields, index, problems);
  problems.add('InvalidWindow', undefined, 'has neither schedule and duration nor start and end');
  return undefined;
}

function stringField(
  fields: Record<string, unknown>,
  field: string,
  code: WindowErrorCode,
  example: string,
  problems: WindowProblems,
): string | undefined {
  const value = fields[field];
  if (typeof value === 'string') return value;
  const detail = value === undefined || value === null ? 'is missing' : `${JSON.stringify(value)} is not a string`;
  problems.add(code, field, `${detail}, e.g. ${example}`);
  return undefined;
}

function compileRecurring(fields: Record<string, unknown>, index: number, problems: WindowProblems): RecurringWindow | undefined {
  const schedule = stringField(fields, 'schedule', 'InvalidSchedule', '"0 2 * * 6"', problems);
  const cron = schedule === undefined ? undefined : compileSchedule(schedule, problems);
  const zone = compileZone(fields, problems);
  const duration = stringField(fields, 'duration', 'InvalidDuration', '"2h"', problems);
  const durationMs = duration === undefined ? undefined : compileDuration(duration, problems);
  if (schedule === undefined || cron === undefined || zone === undefined || durationMs === undefined) return undefined;
  return { kind: 'recurring', index, schedule, timeZone: zone.name, durationMs, zone, fields: cron };
}

function compileSchedule(schedule: string, problems: WindowProblems): CronFieldCollection | undefined {
  const quoted = JSON.stringify(schedule);
  const count = schedule.trim() === '' ? 0 : schedule.trim().split(/\s+/).length;
  if (count !== 5) {
    problems.add('InvalidSchedule', 'schedule', `${quoted} has ${count} fields; a schedule has exactly 5: ${CRON_FIELDS}`);
    return undefined;
  }
  if (HASHED.test(schedule)) {
    problems.add('InvalidSchedule', 'schedule', `${quoted} uses H (a hashed, random value); write the value itself`);
    return undefined;
  }
  try {
    const expression = CronExpressionParser.parse(schedule, { currentDate: PARSE_DATE, tz: 'UTC' });
    // A schedule that can never fire makes cron-parser give up after its loop limit: find out now.
    expression.next();
    return expression.fields;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.add('InvalidSchedule', 'schedule', `${quoted} is not a cron schedule (${CRON_FIELDS}): ${reason}`, error);
    return undefined;
  }
}

function compileZone(fields: Record<string, unknown>, problems: WindowProblems): IANAZone | undefined {
  const timeZone =
    fields.timeZone === undefined || fields.timeZone === null
      ? 'UTC'
      : stringField(fields, 'timeZone', 'InvalidTimeZone', '"Europe/Berlin"', problems);
  if (timeZone === undefined) return undefined;
  // IANAZone.create caches per name, so the costly check (a new Intl.DateTimeFormat) runs once per zone.
  const zone = IANAZone.create(timeZone);
  if (zone.isValid) return zone;
  const detail = `${JSON.stringify(timeZone)} is not an IANA time zone, e.g. "Europe/Berlin" or "UTC"`;
  problems.add('InvalidTimeZone', 'timeZone', detail);
  return undefined;
}

function compileDuration(duration: string, problems: WindowProblems): number | undefined {
  try {
    const ms = parseDuration(duration);
    if (ms > 0) return ms;
    problems.add('InvalidDuration', 'duration', `${JSON.stringify(duration)} is not positive`);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    problems.add('InvalidDuration', 'duration', `${error.message} (units h, m, s; no days: write 72h, not 3d)`, error);
  }
  return undefined;
}

function compileOneOff(fields: Record<string, unknown>, index: number, problems: WindowProblems): OneOffWindow | undefined {
  const [start, end] = ONE_OFF_FIELDS.map((field) => {
    const text = stringField(fields, field, 'InvalidTime', `"${EXAMPLE_TIME}"`, problems);
    const date = text === undefined ? null : parseRfc3339(text);
    if (text !== undefined && date === null) {
      problems.add('InvalidTime', field, `${JSON.stringify(text)} is not an RFC 3339 time with offset, e.g. "${EXAMPLE_TIME}"`);
    }
    return date;
  });
  if (!start || !end) return undefined;
  if (end.getTime() <= start.getTime()) {
    problems.add('InvalidTime', 'end', `${JSON.stringify(fields.end)} is not after start ${JSON.stringify(fields.start)}`);
    return undefined;
  }
  return { kind: 'one-off', index, start, end };
}

/**
 * cron-parser runs on wall times in UTC, never in the window's zone: its own DST handling moves a
 * skipped 02:30 to 03:30, fires a repeated time twice, and its prev() skips a spring-forward day.
 * window-zone.ts turns wall times into instants with the rules of DESIGN.md instead.
 */
function cronFrom(window: RecurringWindow, wallMs: number): CronExpression {
  return CronExpression.fieldsToExpression(window.fields, { currentDate: new Date(wallMs), tz: 'UTC' });
}

/** The latest opening at or before `nowMs`, as an instant. */
function latestOpening(window: RecurringWindow, nowMs: number): number {
  // After a fall-back, wall times later than now's may already have fired (their first occurrence).
  const cron = cronFrom(window, toWallTime(window.zone, nowMs) + recentRewindMs(window.zone, nowMs) + 1);
  for (;;) {
    const opening = fromWallTime(window.zone, cron.prev().getTime());
    if (opening <= nowMs) return opening;
  }
}

/** Whether the window is open at `now`: from an opening (included) to its end (excluded). */
export function isOpen(window: CompiledWindow, now: Date): boolean {
  const nowMs = now.getTime();
  if (window.kind === 'one-off') return window.start.getTime() <= nowMs && nowMs < window.end.getTime();
  // Every opening lasts as long, so if the latest one has ended, so have all before it.
  return latestOpening(window, nowMs) + window.durationMs > nowMs;
}

/** The earliest opening strictly after `now`; null when the window never opens again. */
export function nextOpening(window: CompiledWindow, now: Date): Date | null {
  const nowMs = now.getTime();
  if (window.kind === 'one-off') return window.start.getTime() > nowMs ? new Date(window.start) : null;
  // Wall times at or before now's never map to an instant after now; later ones may still map to
  // one at or before it, in the hour a fall-back repeats.
  const cron = cronFrom(window, toWallTime(window.zone, nowMs));
  for (;;) {
    const opening = fromWallTime(window.zone, cron.next().getTime());
    if (opening > nowMs) return new Date(opening);
  }
}

/** An opening of a window: from `start` (included) to `end` (excluded), in milliseconds. */
export interface Span {
  start: number;
  end: number;
}

/** The opening that contains `atMs`, or else the next one after it; null when the window never opens again. */
export function spanAtOrAfter(window: CompiledWindow, atMs: number): Span | null {
  if (window.kind === 'one-off') {
    const [start, end] = [window.start.getTime(), window.end.getTime()];
    return end > atMs ? { start, end } : null;
  }
  const latest = latestOpening(window, atMs);
  if (latest + window.durationMs > atMs) return { start: latest, end: latest + window.durationMs };
  const next = nextOpening(window, new Date(atMs));
  return next && { start: next.getTime(), end: next.getTime() + window.durationMs };
}

/** Maintenance: open when a valid window is open (W3). Freeze: also open when any window is invalid (Z3). */
export function evaluateWindows(compiled: CompiledWindows, kind: WindowKind, now: Date): WindowEvaluation {
  const openWindows = compiled.windows.filter((window) => isOpen(window, now)).map((window) => window.index);
  const invalidWindows = [...new Set(compiled.errors.map((error) => error.index))];
  let nextWindow: Date | null = null;
  for (const window of compiled.windows) {
    const opening = nextOpening(window, now);
    if (opening && (!nextWindow || opening < nextWindow)) nextWindow = opening;
  }
  const open = openWindows.length > 0 || (kind === 'freeze' && invalidWindows.length > 0);
  return { open, nextWindow, openWindows, invalidWindows };
}
