/**
 * Cron workflows (`cronSchedule` on a start, or on a child workflow's start), as the real server runs them: the
 * schedule is a standard cron expression (5 fields: minute hour day-of-month month day-of-week, names like `mon`
 * and `jan`, an optional `CRON_TZ=` / `TZ=` zone, UTC otherwise) or a shorthand (`@hourly`…`@yearly`,
 * `@every <duration>`). A workflow's first workflow task waits for the next cron time (firstWorkflowTaskBackoff,
 * initiator CRON_SCHEDULE); when a run completes, fails (past its retries) or times out, the close event names
 * the next run, which starts with the same input and waits for the next cron time after the closed run's
 * scheduled one, rounded up to the second. A cancelled or terminated run ends the chain.
 *
 * For a child workflow start: `cronScheduleError` is the check its command gets; passing `cronSchedule` in the
 * start request to `createRun` does the rest (first backoff, initiator, the chain on close).
 */
import { invalidArgument } from '../errors.js';
import type { Execution } from '../execution.js';
import { eventAttributes } from '../persistence/codec.js';
import { ContinueAsNewInitiator } from '../proto.js';
import type { Failure, Payloads } from '../proto.js';
import { CompiledCalendar } from '../schedules/calendar.js';
import type { Range, StructuredCalendar } from '../schedules/calendar.js';
import { CRON_SHORTHANDS, parseGoDuration } from '../schedules/cron-string.js';
import { loadZone } from '../schedules/zone.js';
import type { EngineContext } from './context.js';

interface CronSchedule {
  /** The first cron time after `afterMs` (whole seconds), or undefined when there is none. */
  next(afterMs: number): number | undefined;
}

