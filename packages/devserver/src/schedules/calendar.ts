/**
 * Calendar specs as the real server reads them: the string form (`CalendarSpec`: "1-5/2,8", month and weekday
 * names) parsed into ranges (`StructuredCalendarSpec`), the ranges' rules, and a compiled calendar that tells
 * whether a time matches and finds the next matching second in its time zone, stepping over DST gaps and firing
 * in both copies of a repeated hour, as the server's calendar does. Day of month and day of week must both
 * match. Years run 2000–2100; an empty year list means every year.
 */
import type proto from '@temporalio/proto';
import { daysInMonth, fromCivil, toCivil, weekdayOf } from './zone.js';
import type { Civil, Zone } from './zone.js';

export type CalendarText = proto.temporal.api.schedule.v1.ICalendarSpec;
export type StructuredCalendar = proto.temporal.api.schedule.v1.IStructuredCalendarSpec;
export type Range = proto.temporal.api.schedule.v1.IRange;

const MIN_CALENDAR_YEAR = 2000;
export const MAX_CALENDAR_YEAR = 2100;
const MAX_COMMENT_LENGTH = 200;

type ValueNames = 'month' | 'weekday' | 'none';

interface FieldRule {
  field: string;
  min: number;
  max: number;
  /** What an empty string means. */
  byDefault: string;
  names: ValueNames;
}

/** The string fields, with their bounds as parsed (a weekday may be 7, which is Sunday). */
const TEXT_FIELDS = {
  second: { field: 'Second', min: 0, max: 59, byDefault: '0', names: 'none' },
  minute: { field: 'Minute', min: 0, max: 59, byDefault: '0', names: 'none' },
  hour: { field: 'Hour', min: 0, max: 23, byDefault: '0', names: 'none' },
  dayOfWeek: { field: 'DayOfWeek', min: 0, max: 7, byDefault: '*', names: 'weekday' },
  dayOfMonth: { field: 'DayOfMonth', min: 1, max: 31, byDefault: '*', names: 'none' },
  month: { field: 'Month', min: 1, max: 12, byDefault: '*', names: 'month' },
  year: { field: 'Year', min: MIN_CALENDAR_YEAR, max: MAX_CALENDAR_YEAR, byDefault: '*', names: 'none' },
} satisfies Record<string, FieldRule>;

/** The structured fields' bounds, as validated. */
const STRUCTURED_BOUNDS: [keyof typeof TEXT_FIELDS, string, number, number][] = [
  ['second', 'Second', 0, 59],
  ['minute', 'Minute', 0, 59],
  ['hour', 'Hour', 0, 23],
  ['dayOfMonth', 'DayOfMonth', 1, 31],
  ['month', 'Month', 1, 12],
  ['year', 'Year', MIN_CALENDAR_YEAR, MAX_CALENDAR_YEAR],
  ['dayOfWeek', 'DayOfWeek', 0, 6],
];

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function parseInteger(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
}

/** A number, or a month name (3+ letters of it) or weekday name (2+ letters), within [min, max]. */
function parseValue(text: string, min: number, max: number, names: ValueNames): number {
  const list = names === 'month' ? MONTH_NAMES : names === 'weekday' ? WEEKDAY_NAMES : undefined;
  const shortest = names === 'month' ? 3 : 2;
  let value: number | undefined;
  if (list && text.length >= shortest) {
    const index = list.findIndex((name) => name.startsWith(text.toLowerCase()));
    if (index >= 0) value = names === 'month' ? index + 1 : index;
  }
  value ??= parseInteger(text);
  if (value < min || value > max) throw new Error('out of range');
  return value;
}

/**
 * One field of a CalendarSpec: `*`, `x`, `x-z`, `x-z/y`, `x/y` (x to the maximum), comma-separated. Weekday 7 is
 * Sunday (0), which may take a range of its own. A `*` year is no range at all.
 */
