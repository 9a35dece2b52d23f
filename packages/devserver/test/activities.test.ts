/** Activities through the devserver with the real worker: results, retries, timeouts, heartbeats. */
import test from 'ava';
import { attemptLog } from './fixtures/activities.js';
import { assertReplays, startSuite, uniqueId } from './support.js';
import type { Suite } from './support.js';

let suite: Suite;
test.before(async () => {
  suite = await startSuite('devserver-activities');
});
test.after.always(async () => {
  await suite?.stop();
});

const run = <T>(workflowType: string, workflowId: string, args: unknown[]) =>
  suite.client.workflow.execute(workflowType, { taskQueue: suite.taskQueue, workflowId, args }) as Promise<T>;

test('an activity result comes back to the workflow', async (t) => {
  const id = uniqueId('greet');
  t.is(await run<string>('greetWorkflow', id, ['Sydney']), 'Hello, Sydney!');
  await assertReplays(t, suite, [id]);
});

test('a failing activity is retried with exponential backoff until it succeeds', async (t) => {
  const id = uniqueId('retry');
  t.is(await run<number>('retryWorkflow', id, [id, 3]), 3);
  const attempts = attemptLog.get(id)!;
  t.deepEqual(
    attempts.map((a) => a.attempt),
    [1, 2, 3],
  );
  // initialInterval 1 s, coefficient 3: about 1 s, then about 3 s, between attempts (server time)
  const gap1 = attempts[1]!.scheduledAtMs - attempts[0]!.scheduledAtMs;
  const gap2 = attempts[2]!.scheduledAtMs - attempts[1]!.scheduledAtMs;
  t.true(gap1 >= 1000 && gap1 < 3000, `first backoff ${gap1}ms`);
  t.true(gap2 >= 3000 && gap2 < 9000, `second backoff ${gap2}ms`);
  await assertReplays(t, suite, [id]);
});

test('an error type listed as non-retryable is not retried', async (t) => {
  const id = uniqueId('nonretry-type');
  t.is(
    await run<string>('failureWorkflow', id, [id, 'nonRetryableType']),
    'ApplicationFailure:Fatal:retryState=NON_RETRYABLE_FAILURE',
  );
  t.is(attemptLog.get(id)!.length, 1);
  await assertReplays(t, suite, [id]);
});

test('an ApplicationFailure marked non-retryable is not retried', async (t) => {
  const id = uniqueId('nonretry-flag');
  t.is(
    await run<string>('failureWorkflow', id, [id, 'nonRetryableFlag']),
    'ApplicationFailure:Unrecoverable:retryState=NON_RETRYABLE_FAILURE',
  );
  t.is(attemptLog.get(id)!.length, 1);
});

test('retries stop at maximumAttempts', async (t) => {
  const id = uniqueId('max-attempts');
  t.is(
    await run<string>('failureWorkflow', id, [id, 'maxAttempts']),
    'ApplicationFailure:Transient:retryState=MAXIMUM_ATTEMPTS_REACHED',
  );
  t.deepEqual(
    attemptLog.get(id)!.map((a) => a.attempt),
    [1, 2, 3],
  );
  await assertReplays(t, suite, [id]);
});

test.serial('nextRetryDelay overrides the backoff, and describe shows the pending retry', async (t) => {
  const id = uniqueId('next-retry');
  const handle = await suite.client.workflow.start('failureWorkflow', {
    taskQueue: suite.taskQueue,
    workflowId: id,
    args: [id, 'nextRetryDelay'],
  });
  let pending;
  for (let i = 0; i < 100 && !pending; i++) {
    const described = await handle.describe();
    pending = described.raw.pendingActivities?.find((a) => a.attempt === 2);
    if (!pending) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.truthy(pending, 'the activity shows as pending with attempt 2');
  t.is(pending!.lastFailure?.message, 'failed with Transient');
  t.is(pending!.activityType?.name, 'failWith');
  const nextAttemptMs = Number(pending!.nextAttemptScheduleTime?.seconds) * 1000;
  const lastCompleteMs = Number(pending!.lastAttemptCompleteTime?.seconds) * 1000;
  t.true(nextAttemptMs - lastCompleteMs >= 1000, 'next attempt about 1.5 s after the failure');
  t.is(await handle.result(), 'ApplicationFailure:Transient:retryState=MAXIMUM_ATTEMPTS_REACHED');
  const [a1, a2, a3] = attemptLog.get(id)!;
  t.true(a2!.scheduledAtMs - a1!.scheduledAtMs >= 1500);
  t.true(a3!.scheduledAtMs - a2!.scheduledAtMs >= 1500);
  await assertReplays(t, suite, [id]);
});

for (const [kind, timeoutType] of [
  ['startToClose', 'START_TO_CLOSE'],
  ['scheduleToStart', 'SCHEDULE_TO_START'],
  ['scheduleToClose', 'SCHEDULE_TO_CLOSE'],
  ['heartbeat', 'HEARTBEAT'],
] as const) {
  test(`an activity ${kind} timeout reaches the workflow as a TimeoutFailure`, async (t) => {
    const id = uniqueId(`timeout-${kind}`);
    t.is(await run<string>('activityTimeoutWorkflow', id, [kind]), `timeout:${timeoutType}`);
    await assertReplays(t, suite, [id]);
  });
}

test('heartbeat details from a failed attempt are given to the next attempt', async (t) => {
  const id = uniqueId('heartbeat');
  t.deepEqual(await run('heartbeatResumeWorkflow', id, [id]), { resumedFrom: 3, attempt: 2 });
  t.deepEqual(
    attemptLog.get(id)!.map((a) => a.heartbeatDetails),
    [undefined, 3],
  );
  await assertReplays(t, suite, [id]);
});

test('a local activity runs inside the workflow task, and a patch marker is recorded', async (t) => {
  const id = uniqueId('local');
  t.is(await run<string>('localActivityWorkflow', id, ['local']), 'Hello, local! (v2)');
  const history = await suite.client.workflow.getHandle(id).fetchHistory();
  const markers = (history.events ?? []).flatMap((e) =>
    e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes.markerName] : [],
  );
  t.deepEqual(markers.sort(), ['core_local_activity', 'core_patch']);
  t.false(
    (history.events ?? []).some((e) => e.activityTaskScheduledEventAttributes),
    'no regular activity was scheduled',
  );
  await assertReplays(t, suite, [id]);
});
