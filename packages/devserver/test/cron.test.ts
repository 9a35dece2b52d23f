/**
 * Cron workflows on the devserver, with the real SDK and time skipping: the first run waits for the next cron
 * time; each run that completes, fails or times out is followed by the next (initiator CRON_SCHEDULE, the same
 * input, linked both ways, handed the last result or the failure); terminating or cancelling ends the chain; a
 * client waiting for the result follows the chain to its end. Every run is replayed.
 */
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure, defaultPayloadConverter, TerminatedFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time.js';
import protoRoot from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { assertReplays, historiesOf, startSuite, uniqueId } from './support.js';
import type { Suite } from './support.js';

const HOUR = 3_600_000;
const HOURLY = '0 * * * *';
const { ContinueAsNewInitiator, EventType } = protoRoot.temporal.api.enums.v1;
type History = temporal.api.history.v1.IHistory;

let suite: Suite;
test.before(async () => {
  suite = await startSuite(
    'devserver-cron',
    fileURLToPath(new URL('./fixtures/schedule-workflows.ts', import.meta.url)),
  );
});
test.after.always(async () => {
  await suite?.stop();
});

/** Time only jumps while the whole server is idle: these tests run one at a time, on the devserver's clock. */
const serial = process.env.TEMPORAL_ADDRESS ? test.serial.skip : test.serial;

const now = async () => (await suite.temporal.env.currentTimeMs()) as number;
const skip = (ms: number) => suite.temporal.env.sleep(ms);
const started = (history: History) => history.events![0]!.workflowExecutionStartedEventAttributes!;
const closeEvent = (history: History) => history.events!.at(-1)!;
const closeType = (history: History) =>
  String(EventType[closeEvent(history).eventType ?? 0]).replace('EVENT_TYPE_WORKFLOW_EXECUTION_', '');
const seconds = (duration: { seconds?: unknown } | null | undefined) => Number(String(duration?.seconds ?? 0));
const result = (history: History) =>
  defaultPayloadConverter.fromPayload(
    closeEvent(history).workflowExecutionCompletedEventAttributes!.result!.payloads![0]!,
  );

/** Starts a cron workflow; returns it and the first cron time after the start. */
async function startCron(workflowType: string, args: unknown[], options: object = {}) {
  const before = await now();
  const handle = await suite.client.workflow.start(workflowType, {
    taskQueue: suite.taskQueue,
    workflowId: uniqueId('cron'),
    cronSchedule: HOURLY,
    args,
    ...options,
  });
  return { handle, firstTime: Math.floor(before / HOUR) * HOUR + HOUR };
}

serial(
  'the first run waits for the next cron time; each completed run is followed by the next, handed its result',
  async (t) => {
    const { handle, firstTime } = await startCron('countingWorkflow', []);
    const [waiting] = await historiesOf(suite.client, handle.workflowId);
    t.deepEqual(
      waiting!.events!.map((e) => e.eventType),
      [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED],
      'no workflow task before the cron time',
    );
    const first = started(waiting!);
    t.is(first.initiator, ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE);
    t.is(first.cronSchedule, HOURLY);
    const executionTime = (await handle.describe()).raw.workflowExecutionInfo!.executionTime;
    t.true(
      tsToMs(executionTime) >= firstTime && tsToMs(executionTime) < firstTime + 1000,
      'runs at the cron time, backoff rounded up to the second',
    );
    t.is(
      seconds(first.firstWorkflowTaskBackoff),
      Math.round((tsToMs(executionTime) - tsToMs(waiting!.events![0]!.eventTime)) / 1000),
    );

    await skip(firstTime + 2 * HOUR + 60_000 - (await now()));
    await handle.terminate('test over');
    const runs = await historiesOf(suite.client, handle.workflowId);
    t.deepEqual(runs.map(closeType), ['COMPLETED', 'COMPLETED', 'COMPLETED', 'TERMINATED']);
    t.deepEqual(
      runs.slice(0, 3).map(result),
      [1, 2, 3].map((count) => ({ count, cronSchedule: HOURLY })),
    );
    runs.slice(1).forEach((run, i) => {
      const attrs = started(run);
      const previous = runs[i]!;
      t.is(attrs.initiator, ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE);
      t.is(attrs.continuedExecutionRunId, started(previous).originalExecutionRunId);
      t.is(
        closeEvent(previous).workflowExecutionCompletedEventAttributes!.newExecutionRunId,
        attrs.originalExecutionRunId,
      );
      t.is(attrs.firstExecutionRunId, handle.firstExecutionRunId);
      t.deepEqual(defaultPayloadConverter.fromPayload(attrs.lastCompletionResult!.payloads![0]!), result(previous));
      // the next hour, counted from when the previous run closed
      t.true(
        seconds(attrs.firstWorkflowTaskBackoff) > 3590 && seconds(attrs.firstWorkflowTaskBackoff) <= 3600,
        `backoff ${seconds(attrs.firstWorkflowTaskBackoff)} s`,
      );
    });
    await assertReplays(t, suite, [handle.workflowId]);
  },
);