function parseField(text: string, rule: FieldRule): Range[] {
  const { field, min, max, names } = rule;
  const source = text.trim() || rule.byDefault;
  if (source === '*' && field === 'Year') return [];
  const ranges: Range[] = [];
  for (const part of source.split(',')) {
    const slashes = part.split('/').length - 1;
    if (slashes > 1) throw new Error(`${field} has too many slashes`);
    const [body = '', stepText] = part.split('/');
    let step = 1;
    if (stepText !== undefined) {
      if (stepText === '') throw new Error(`${field} missing step value`);
      step = parseInteger(stepText);
      if (step < 1) throw new Error(`${field} has invalid Step`);
    }
    let start = min;
    let end = max;
    if (body !== '*') {
      const dashes = body.split('-').length - 1;
      if (dashes > 1) throw new Error(`${field} has too many dashes`);
      if (dashes === 1) {
        const [low = '', high = ''] = body.split('-');
        start = rangeBound(() => parseValue(low, min, max, names), `${field} Start is not in range [${min}-${max}]`);
        end = rangeBound(
          () => parseValue(high, start, max, names),
          `${field} End is before Start or not in range [${min}-${max}]`,
        );
      } else {
        start = rangeBound(() => parseValue(body, min, max, names), `${field} is not in range [${min}-${max}]`);
        // a single value with a step runs to the maximum
        if (stepText === undefined) end = start;
      }
    }
    if (names === 'weekday' && end === 7) {
      // 7 is Sunday: keep one range where possible, else add Sunday as a range of its own
      if ((7 - start) % step === 0 && (step > 1 || start > 1)) {
        ranges.push({ start: 0, end: 0, step: 0 });
        if (start === 7) continue;
      }
      end = 6;
    }
    ranges.push({ start, end: start === end ? 0 : end, step: step === 1 ? 0 : step });
  }
  return ranges;
}

function rangeBound(parse: () => number, message: string): number {
  try {
    return parse();
  } catch {
    throw new Error(message);
  }
}

