/**
 * A schedule's cron strings, converted as the real server converts them: an optional `TZ=` / `CRON_TZ=` zone,
 * a `#` comment, `@every <duration>[/<offset>]` (an interval), the `@yearly`…`@hourly` shorthands, or 5, 6 or 7
 * fields (minute hour day-of-month month day-of-week [year], or second first with 7) read as a CalendarSpec.
 * Also Go's duration syntax ("1h30m", "2.5s"; the server's own parser adds "d" for 24 h days).
 */
import type proto from '@temporalio/proto';
import { api, msToDuration } from '../proto.js';
import { parseCalendar } from './calendar.js';
import type { StructuredCalendar } from './calendar.js';

export type IntervalSpec = proto.temporal.api.schedule.v1.IIntervalSpec;

export interface ConvertedCronString {
  calendar?: StructuredCalendar;
  interval?: IntervalSpec;
  /** The zone the string names, or "" when it names none. */
  timezone: string;
}

/** The shorthands cron strings may use, as standard cron fields (the real server's and standard cron's alike). */
export const CRON_SHORTHANDS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The field names of a cron string with 5, 6 or 7 fields, in order. */
const FIELD_ORDERS: Record<number, (keyof proto.temporal.api.schedule.v1.ICalendarSpec)[]> = {
  5: ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'],
  6: ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'],
  7: ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'],
};

export function convertCronString(cronString: string): ConvertedCronString {
  let text = cronString.trim();
  let timezone = '';
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    if (space < 0) throw new Error('CronString has time zone but missing fields');
    timezone = text.slice(text.indexOf('=') + 1, space);
    text = text.slice(space + 1);
  }
  const hash = text.indexOf('#');
  const comment = hash < 0 ? '' : text.slice(hash + 1).trim();
  text = (hash < 0 ? text : text.slice(0, hash)).trim();

  if (text.startsWith('@every')) return { interval: parseEvery(text), timezone: '' };
  const fields = (CRON_SHORTHANDS[text] ?? text).split(/\s+/).filter(Boolean);
  const order = FIELD_ORDERS[fields.length];
  if (!order) throw new Error('CronString does not have 5-7 fields');
  const calendar: proto.temporal.api.schedule.v1.ICalendarSpec = { comment };
  order.forEach((field, i) => (calendar[field] = fields[i]));
  return { calendar: parseCalendar(calendar), timezone };
}

/** `@every 14h` or `@every 14h/3h` (an offset). */
function parseEvery(text: string): IntervalSpec {
  const space = text.indexOf(' ');
  if (space < 0) throw new Error('CronString does not have interval after @every');
  const [every = '', offset] = text.slice(space + 1).split('/');
  const interval = msToDuration(parseGoDuration(every, { days: true }));
  const phase = offset ? msToDuration(parseGoDuration(offset, { days: true })) : undefined;
  return api.schedule.v1.IntervalSpec.fromObject(phase ? { interval, phase } : { interval });
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Go's time.ParseDuration, in milliseconds: an optional sign, then numbers (with fractions) each with a unit
 * (ns, us, ms, s, m, h; `d` too when `days`), or "0". Throws `time: invalid duration "…"`.
 */
export function parseGoDuration(text: string, options: { days: boolean }): number {
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(text)}`);
  const match = /^([+-]?)(.*)$/.exec(text)!;
  const sign = match[1] === '-' ? -1 : 1;
  const body = match[2]!;
  if (body === '0') return 0;
  if (body === '') throw invalid();
  let total = 0;
  const term = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/y;
  let at = 0;
  while (at < body.length) {
    term.lastIndex = at;
    const part = term.exec(body);
    if (!part || (part[2] === 'd' && !options.days)) throw invalid();
    total += Number(part[1]) * UNIT_MS[part[2]!]!;
    at = term.lastIndex;
  }
  return sign * total;
}
