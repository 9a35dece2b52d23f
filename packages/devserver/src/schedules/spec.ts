/**
 * A schedule's spec as the real server reads it: canonicalized (calendar strings and cron strings become
 * structured calendars, intervals and a time zone, everything checked), then compiled to answer "the next
 * action time after t": the earliest time any calendar or interval matches, not excluded by a skip calendar,
 * within startTime..endTime (and before 2101), and delayed by jitter — a deterministic share of `jitter` (taken
 * from the time and the schedule), never past the following action time. Times here are epoch milliseconds;
 * matching is by whole seconds, as on the server.
 */
import { createHash } from 'node:crypto';
import type proto from '@temporalio/proto';
import { durationToMs, timestampToMs } from '../proto.js';
import { CompiledCalendar, MAX_CALENDAR_YEAR, parseCalendar, validateStructuredCalendar } from './calendar.js';
import type { StructuredCalendar } from './calendar.js';
import { convertCronString } from './cron-string.js';
import type { IntervalSpec } from './cron-string.js';
import { loadZone } from './zone.js';

export type ScheduleSpec = proto.temporal.api.schedule.v1.IScheduleSpec;

/** One action time: `nominal` as the spec says, `actual` with jitter added. */
export interface ActionTime {
  nominal: number;
  actual: number;
}

/**
 * How many candidate times one search may look at before it gives up (a skip calendar that excludes nearly
 * everything). The real server can be configured with such a bound; past it the schedule takes no more actions.
 */
const SEARCH_LIMIT = 1_000_000;

export class SpecSearchLimitError extends Error {
  constructor() {
    super('the schedule calendar specification has too many exclusions. Please modify the specification.');
  }
}

const END_OF_CALENDAR_MS = Date.UTC(MAX_CALENDAR_YEAR + 1, 0, 1);

/**
 * Calendars and cron strings to structured calendars, intervals and a zone, each checked (a copy: the request
 * is not changed). Throws an Error whose message the RPC layer prefixes with "Invalid schedule spec: ".
 */
export function canonicalizeSpec(spec: ScheduleSpec): ScheduleSpec {
  const structuredCalendar: StructuredCalendar[] = [
    ...(spec.structuredCalendar ?? []),
    ...(spec.calendar ?? []).map(parseCalendar),
  ];
  const excludeStructuredCalendar: StructuredCalendar[] = [
    ...(spec.excludeStructuredCalendar ?? []),
    ...(spec.excludeCalendar ?? []).map(parseCalendar),
  ];
  const interval: IntervalSpec[] = [...(spec.interval ?? [])];
  let timezoneName = spec.timezoneName ?? '';
  let cronZone: string | undefined;
  for (const cronString of spec.cronString ?? []) {
    const converted = convertCronString(cronString);
    // every cron string must name the same zone, or none
    if (cronZone !== undefined && converted.timezone !== cronZone) throw new Error('conflicting timezone names');
    cronZone = converted.timezone;
    if (converted.calendar) structuredCalendar.push(converted.calendar);
    if (converted.interval) interval.push(converted.interval);
  }
  if (cronZone) {
    if ((timezoneName && timezoneName !== cronZone) || spec.timezoneData?.length)
      throw new Error('conflicting timezone names');
    timezoneName = cronZone;
  }
  structuredCalendar.forEach(validateStructuredCalendar);
  interval.forEach(validateInterval);
  if (spec.timezoneData?.length) throw new Error('timezoneData is not supported by this server; use timezoneName');
  loadZone(timezoneName);
  return {
    structuredCalendar,
    interval,
    excludeStructuredCalendar,
    startTime: spec.startTime,
    endTime: spec.endTime,
    jitter: spec.jitter,
    timezoneName,
  };
}

function validateInterval(interval: IntervalSpec): void {
  const every = durationToMs(interval.interval);
  const phase = durationToMs(interval.phase);
  if (every < 1000) throw new Error('interval is too small');
  if (phase < 0) throw new Error('phase is negative');
  if (phase >= every) throw new Error('phase cannot be greater than Interval');
}