serial('a failed run and a timed-out run are followed by the next; the next run is handed the failure', async (t) => {
  const failing = await startCron('countingWorkflow', [2]);
  const timingOut = await startCron('sleepingWorkflow', [2 * HOUR], { workflowRunTimeout: '30m' });
  await skip(failing.firstTime + 2 * HOUR + 60_000 - (await now()));
  for (const { handle } of [failing, timingOut]) await handle.terminate('test over');

  const failed = await historiesOf(suite.client, failing.handle.workflowId);
  t.deepEqual(failed.map(closeType), ['COMPLETED', 'FAILED', 'COMPLETED', 'TERMINATED']);
  t.truthy(closeEvent(failed[1]!).workflowExecutionFailedEventAttributes!.newExecutionRunId);
  const afterFailure = started(failed[2]!);
  t.is(afterFailure.continuedFailure?.message, 'run 2 fails');
  t.deepEqual(
    result(failed[2]!),
    { count: 2, cronSchedule: HOURLY, sawFailure: 'run 2 fails' },
    'handed the last result and the failure',
  );

  const timedOut = await historiesOf(suite.client, timingOut.handle.workflowId);
  t.deepEqual(timedOut.map(closeType), ['TIMED_OUT', 'TIMED_OUT', 'TERMINATED']);
  // timed out half an hour into the hour: the next run waits for the next hour
  t.is(seconds(started(timedOut[1]!).firstWorkflowTaskBackoff), 1800);
  await assertReplays(t, suite, [failing.handle.workflowId, timingOut.handle.workflowId]);
});

serial(
  'cancelling or terminating ends the chain, and a client waiting for the result follows the chain to that end',
  async (t) => {
    const cancelled = await startCron('sleepingWorkflow', [10 * 60_000]);
    const terminated = await startCron('countingWorkflow', []);
    // the second runs have started; the sleeping one sleeps
    await skip(cancelled.firstTime + HOUR + 60_000 - (await now()));
    await cancelled.handle.cancel();
    const cancelError = await t.throwsAsync(cancelled.handle.result(), { instanceOf: WorkflowFailedError });
    t.true(cancelError?.cause instanceof CancelledFailure);
    t.deepEqual((await historiesOf(suite.client, cancelled.handle.workflowId)).map(closeType), [
      'COMPLETED',
      'CANCELED',
    ]);

    await terminated.handle.terminate('enough');
    // from the first run, through the completed ones, to the terminated one
    const error = await t.throwsAsync(
      suite.client.workflow.getHandle(terminated.handle.workflowId, terminated.handle.firstExecutionRunId).result(),
      { instanceOf: WorkflowFailedError },
    );
    t.true(error?.cause instanceof TerminatedFailure);
    const runs = await historiesOf(suite.client, terminated.handle.workflowId);
    t.deepEqual(runs.map(closeType).slice(-3), ['COMPLETED', 'COMPLETED', 'TERMINATED']);
    await assertReplays(t, suite, [cancelled.handle.workflowId, terminated.handle.workflowId]);
  },
);

serial('an invalid cron schedule is refused as the real server refuses it', async (t) => {
  const refused = async (cronSchedule: string, message: RegExp, options: object = {}) => {
    const start = suite.client.workflow.start('countingWorkflow', {
      taskQueue: suite.taskQueue,
      workflowId: uniqueId('cron-invalid'),
      cronSchedule,
      ...options,
    });
    const error = await t.throwsAsync(start);
    t.regex((error?.cause as Error | undefined)?.message ?? '', message, cronSchedule);
  };
  for (const cronSchedule of ['61 * * * *', '* * * *', '0 0 * * 7', '@fortnightly', '@every 1d'])
    await refused(cronSchedule, /^3 INVALID_ARGUMENT: invalid CronSchedule\.$/);
  await refused('0 0 30 2 *', /invalid CronSchedule, no time can be found to satisfy the schedule/);
  await refused(HOURLY, /CronSchedule and WorkflowStartDelay may not be used together/, { startDelay: '1m' });
});
