/**
 * Schedules on the devserver, through the real SDK's schedule client and a worker, with time skipping: create,
 * describe, list, update, pause and unpause, trigger, backfill, delete; interval and calendar specs; each overlap
 * policy; limited actions, pause on failure, the catchup window. Every workflow a schedule started is replayed.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { fileURLToPath } from 'node:url';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { ScheduleHandle, ScheduleOptions } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { msToTs, tsToMs } from '@temporalio/common/lib/time.js';
import { assertReplays, startSuite, uniqueId } from './support.js';
import type { Suite } from './support.js';

const HOUR = 3_600_000;
const scheduleWorkflows = fileURLToPath(new URL('./fixtures/schedule-workflows.ts', import.meta.url));
const TEAM = defineSearchAttributeKey('ScheduleTeam', SearchAttributeType.KEYWORD);

let suite: Suite;
test.before(async () => {
  suite = await startSuite('devserver-schedules', scheduleWorkflows);
  await suite.temporal.addSearchAttributes({ ScheduleTeam: 'Keyword' });
});
test.after.always(async () => {
  await suite?.stop();
});

/** Time only jumps while the whole server is idle: these tests run one at a time, on the devserver's clock. */
const serial = process.env.TEMPORAL_ADDRESS ? test.serial.skip : test.serial;

const handles: ScheduleHandle[] = [];
test.afterEach.always(async () => {
  // a schedule left behind would keep taking actions while later tests move time
  for (const handle of handles.splice(0)) await handle.delete().catch(() => {});
});

async function createSchedule(
  options: Omit<ScheduleOptions, 'scheduleId' | 'action'> & { action?: Partial<ScheduleOptions['action']> },
): Promise<ScheduleHandle> {
  const scheduleId = uniqueId('schedule');
  const handle = await suite.client.schedule.create({
    ...options,
    scheduleId,
    action: {
      type: 'startWorkflow',
      workflowType: 'echoWorkflow',
      args: ['hello'],
      taskQueue: suite.taskQueue,
      workflowId: `${scheduleId}-wf`,
      ...options.action,
    } as ScheduleOptions['action'],
  });
  handles.push(handle);
  return handle;
}

const now = async () => (await suite.temporal.env.currentTimeMs()) as number;
/** Moves server time on; workers run what falls due on the way. */
const skip = (ms: number) => suite.temporal.env.sleep(ms);