interface Field {
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: Record<'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek', Field> = {
  minute: { min: 0, max: 59 },
  hour: { min: 0, max: 23 },
  dayOfMonth: { min: 1, max: 31 },
  month: {
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  dayOfWeek: { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
};
const FIELD_ORDER = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/** One field: its values, and whether it was a bare `*` or `?` (which makes day-of-month and day-of-week AND). */
function parseField(text: string, field: Field): { values: number[]; star: boolean } {
  const values = new Set<number>();
  let star = false;
  const parseNumber = (value: string) => {
    const index = field.names?.indexOf(value.toLowerCase()) ?? -1;
    if (index >= 0) return index + field.min;
    if (!/^\d+$/.test(value)) throw new Error(`failed to parse int from ${value}`);
    return Number(value);
  };
  for (const part of text.split(',')) {
    const [range = '', stepText, extra] = part.split('/');
    if (extra !== undefined) throw new Error(`too many slashes: ${part}`);
    const bounds = range.split('-');
    let start: number;
    let end: number;
    const wildcard = range === '*' || range === '?';
    if (wildcard) [start, end] = [field.min, field.max];
    else if (bounds.length <= 2) [start, end] = [parseNumber(bounds[0]!), parseNumber(bounds[1] ?? bounds[0]!)];
    else throw new Error(`too many hyphens: ${range}`);
    let step = 1;
    if (stepText !== undefined) {
      step = parseNumber(stepText);
      // "n/step" runs from n to the maximum
      if (bounds.length === 1 && !wildcard) end = field.max;
    }
    if (start < field.min || end > field.max || start > end || step < 1) throw new Error(`out of range: ${part}`);
    if (wildcard && step === 1) star = true;
    for (let value = start; value <= end; value += step) values.add(value);
  }
  return { values: [...values], star };
}

const asRanges = (values: number[]): Range[] => values.map((value) => ({ start: value }));
const EVERY_WEEKDAY = asRanges([0, 1, 2, 3, 4, 5, 6]);
const EVERY_DAY = asRanges(Array.from({ length: 31 }, (_, i) => i + 1));

/** Throws an Error saying what is wrong. */
function parseCronSchedule(cronSchedule: string): CronSchedule {
  let text = cronSchedule.trim();
  let zoneName = '';
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    if (space < 0) throw new Error('missing fields after the time zone');
    zoneName = text.slice(text.indexOf('=') + 1, space);
    text = text.slice(space).trim();
  }
  const zone = loadZone(zoneName);
  if (text.startsWith('@every ')) {
    // a fixed delay from the previous time, in whole seconds (at least one)
    const delayMs = Math.max(
      1000,
      Math.floor(parseGoDuration(text.slice('@every '.length).trim(), { days: false }) / 1000) * 1000,
    );
    return { next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delayMs };
  }
  if (text.startsWith('@') && !CRON_SHORTHANDS[text]) throw new Error(`unrecognized descriptor: ${text}`);
  const words = (CRON_SHORTHANDS[text] ?? text).split(/\s+/).filter(Boolean);
  if (words.length !== FIELD_ORDER.length) throw new Error(`expected exactly 5 fields, found ${words.length}: ${text}`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = FIELD_ORDER.map((name, i) =>
    parseField(words[i]!, FIELDS[name]),
  );
  const common: StructuredCalendar = {
    second: [{ start: 0 }],
    minute: asRanges(minute!.values),
    hour: asRanges(hour!.values),
    month: asRanges(month!.values),
  };
  // with both days restricted a day matches either (cron's rule); with one a wildcard, both must match
  const calendars: StructuredCalendar[] =
    dayOfMonth!.star || dayOfWeek!.star
      ? [{ ...common, dayOfMonth: asRanges(dayOfMonth!.values), dayOfWeek: asRanges(dayOfWeek!.values) }]
      : [
          { ...common, dayOfMonth: asRanges(dayOfMonth!.values), dayOfWeek: EVERY_WEEKDAY },
          { ...common, dayOfMonth: EVERY_DAY, dayOfWeek: asRanges(dayOfWeek!.values) },
        ];
  const compiled = calendars.map((calendar) => new CompiledCalendar(calendar, zone));
  return {
    next: (afterMs) => {
      const times = compiled
        .map((calendar) => calendar.next(Math.floor(afterMs / 1000)))
        .filter((time): time is number => time !== undefined);
      return times.length ? Math.min(...times) * 1000 : undefined;
    },
  };
}

/** The real server's check of a cron schedule: its message, or undefined when it is fine (or empty). */
export function cronScheduleError(cronSchedule: string | null | undefined, nowMs: number): string | undefined {
  if (!cronSchedule) return undefined;
  let schedule: CronSchedule;
  try {
    schedule = parseCronSchedule(cronSchedule);
  } catch {
    return 'invalid CronSchedule.';
  }
  return schedule.next(nowMs) === undefined
    ? 'invalid CronSchedule, no time can be found to satisfy the schedule'
    : undefined;
}

/** A start request's cron schedule (INVALID_ARGUMENT as the real server's frontend answers). */
export function validateCronSchedule(
  request: { cronSchedule?: string | null; workflowStartDelay?: object | null },
  nowMs: number,
): void {
  if (!request.cronSchedule) return;
  if (request.workflowStartDelay)
    throw invalidArgument('CronSchedule and WorkflowStartDelay may not be used together.');
  const error = cronScheduleError(request.cronSchedule, nowMs);
  if (error) throw invalidArgument(error);
}

/**
 * How long a run scheduled for `scheduledMs` makes its successor wait, at `nowMs`: until the first cron time after
 * the scheduled one that is not before now, rounded up to the second. Undefined when no time comes.
 */
function backoffMs(schedule: CronSchedule, scheduledMs: number, nowMs: number): number | undefined {
  let next: number | undefined = scheduledMs;
  if (nowMs >= scheduledMs)
    for (next = schedule.next(scheduledMs); next !== undefined && next < nowMs; next = schedule.next(next));
  return next === undefined ? undefined : Math.ceil((next - nowMs) / 1000) * 1000;
}

/** The first run of a cron workflow: its initiator and how long its first workflow task waits. */
export function cronFirstRun(
  cronSchedule: string | null | undefined,
  nowMs: number,
): { initiator: number; backoffMs: number } | undefined {
  if (!cronSchedule) return undefined;
  return {
    initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE,
    backoffMs: backoffMs(parseCronSchedule(cronSchedule), nowMs, nowMs) ?? 0,
  };
}

/** The next run of a cron chain: what createRun's `continued` takes besides the previous run and the initiator. */
export interface CronRun {
  runId: string;
  backoffMs: number;
  lastCompletionResult?: Payloads | null;
  continuedFailure?: Failure | null;
}

/** How a run closes: completed (with its result, maybe none), or failed or timed out. */
export type CronOutcome = { completed: true; result?: Payloads | null } | { completed: false; failure: Failure };

/**
 * The run that follows a closing run of a cron workflow, or undefined: no cron schedule, no next time, or the
 * workflow's execution timeout has passed. A completed run hands on its result; a failed or timed-out one its
 * failure and the result it was handed.
 */
export function nextCronRun(ctx: EngineContext, execution: Execution, outcome: CronOutcome): CronRun | undefined {
  const { cronSchedule } = execution.startRequest.unpack();
  const now = ctx.clock.now();
  if (!cronSchedule || (execution.executionDeadline !== undefined && execution.executionDeadline <= now))
    return undefined;
  const backoff = backoffMs(parseCronSchedule(cronSchedule), execution.executionTime, now);
  if (backoff === undefined) return undefined;
  const handedIn = eventAttributes<{ lastCompletionResult?: Payloads | null }>(
    execution.history.at(0)!,
  ).lastCompletionResult;
  return {
    runId: ctx.newRunId(),
    backoffMs: backoff,
    ...(outcome.completed
      ? { lastCompletionResult: outcome.result }
      : { lastCompletionResult: handedIn, continuedFailure: outcome.failure }),
  };
}