/** A canonical spec compiled once; `seed` (namespace id and schedule id) makes its jitter its own. */
export class CompiledSpec {
  private readonly calendars: CompiledCalendar[];
  private readonly excludes: CompiledCalendar[];
  private readonly intervals: { everySeconds: number; phaseSeconds: number }[];
  private readonly startMs: number | undefined;
  private readonly endMs: number | undefined;
  private readonly jitterMs: number;

  constructor(
    spec: ScheduleSpec,
    private readonly seed: string,
  ) {
    const zone = loadZone(spec.timezoneName ?? '');
    this.calendars = (spec.structuredCalendar ?? []).map((calendar) => new CompiledCalendar(calendar, zone));
    this.excludes = (spec.excludeStructuredCalendar ?? []).map((calendar) => new CompiledCalendar(calendar, zone));
    this.intervals = (spec.interval ?? []).map((interval) => ({
      everySeconds: Math.max(Math.floor(durationToMs(interval.interval) / 1000), 1),
      phaseSeconds: Math.max(Math.floor(durationToMs(interval.phase) / 1000), 0),
    }));
    this.startMs = spec.startTime ? timestampToMs(spec.startTime) : undefined;
    this.endMs = spec.endTime ? timestampToMs(spec.endTime) : undefined;
    this.jitterMs = Math.max(0, durationToMs(spec.jitter));
  }

  /**
   * The first action time after `afterMs`, or undefined when there is none. Throws SpecSearchLimitError when skip
   * calendars exclude candidate after candidate past the search limit.
   */
  next(afterMs: number): ActionTime | undefined {
    // before the start time, search from just before it, so that its first second can match
    let after = Math.max(afterMs, this.startMs === undefined ? afterMs : this.startMs - 1000);
    for (let searched = 0; ; searched++) {
      if (searched >= SEARCH_LIMIT) throw new SpecSearchLimitError();
      const nominal = this.rawNext(after);
      if (nominal === undefined || (this.endMs !== undefined && nominal > this.endMs) || nominal >= END_OF_CALENDAR_MS)
        return undefined;
      if (!this.excluded(nominal)) return { nominal, actual: nominal + this.jitterFor(nominal) };
      after = nominal;
    }
  }

  /** Action times in (startMs, endMs], at most `limit` of them. */
  timesBetween(startMs: number, endMs: number, limit: number): number[] {
    const times: number[] = [];
    for (
      let time = this.next(startMs);
      time && time.actual <= endMs && times.length < limit;
      time = this.next(time.actual)
    )
      times.push(time.actual);
    return times;
  }

  /** The earliest second any calendar or interval matches after `afterMs` (whole seconds, as on the server). */
  private rawNext(afterMs: number): number | undefined {
    const afterSeconds = Math.floor(afterMs / 1000);
    let earliest = Infinity;
    for (const calendar of this.calendars) earliest = Math.min(earliest, calendar.next(afterSeconds) ?? Infinity);
    for (const { everySeconds, phaseSeconds } of this.intervals)
      earliest = Math.min(
        earliest,
        (Math.trunc((afterSeconds - phaseSeconds) / everySeconds) + 1) * everySeconds + phaseSeconds,
      );
    return earliest === Infinity ? undefined : earliest * 1000;
  }

  private excluded(ms: number): boolean {
    return this.excludes.some((calendar) => calendar.matches(ms / 1000));
  }

  /** A share of the jitter fixed by the time and the seed; never reaching the following nominal time. */
  private jitterFor(nominal: number): number {
    if (!this.jitterMs) return 0;
    const following = this.rawNext(nominal);
    const maxJitter = Math.min(this.jitterMs, following === undefined ? Infinity : following - nominal);
    const fingerprint = createHash('sha256').update(`${nominal}:${this.seed}`).digest().readUInt32BE(0);
    return Math.floor((fingerprint / 2 ** 32) * maxJitter);
  }
}