/** The workflows a schedule started, by id (visibility: TemporalScheduledById). */
async function startedBy(scheduleId: string): Promise<{ workflowId: string; status: string; scheduledAt?: Date }[]> {
  const found = [];
  for await (const execution of suite.client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` }))
    found.push({
      workflowId: execution.workflowId,
      status: execution.status.name,
      scheduledAt: execution.searchAttributes.TemporalScheduledStartTime?.[0] as Date | undefined,
    });
  return found.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
}

/** Every workflow a schedule started is closed and replays. */
async function replayStarted(t: ExecutionContext, scheduleIds: string[]): Promise<void> {
  const ids = [];
  for (const scheduleId of scheduleIds) for (const { workflowId } of await startedBy(scheduleId)) ids.push(workflowId);
  await assertReplays(t, suite, ids);
}

serial(
  'an interval schedule starts its workflow at each action time, with the time in its id and search attributes',
  async (t) => {
    const start = await now();
    const handle = await createSchedule({ spec: { intervals: [{ every: '1h' }] }, action: { memo: { owner: 'ops' } } });
    const described = await handle.describe();
    const firstTime = Math.ceil(start / HOUR) * HOUR;
    t.deepEqual(
      described.info.nextActionTimes.slice(0, 3).map((d) => d.getTime()),
      [firstTime, firstTime + HOUR, firstTime + 2 * HOUR],
    );
    t.is(described.policies.overlap, ScheduleOverlapPolicy.SKIP);
    t.is(described.policies.catchupWindow, 365 * 24 * HOUR);

    await skip(firstTime + 2 * HOUR + 60_000 - start);
    const started = await startedBy(handle.scheduleId);
    t.deepEqual(
      started.map((w) => w.workflowId),
      [0, 1, 2].map(
        (i) => `${handle.scheduleId}-wf-${new Date(firstTime + i * HOUR).toISOString().replace('.000Z', 'Z')}`,
      ),
    );
    t.deepEqual(
      started.map((w) => w.scheduledAt?.getTime()),
      [0, 1, 2].map((i) => firstTime + i * HOUR),
    );
    const after = await handle.describe();
    t.is(after.info.numActionsTaken, 3);
    t.deepEqual(
      after.info.recentActions.map((a) => a.scheduledAt.getTime()),
      [0, 1, 2].map((i) => firstTime + i * HOUR),
    );
    // waiting for a result lets time run: the schedule goes first
    await handle.delete();
    const first = suite.client.workflow.getHandle(started[0]!.workflowId);
    t.is(await first.result(), 'hello');
    t.deepEqual((await first.describe()).memo, { owner: 'ops' });
    await replayStarted(t, [handle.scheduleId]);
  },
);

serial('a calendar schedule is described, listed by its search attributes, updated and deleted', async (t) => {
  const handle = await createSchedule({
    spec: {
      calendars: [{ hour: 9, minute: 30, dayOfWeek: ['MONDAY', 'FRIDAY'], comment: 'mornings' }],
      cronExpressions: ['0 12 * * *'],
      skip: [{ month: 'DECEMBER', dayOfMonth: 25, hour: '*', minute: '*', second: '*' }],
      timezone: 'Europe/Berlin',
      jitter: '10m',
    },
    memo: { purpose: 'reports' },
    typedSearchAttributes: [{ key: TEAM, value: 'billing' }],
    state: { note: 'created by a test' },
  });
  const described = await handle.describe();
  t.is(described.spec.timezone, 'Europe/Berlin');
  t.is(described.spec.calendars?.length, 2);
  t.deepEqual(
    described.spec.calendars?.[1]?.hour,
    [{ start: 12, end: 12, step: 1 }],
    'the cron string is a calendar now',
  );
  t.deepEqual(described.spec.calendars?.[0]?.dayOfWeek, [
    { start: 'MONDAY', end: 'MONDAY', step: 1 },
    { start: 'FRIDAY', end: 'FRIDAY', step: 1 },
  ]);
  t.deepEqual(described.memo, { purpose: 'reports' });
  t.is(described.typedSearchAttributes.get(TEAM), 'billing');
  t.is(described.state.note, 'created by a test');
  t.false(described.state.paused);
  t.true(described.info.createdAt.getTime() <= (await now()));
  t.is(described.info.nextActionTimes.length, 10);
  for (const time of described.info.nextActionTimes) {
    const wall = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
    }).formatToParts(time);
    const part = (type: string) => wall.find((p) => p.type === type)!.value;
    // jitter delays a time by up to 10 minutes
    const atNoon = part('hour') === '12' && Number(part('minute')) < 10;
    const atMorning =
      part('hour') === '09' &&
      Number(part('minute')) >= 30 &&
      Number(part('minute')) < 40 &&
      ['Mon', 'Fri'].includes(part('weekday'));
    t.true(atNoon || atMorning, `${time.toISOString()} is no action time of the spec`);
  }

  const listed = async (query?: string) => {
    const ids = [];
    for await (const schedule of suite.client.schedule.list(query ? { query } : {})) ids.push(schedule.scheduleId);
    return ids;
  };
  t.true((await listed()).includes(handle.scheduleId));
  t.deepEqual(await listed(`ScheduleTeam = 'billing' AND ScheduleId = '${handle.scheduleId}'`), [handle.scheduleId]);
  t.deepEqual(await listed(`ScheduleId = '${handle.scheduleId}' AND TemporalSchedulePaused = true`), []);
  const error = await t.throwsAsync(listed(`WorkflowId = 'x'`));
  t.regex(String(error?.cause ?? error), /invalid query filter for schedules: cannot filter on "WorkflowId"/);
  for await (const schedule of suite.client.schedule.list({ query: `ScheduleId = '${handle.scheduleId}'` })) {
    t.is(schedule.action?.workflowType, 'echoWorkflow');
    t.deepEqual(schedule.memo, { purpose: 'reports' });
    t.is(schedule.info.nextActionTimes.length, 5);
  }

  const { startTime } = await suite.client.workflowService.listScheduleMatchingTimes({
    namespace: suite.temporal.namespace,
    scheduleId: handle.scheduleId,
    startTime: msToTs(Date.parse('2031-12-24T00:00:00Z')),
    endTime: msToTs(Date.parse('2031-12-27T00:00:00Z')),
  });
  // noon on the 24th (a Wednesday), not on Christmas Day (skipped), the morning and noon of the 26th (a Friday); CET is UTC+1
  const expected = ['2031-12-24T11:00:00Z', '2031-12-26T08:30:00Z', '2031-12-26T11:00:00Z'].map(Date.parse);
  const matched = (startTime ?? []).map((ts) => tsToMs(ts));
  t.is(matched.length, expected.length);
  matched.forEach((time, i) =>
    t.true(
      time >= expected[i]! && time < expected[i]! + 600_000,
      `${new Date(time).toISOString()}: not jittered within 10 minutes`,
    ),
  );

  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every: '30m', offset: '5m' }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'echoWorkflow',
      args: ['updated'],
      taskQueue: suite.taskQueue,
      workflowId: `${handle.scheduleId}-wf`,
    },
  }));
  const updated = await handle.describe();
  t.truthy(updated.info.lastUpdatedAt);
  t.deepEqual(updated.spec.intervals, [{ every: 1_800_000, offset: 300_000 }]);
  t.deepEqual(updated.action.args, ['updated']);
  for (const time of updated.info.nextActionTimes) t.is(time.getTime() % 1_800_000, 300_000);

  const again: ScheduleOptions = {
    scheduleId: handle.scheduleId,
    spec: { intervals: [{ every: '1h' }] },
    action: { type: 'startWorkflow', workflowType: 'echoWorkflow', taskQueue: suite.taskQueue },
  };
  await t.throwsAsync(suite.client.schedule.create(again), { instanceOf: ScheduleAlreadyRunning });
  await t.throwsAsync(createSchedule({ spec: { cronExpressions: ['61 * * * *'] } }), {
    instanceOf: TypeError,
    message: 'Minute is not in range [0-59]',
  });

  await handle.delete();
  await t.throwsAsync(handle.describe(), { instanceOf: ScheduleNotFoundError });
  t.false((await listed()).includes(handle.scheduleId));
});

serial(
  'a paused schedule takes no action until unpaused; a trigger acts at once; remaining actions run out',
  async (t) => {
    const start = await now();
    const paused = await createSchedule({
      spec: { intervals: [{ every: '1h' }] },
      state: { paused: true, note: 'not yet' },
    });
    await skip(2 * HOUR);
    t.deepEqual(await startedBy(paused.scheduleId), []);
    t.like((await paused.describe()).state, { paused: true, note: 'not yet' });

    await paused.trigger();
    const triggered = await startedBy(paused.scheduleId);
    t.is(triggered.length, 1);
    t.is((await paused.describe()).info.numActionsTaken, 1);

    await paused.unpause('go');
    t.like((await paused.describe()).state, { paused: false, note: 'go' });
    await skip(HOUR);
    t.is((await startedBy(paused.scheduleId)).length, 2);
    await paused.pause('stop again');
    const pausedAgain = await paused.describe();
    t.like(pausedAgain.state, { paused: true, note: 'stop again' });

    const limited = await createSchedule({ spec: { intervals: [{ every: '1h' }] }, state: { remainingActions: 2 } });
    t.is((await limited.describe()).info.nextActionTimes.length, 2);
    await skip(3 * HOUR);
    const afterLimit = await limited.describe();
    t.is(afterLimit.info.numActionsTaken, 2);
    t.is(afterLimit.state.remainingActions, 0);
    t.deepEqual(afterLimit.info.nextActionTimes, []);
    t.true((await now()) - start >= 6 * HOUR);
    await replayStarted(t, [paused.scheduleId, limited.scheduleId]);
  },
);

serial('a backfill takes the action times of a past range, its start included', async (t) => {
  const hourMark = Math.floor((await now()) / HOUR) * HOUR;
  const handle = await createSchedule({ spec: { intervals: [{ every: '1h' }] }, state: { paused: true } });
  await handle.backfill({
    start: new Date(hourMark - 5 * HOUR),
    end: new Date(hourMark - 2 * HOUR),
    overlap: ScheduleOverlapPolicy.BUFFER_ALL,
  });
  // BUFFER_ALL: one after the other, each as the one before completes
  for (let waited = 0; (await handle.describe()).info.numActionsTaken < 4 && waited < 100; waited++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const started = await startedBy(handle.scheduleId);
  t.deepEqual(
    started.map((w) => w.scheduledAt?.getTime()),
    [5, 4, 3, 2].map((hours) => hourMark - hours * HOUR),
  );
  await replayStarted(t, [handle.scheduleId]);
});

serial('each overlap policy decides what happens to an action while the last one runs', async (t) => {
  const start = await now();
  const firstTime = Math.ceil(start / HOUR) * HOUR;
  const policies = ['SKIP', 'BUFFER_ONE', 'BUFFER_ALL', 'CANCEL_OTHER', 'TERMINATE_OTHER', 'ALLOW_ALL'] as const;
  const schedules = new Map<(typeof policies)[number], ScheduleHandle>();
  for (const policy of policies)
    schedules.set(
      policy,
      await createSchedule({
        spec: { intervals: [{ every: '1h' }] },
        policies: { overlap: ScheduleOverlapPolicy[policy] },
        action: { workflowType: 'sleepingWorkflow', args: [2.5 * HOUR] },
      }),
    );
  // actions at first, +1 h and +2 h; each runs 2.5 h: look just after the first one ends
  await skip(firstTime + 2.5 * HOUR + 60_000 - start);
  const outcome = async (policy: (typeof policies)[number]) => {
    const handle = schedules.get(policy)!;
    const { info, raw } = await handle.describe();
    const started = await startedBy(handle.scheduleId);
    return {
      taken: info.numActionsTaken,
      skipped: info.numActionsSkippedOverlap,
      buffered: Number(raw.info?.bufferSize ?? 0),
      running: info.runningActions.length,
      statuses: started.map((w) => w.status),
    };
  };
  t.deepEqual(await outcome('SKIP'), { taken: 1, skipped: 2, buffered: 0, running: 0, statuses: ['COMPLETED'] });
  t.deepEqual(await outcome('BUFFER_ONE'), {
    taken: 2,
    skipped: 1,
    buffered: 0,
    running: 1,
    statuses: ['COMPLETED', 'RUNNING'],
  });
  t.deepEqual(await outcome('BUFFER_ALL'), {
    taken: 2,
    skipped: 0,
    buffered: 1,
    running: 1,
    statuses: ['COMPLETED', 'RUNNING'],
  });
  t.deepEqual(await outcome('CANCEL_OTHER'), {
    taken: 3,
    skipped: 0,
    buffered: 0,
    running: 1,
    statuses: ['CANCELLED', 'CANCELLED', 'RUNNING'],
  });
  t.deepEqual(await outcome('TERMINATE_OTHER'), {
    taken: 3,
    skipped: 0,
    buffered: 0,
    running: 1,
    statuses: ['TERMINATED', 'TERMINATED', 'RUNNING'],
  });
  // ALLOW_ALL runs are not tracked as running (nor handed a previous result)
  t.deepEqual(await outcome('ALLOW_ALL'), {
    taken: 3,
    skipped: 0,
    buffered: 0,
    running: 0,
    statuses: ['COMPLETED', 'RUNNING', 'RUNNING'],
  });

  for (const handle of schedules.values()) await handle.delete();
  for (const policy of policies)
    for (const { workflowId, status } of await startedBy(schedules.get(policy)!.scheduleId))
      if (status === 'RUNNING') await suite.client.workflow.getHandle(workflowId).terminate('test over');
  await replayStarted(
    t,
    [...schedules.values()].map((handle) => handle.scheduleId),
  );
});

serial('each run is handed the last result; a failure pauses a schedule with pauseOnFailure', async (t) => {
  const counting = await createSchedule({
    spec: { intervals: [{ every: '1h' }] },
    action: { workflowType: 'countingWorkflow', args: [] },
  });
  const failing = await createSchedule({
    spec: { intervals: [{ every: '1h' }] },
    action: { workflowType: 'failingScheduledWorkflow', args: [] },
    policies: { pauseOnFailure: true },
  });
  await skip(3 * HOUR + 60_000);

  const described = await failing.describe();
  const [failed] = await startedBy(failing.scheduleId);
  t.is(described.info.numActionsTaken, 1);
  t.true(described.state.paused);
  t.is(described.state.note, `paused due to workflow failure: ${failed!.workflowId}: the scheduled run failed`);

  const runs = await startedBy(counting.scheduleId);
  t.is(runs.length, 3);
  await counting.delete();
  await failing.delete();
  t.like(await suite.client.workflow.getHandle(runs[2]!.workflowId).result(), { count: 3 });
  await replayStarted(t, [counting.scheduleId, failing.scheduleId]);
});

serial('action times older than the catchup window are counted as missed, not taken', async (t) => {
  const handle = await createSchedule({ spec: { intervals: [{ every: '1m' }] }, policies: { catchupWindow: '10m' } });
  // the server's clock jumps an hour at once: the schedule wakes once, an hour late
  suite.temporal.devServer!.skipTime(HOUR);
  const { info } = await handle.describe();
  t.is(info.numActionsTaken, 1);
  t.true(
    info.numActionsMissedCatchupWindow >= 49 && info.numActionsMissedCatchupWindow <= 51,
    `missed ${info.numActionsMissedCatchupWindow}`,
  );
  // the ten within the window overlap the one started (SKIP)
  t.true(
    info.numActionsSkippedOverlap >= 9 && info.numActionsSkippedOverlap <= 10,
    `skipped ${info.numActionsSkippedOverlap}`,
  );
  await handle.delete();
  await replayStarted(t, [handle.scheduleId]);
});
