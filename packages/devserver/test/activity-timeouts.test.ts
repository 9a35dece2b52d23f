/**
 * Which activity timeout the real server reports, and how (its timer queue: deadlines due at the same moment
 * fire in timeout-type order, schedule-to-start before schedule-to-close; a timeout that leaves no time for
 * another attempt is reported as schedule-to-close "Not enough time…"; schedule-to-start and schedule-to-close
 * end with retry state TIMEOUT).
 */
import { fileURLToPath } from 'node:url';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import protoRoot from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import * as activities from './fixtures/activities.js';
import type { TimeoutSeen } from './fixtures/timeout-workflows.js';
import { startTemporalTestEnv } from '../src/testing.js';
import type { TemporalTestEnv } from '../src/testing.js';
import { assertReplaysWith, uniqueId } from './support.js';

const { TimeoutType, RetryState } = protoRoot.temporal.api.enums.v1;
const workflowsPath = fileURLToPath(new URL('./fixtures/timeout-workflows.ts', import.meta.url));
const taskQueue = 'devserver-activity-timeouts';

let temporal: TemporalTestEnv;
let worker: Worker;
let running: Promise<void>;
test.before(async () => {
  temporal = await startTemporalTestEnv();
  worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
  running = worker.run();
});
test.after.always(async () => {
  worker?.shutdown();
  await running;
  await temporal?.teardown();
});

async function timedOut(
  t: ExecutionContext,
  workflowType: string,
  options: object,
): Promise<{ seen: TimeoutSeen; event: protoRoot.temporal.api.history.v1.IActivityTaskTimedOutEventAttributes }> {
  const workflowId = uniqueId(workflowType);
  const seen = await temporal.client.workflow.execute<(options: object) => Promise<TimeoutSeen>>(workflowType, {
    taskQueue,
    workflowId,
    args: [options],
  });
  const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const event = history.events?.find((e) => e.activityTaskTimedOutEventAttributes)?.activityTaskTimedOutEventAttributes;
  if (!event) throw new Error('no ActivityTaskTimedOut event');
  await assertReplaysWith(t, temporal.client, await temporal.bundle(workflowsPath), [workflowId]);
  return { seen, event };
}

test('an activity never picked up reports SCHEDULE_TO_START when that deadline is the same as schedule-to-close', async (t) => {
  // schedule-to-start defaults to schedule-to-close: both fall due together
  const { seen, event } = await timedOut(t, 'neverStartedWorkflow', { scheduleToCloseTimeout: '1s' });
  t.is(event.failure?.timeoutFailureInfo?.timeoutType, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
  t.is(event.failure?.message, 'activity ScheduleToStart timeout');
  t.is(event.retryState, RetryState.RETRY_STATE_TIMEOUT);
  t.is(event.startedEventId?.toString(), '0');
  t.deepEqual(seen, {
    timeoutType: 'SCHEDULE_TO_START',
    message: 'activity ScheduleToStart timeout',
    retryState: 'TIMEOUT',
  });
});

test('a schedule-to-start timeout ends the activity with retry state TIMEOUT, retries left or not', async (t) => {
  const { seen, event } = await timedOut(t, 'neverStartedWorkflow', {
    scheduleToStartTimeout: '300ms',
    startToCloseTimeout: '10s',
  });
  t.is(event.failure?.timeoutFailureInfo?.timeoutType, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
  t.is(event.retryState, RetryState.RETRY_STATE_TIMEOUT);
  t.is(seen.retryState, 'TIMEOUT');
});

test('a start-to-close timeout with no time left for a retry is reported as schedule-to-close, carrying the previous failure', async (t) => {
  // attempt 1 times out at 300 ms and is retried at once (100 ms); attempt 2 times out at about 700 ms,
  // and the next backoff (200 ms) would end after the 800 ms schedule-to-close deadline
  const { seen, event } = await timedOut(t, 'sleepsTooLongWorkflow', {
    startToCloseTimeout: '300ms',
    scheduleToCloseTimeout: '800ms',
    retry: { initialInterval: '100ms', backoffCoefficient: 2 },
  });
  t.is(event.failure?.timeoutFailureInfo?.timeoutType, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE);
  t.is(
    event.failure?.message,
    'Not enough time to schedule next retry before activity ScheduleToClose timeout, giving up retrying',
  );
  t.is(event.retryState, RetryState.RETRY_STATE_TIMEOUT);
  t.is(
    event.failure?.cause?.message,
    'activity StartToClose timeout',
    'the last attempt before this one timed out start-to-close',
  );
  t.is(seen.timeoutType, 'SCHEDULE_TO_CLOSE');
});