/** CalendarSpec (strings) to StructuredCalendarSpec; every field's error, joined. */
export function parseCalendar(calendar: CalendarText): StructuredCalendar {
  const errors: string[] = [];
  const structured: StructuredCalendar = { comment: calendar.comment ?? '' };
  for (const [key, rule] of Object.entries(TEXT_FIELDS) as [keyof typeof TEXT_FIELDS, FieldRule][]) {
    try {
      structured[key] = parseField(calendar[key] ?? '', rule);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  if (errors.length) throw new Error(errors.join(', '));
  return structured;
}

/** The rules a structured calendar's ranges follow; throws "invalid calendar spec: …" naming each field broken. */
export function validateStructuredCalendar(calendar: StructuredCalendar): void {
  const errors: string[] = [];
  for (const [key, field, min, max] of STRUCTURED_BOUNDS) {
    for (const range of calendar[key] ?? []) {
      const start = range.start ?? 0;
      const end = range.end ?? 0;
      if (start < min || start > max) errors.push(`${field} Start is not in range [${min}-${max}]`);
      if (end !== 0 && (end < start || end > max))
        errors.push(`${field} End is before Start or not in range [${min}-${max}]`);
      if ((range.step ?? 0) < 0) errors.push(`${field} has invalid Step`);
    }
  }
  if ((calendar.comment ?? '').length > MAX_COMMENT_LENGTH) errors.push('comment is too long');
  if (errors.length) throw new Error(`invalid calendar spec: ${errors.join(', ')}`);
}

/** As describe shows ranges: an end before the start is the start, a step of 0 is 1. */
export function cleanRanges(calendar: StructuredCalendar): void {
  for (const [key] of STRUCTURED_BOUNDS)
    for (const range of calendar[key] ?? []) {
      if ((range.end ?? 0) < (range.start ?? 0)) range.end = range.start;
      if (!range.step) range.step = 1;
    }
}

type Matcher = (value: number) => boolean;

function valuesOf(ranges: Range[]): number[] {
  const values: number[] = [];
  for (const range of ranges) {
    const start = range.start ?? 0;
    const end = Math.max(range.end ?? 0, start);
    const step = range.step || 1;
    for (let value = start; value <= end; value += step) values.push(value);
  }
  return values;
}

function matcherOf(ranges: Range[] | null | undefined, everyWhenEmpty: boolean): { matches: Matcher; all: boolean } {
  if (!ranges?.length && everyWhenEmpty) return { matches: () => true, all: true };
  const values = new Set(valuesOf(ranges ?? []));
  return { matches: (value) => values.has(value), all: [0, 1, 2, 3, 4, 5, 6].every((day) => values.has(day)) };
}

const HOUR = 3600;

/** A calendar compiled for matching in its zone. Times are Unix seconds. */
export class CompiledCalendar {
  private readonly year: Matcher;
  private readonly month: Matcher;
  private readonly dayOfMonth: Matcher;
  private readonly dayOfWeek: Matcher;
  private readonly everyWeekday: boolean;
  private readonly hour: Matcher;
  private readonly minute: Matcher;
  private readonly second: Matcher;

  constructor(
    calendar: StructuredCalendar,
    private readonly zone: Zone,
  ) {
    this.year = matcherOf(calendar.year, true).matches;
    this.month = matcherOf(calendar.month, false).matches;
    this.dayOfMonth = matcherOf(calendar.dayOfMonth, false).matches;
    const weekdays = matcherOf(calendar.dayOfWeek, false);
    this.dayOfWeek = weekdays.matches;
    this.everyWeekday = weekdays.all;
    this.hour = matcherOf(calendar.hour, false).matches;
    this.minute = matcherOf(calendar.minute, false).matches;
    this.second = matcherOf(calendar.second, false).matches;
  }

  matches(unixSeconds: number): boolean {
    const c = toCivil(unixSeconds, this.zone);
    return (
      this.year(c.year) &&
      this.month(c.month) &&
      this.dayOfMonth(c.day) &&
      this.dayOfWeek(weekdayOf(c)) &&
      this.hour(c.hour) &&
      this.minute(c.minute) &&
      this.second(c.second)
    );
  }

  /** The first matching second after `afterSeconds`, or undefined when none comes before the end of 2100. */
  next(afterSeconds: number): number | undefined {
    const zone = this.zone;
    const at = (c: Civil) => fromCivil(c, zone);
    const c = toCivil(afterSeconds, zone);
    // in the second copy of an hour repeated by a DST change, times are an hour later than their wall clock says
    let repeated = toCivil(afterSeconds - HOUR, zone).hour === c.hour;
    c.second++;
    for (;;) {
      if (c.second >= 60) {
        c.minute++;
        c.second = 0;
      }
      if (c.minute >= 60) {
        const hourStart = at({ ...c, minute: 0, second: 0 });
        c.hour++;
        c.minute = 0;
        const nextHourStart = at({ ...c, second: 0 });
        // the next wall-clock hour is two hours on: the hour just left repeats, walk it again an hour later
        if (!repeated && nextHourStart - hourStart > HOUR) {
          c.hour--;
          repeated = true;
        } else repeated = false;
      }
      if (c.hour >= 24) {
        c.day++;
        c.hour = 0;
      }
      if (c.day > daysInMonth(c.year, c.month)) {
        c.month++;
        c.day = 1;
      }
      if (c.month > 12) {
        c.year++;
        c.month = 1;
      }
      if (c.year > MAX_CALENDAR_YEAR) return undefined;

      if (!this.year(c.year)) {
        Object.assign(c, { year: c.year + 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
        repeated = false;
        continue;
      }
      // moving the month, day or hour leaves any repeated hour behind
      const monthMatches = () => this.month(c.month);
      if (!monthMatches()) repeated = false;
      if (!this.advance(c, 'month', monthMatches, 12, { day: 1, hour: 0, minute: 0, second: 0 })) continue;
      const dayMatches = () =>
        this.dayOfMonth(c.day) && (this.everyWeekday || this.dayOfWeek(weekdayOf(toCivil(at(c), zone))));
      if (!dayMatches()) repeated = false;
      if (!this.advance(c, 'day', dayMatches, daysInMonth(c.year, c.month), { hour: 0, minute: 0, second: 0 }))
        continue;
      const hourMatches = () => this.hour(c.hour);
      if (!hourMatches()) repeated = false;
      if (!this.advance(c, 'hour', hourMatches, 23, { minute: 0, second: 0 })) continue;
      if (!this.advance(c, 'minute', () => this.minute(c.minute), 59, { second: 0 })) continue;
      if (!this.advance(c, 'second', () => this.second(c.second), 59, {})) continue;
      const found = at(c);
      // a wall time skipped by a DST change reads as another hour: not a match, go on from the next hour
      if (toCivil(found, zone).hour !== c.hour) {
        Object.assign(c, { hour: c.hour + 1, minute: 0, second: 0 });
        continue;
      }
      return repeated ? found + HOUR : found;
    }
  }

  /**
   * Moves `c[field]` forward (resetting the smaller fields) until `matches`; false when it ran past `last`, so
   * the caller carries into the larger field from the top.
   */
  private advance(
    c: Civil,
    field: 'month' | 'day' | 'hour' | 'minute' | 'second',
    matches: () => boolean,
    last: number,
    reset: Partial<Civil>,
  ): boolean {
    while (!matches()) {
      c[field]++;
      Object.assign(c, reset);
      if (c[field] > last) return false;
    }
    return true;
  }
}
