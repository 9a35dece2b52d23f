/**
 * The devserver's schedule specs and cron schedules, without a server: matching times of calendar ranges, days
 * of the week, intervals with an offset, skip calendars, start and end times, jitter, time zones across DST
 * changes; cron strings as the real server converts them; the errors it gives; cron workflows' schedules.
 */
import test from 'ava';
import { cronFirstRun, cronScheduleError } from '../src/engine/cron.js';
import { api, durationToMs } from '../src/proto.js';
import { canonicalizeSpec as canonicalizeProto, CompiledSpec, SpecSearchLimitError } from '../src/schedules/spec.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const seconds = (s: number) => ({ seconds: s });

/** A spec as a request carries it, from its JSON-like form. */
const canonicalizeSpec = (spec: object) => canonicalizeProto(api.schedule.v1.ScheduleSpec.fromObject(spec));

/** The first `count` action times after `from` (ISO strings, whole seconds). */
function times(spec: object, from: string, count: number, seed = 'ns-schedule'): string[] {
  const compiled = new CompiledSpec(canonicalizeSpec(spec), seed);
  const found: string[] = [];
  for (let time = compiled.next(at(from)); time && found.length < count; time = compiled.next(time.actual))
    found.push(iso(time.actual));
  return found;
}

const refusal = (spec: object) => {
  try {
    canonicalizeSpec(spec);
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
};

test('calendar ranges, steps and lists match as the server reads them', (t) => {
  t.deepEqual(times({ calendar: [{ minute: '1-5/2,50', hour: '*' }] }, '2024-01-01T00:00:00Z', 5), [
    '2024-01-01T00:01:00Z',
    '2024-01-01T00:03:00Z',
    '2024-01-01T00:05:00Z',
    '2024-01-01T00:50:00Z',
    '2024-01-01T01:01:00Z',
  ]);
  // x/y runs from x to the maximum; the default second, minute and hour are 0
  t.deepEqual(times({ calendar: [{ hour: '20/2' }] }, '2024-01-01T00:00:00Z', 3), [
    '2024-01-01T20:00:00Z',
    '2024-01-01T22:00:00Z',
    '2024-01-02T20:00:00Z',
  ]);
  // the last day of February, leap year or not; years listed
  t.deepEqual(
    times({ calendar: [{ dayOfMonth: '29', month: 'feb', year: '2024-2030/4' }] }, '2023-01-01T00:00:00Z', 3),
    ['2024-02-29T00:00:00Z', '2028-02-29T00:00:00Z'],
  );
  t.deepEqual(
    times(
      {
        structuredCalendar: [
          {
            second: [{ start: 30 }],
            minute: [{ start: 0, end: 59, step: 15 }],
            hour: [{ start: 9 }],
            dayOfMonth: [{ start: 1, end: 31 }],
            month: [{ start: 1, end: 12 }],
            dayOfWeek: [{ start: 0, end: 6 }],
          },
        ],
      },
      '2024-01-01T09:20:00Z',
      3,
    ),
    ['2024-01-01T09:30:30Z', '2024-01-01T09:45:30Z', '2024-01-02T09:00:30Z'],
  );
});

test('days of the week: names, ranges, 7 as Sunday, and both day fields must match', (t) => {
  // 2024-01-05 is a Friday
  t.deepEqual(times({ calendar: [{ hour: '9', dayOfWeek: 'mon-fri' }] }, '2024-01-05T10:00:00Z', 2), [
    '2024-01-08T09:00:00Z',
    '2024-01-09T09:00:00Z',
  ]);
  t.deepEqual(times({ cronString: ['0 12 * * 7'] }, '2024-01-01T00:00:00Z', 2), [
    '2024-01-07T12:00:00Z',
    '2024-01-14T12:00:00Z',
  ]);
  t.deepEqual(times({ calendar: [{ dayOfWeek: '5-7' }] }, '2024-01-01T00:00:00Z', 3), [
    '2024-01-05T00:00:00Z',
    '2024-01-06T00:00:00Z',
    '2024-01-07T00:00:00Z',
  ]);
  // a Friday the 13th: day of month AND day of week (unlike classic cron)
  t.deepEqual(times({ calendar: [{ dayOfMonth: '13', dayOfWeek: 'friday' }] }, '2024-01-01T00:00:00Z', 2), [
    '2024-09-13T00:00:00Z',
    '2024-12-13T00:00:00Z',
  ]);
});

test('intervals count from the epoch, shifted by their offset', (t) => {
  t.deepEqual(times({ interval: [{ interval: seconds(3600), phase: seconds(900) }] }, '2024-01-01T00:20:00Z', 3), [
    '2024-01-01T01:15:00Z',
    '2024-01-01T02:15:00Z',
    '2024-01-01T03:15:00Z',
  ]);
  t.deepEqual(times({ cronString: ['@every 90m/30m'] }, '2024-01-01T00:00:00Z', 2), [
    '2024-01-01T00:30:00Z',
    '2024-01-01T02:00:00Z',
  ]);
  // several calendars and intervals: the earliest of them
  t.deepEqual(
    times(
      { interval: [{ interval: seconds(7200) }], calendar: [{ hour: '1', minute: '30' }] },
      '2024-01-01T00:00:00Z',
      3,
    ),
    ['2024-01-01T01:30:00Z', '2024-01-01T02:00:00Z', '2024-01-01T04:00:00Z'],
  );
});

test('skip calendars, start and end times bound the action times', (t) => {
  t.deepEqual(
    times(
      { cronString: ['@hourly'], excludeCalendar: [{ hour: '2-3', minute: '*', second: '*' }] },
      '2024-01-01T00:30:00Z',
      3,
    ),
    ['2024-01-01T01:00:00Z', '2024-01-01T04:00:00Z', '2024-01-01T05:00:00Z'],
  );
  t.deepEqual(
    times(
      {
        interval: [{ interval: seconds(60) }],
        startTime: seconds(at('2024-01-01T00:10:00Z') / 1000),
        endTime: seconds(at('2024-01-01T00:12:00Z') / 1000),
      },
      '2024-01-01T00:00:00Z',
      5,
    ),
    ['2024-01-01T00:10:00Z', '2024-01-01T00:11:00Z', '2024-01-01T00:12:00Z'],
  );
  const everything = { second: '*', minute: '*', hour: '*' };
  t.throws(
    () => times({ interval: [{ interval: seconds(1) }], excludeCalendar: [everything] }, '2024-01-01T00:00:00Z', 1),
    { instanceOf: SpecSearchLimitError },
  );
});

test('jitter delays each time by a share of it fixed by the time and the schedule, never past the next time', (t) => {
  const spec = { interval: [{ interval: seconds(60) }], jitter: seconds(30) };
  const jittered = times(spec, '2024-01-01T00:00:00Z', 20);
  jittered.forEach((time, i) => {
    const delay = at(time) - at('2024-01-01T00:01:00Z') - i * 60_000;
    t.true(delay >= 0 && delay < 30_000, `${time}: delayed ${delay} ms`);
  });
  t.deepEqual(times(spec, '2024-01-01T00:00:00Z', 20), jittered, 'the same schedule, the same times');
  t.notDeepEqual(times(spec, '2024-01-01T00:00:00Z', 20, 'ns-other'), jittered, 'another schedule, other times');
  // a jitter longer than the interval is cut to it: one time a minute still
  times({ interval: [{ interval: seconds(60) }], jitter: seconds(3600) }, '2024-01-01T00:00:00Z', 10).forEach(
    (time, i) => {
      const minute = at('2024-01-01T00:01:00Z') + i * 60_000;
      t.true(at(time) >= minute && at(time) < minute + 60_000, time);
    },
  );
});

test('time zones: wall-clock times, a time skipped by DST does not fire, a repeated one fires in both copies', (t) => {
  // New York springs forward on 2024-03-10: 02:30 does not exist that day
  t.deepEqual(times({ cronString: ['30 2 * * *'], timezoneName: 'America/New_York' }, '2024-03-08T00:00:00Z', 3), [
    '2024-03-08T07:30:00Z',
    '2024-03-09T07:30:00Z',
    '2024-03-11T06:30:00Z',
  ]);
  // and falls back on 2024-11-03: 01:30 happens twice, in EDT and in EST
  t.deepEqual(times({ cronString: ['30 1 * * *'], timezoneName: 'America/New_York' }, '2024-11-02T00:00:00Z', 4), [
    '2024-11-02T05:30:00Z',
    '2024-11-03T05:30:00Z',
    '2024-11-03T06:30:00Z',
    '2024-11-04T06:30:00Z',
  ]);
  // a TZ= prefix names the zone; a comment is kept
  const canonical = canonicalizeSpec({ cronString: ['CRON_TZ=Asia/Kolkata 0 9 * * * # morning'] });
  t.is(canonical.timezoneName, 'Asia/Kolkata');
  t.is(canonical.structuredCalendar?.[0]?.comment, 'morning');
  t.deepEqual(times({ cronString: ['TZ=Asia/Kolkata 0 9 * * *'] }, '2024-01-01T00:00:00Z', 1), [
    '2024-01-01T03:30:00Z',
  ]);
});

test('cron strings convert to calendars and intervals; 6 fields add the year, 7 the second', (t) => {
  const calendar = (cronString: string) => canonicalizeSpec({ cronString: [cronString] }).structuredCalendar![0]!;
  t.like(calendar('15 10 * * *'), {
    second: [{ start: 0, end: 0, step: 0 }],
    minute: [{ start: 15, end: 0, step: 0 }],
    hour: [{ start: 10, end: 0, step: 0 }],
    year: [],
  });
  t.deepEqual(calendar('@weekly').dayOfWeek, [{ start: 0, end: 0, step: 0 }]);
  t.deepEqual(calendar('0 0 1 1 * 2030').year, [{ start: 2030, end: 0, step: 0 }]);
  t.deepEqual(calendar('30 0 0 1 1 * 2030').second, [{ start: 30, end: 0, step: 0 }]);
  t.deepEqual(calendar('0 0 * jan-mar/2 *').month, [{ start: 1, end: 3, step: 2 }]);
  t.is(durationToMs(canonicalizeSpec({ cronString: ['@every 1d'] }).interval![0]!.interval), 86_400_000);
});

test('a spec the server refuses is refused with its message', (t) => {
  t.is(refusal({ cronString: ['1 2 3'] }), 'CronString does not have 5-7 fields');
  t.is(refusal({ cronString: ['61 * * * *'] }), 'Minute is not in range [0-59]');
  t.is(refusal({ calendar: [{ hour: '3-1' }] }), 'Hour End is before Start or not in range [0-23]');
  t.is(refusal({ calendar: [{ minute: '1/2/3' }] }), 'Minute has too many slashes');
  t.is(
    refusal({ calendar: [{ dayOfWeek: 'funday', month: '13' }] }),
    'DayOfWeek is not in range [0-7], Month is not in range [1-12]',
  );
  t.is(
    refusal({ structuredCalendar: [{ hour: [{ start: 5, end: 1 }], dayOfMonth: [{ start: 0 }] }] }),
    'invalid calendar spec: Hour End is before Start or not in range [0-23], DayOfMonth Start is not in range [1-31]',
  );
  t.is(refusal({ interval: [{ interval: seconds(0) }] }), 'interval is too small');
  t.is(refusal({ interval: [{ interval: seconds(60), phase: seconds(60) }] }), 'phase cannot be greater than Interval');
  t.is(refusal({ timezoneName: 'Mars/Olympus_Mons' }), 'unknown time zone Mars/Olympus_Mons');
  t.is(refusal({ cronString: ['TZ=UTC 0 * * * *', '0 * * * *'] }), 'conflicting timezone names');
  t.is(
    refusal({ cronString: ['TZ=Europe/Paris 0 * * * *'], timezoneName: 'Europe/Berlin' }),
    'conflicting timezone names',
  );
  t.is(refusal({ cronString: ['TZ=Europe/Paris'] }), 'CronString has time zone but missing fields');
  t.is(refusal({ cronString: ['@every 5x'] }), 'time: invalid duration "5x"');
});

test("cron workflows' schedules: standard cron, either day field matching when both are given, the backoff rounded up", (t) => {
  const backoff = (cronSchedule: string, now: string) => cronFirstRun(cronSchedule, at(now))!.backoffMs;
  t.is(backoff('0 * * * *', '2024-01-01T10:20:00.250Z'), 40 * 60_000, 'to the next hour, rounded up to the second');
  t.is(backoff('@every 2s', '2024-01-01T10:20:00.250Z'), 2000);
  // the 13th or a Monday (classic cron): from Tuesday the 10th of September 2024, Friday the 13th comes first
  t.is(backoff('0 0 13 * 1', '2024-09-10T00:00:00Z'), 3 * 86_400_000);
  t.is(backoff('0 0 * * mon', '2024-09-10T00:00:00Z'), 6 * 86_400_000);
  t.is(backoff('CRON_TZ=America/New_York 0 9 * * *', '2024-07-01T12:00:00Z'), HOURS(1));
  t.is(backoff('@daily', '2024-07-01T12:00:00Z'), HOURS(12));
  t.is(cronScheduleError('0 0 * * 7', 0), 'invalid CronSchedule.');
  t.is(cronScheduleError('0 0 30 2 *', 0), 'invalid CronSchedule, no time can be found to satisfy the schedule');
  t.is(cronScheduleError('*/15 9-17 * jan-jun mon-fri', 0), undefined);
});

const HOURS = (n: number) => n * 3_600_000;
