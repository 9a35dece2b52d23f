/**
 * Workflow ids and runs (reuse and conflict policies, request-id dedupe, timeouts), visibility by custom
 * search attribute, time skipping, and a worker replaced mid-workflow.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, TimeoutFailure } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import * as activities from './fixtures/activities.js';
import { assertReplays, eventTypes, historiesOf, startSuite, uniqueId, workflowsPath } from './support.js';
import type { Suite } from './support.js';

let suite: Suite;
test.before(async () => {
  suite = await startSuite('devserver-lifecycle');
  await suite.temporal.addSearchAttributes({ OrderStatus: 'Keyword', OrderAmount: 'Int' });
});
test.after.always(async () => {
  await suite?.stop();
});

/**
 * Time skipping needs the devserver (or another server with a TestService). These tests run serially:
 * time only jumps while the whole server is idle, and the other tests keep it busy.
 */
const timeSkippingTest = process.env.TEMPORAL_ADDRESS ? test.serial.skip : test.serial;

const start = (workflowType: string, workflowId: string, args: unknown[] = [], extra: object = {}) =>
  suite.client.workflow.start(workflowType, { taskQueue: suite.taskQueue, workflowId, args, ...extra });

test('a second start of a running workflow id fails, unless the conflict policy says otherwise', async (t) => {
  const id = uniqueId('conflict');
  const first = await start('waitForeverWorkflow', id);
  await t.throwsAsync(start('waitForeverWorkflow', id), { instanceOf: WorkflowExecutionAlreadyStartedError });
  const existing = await start('waitForeverWorkflow', id, [], { workflowIdConflictPolicy: 'USE_EXISTING' });
  t.is(existing.firstExecutionRunId, first.firstExecutionRunId);
  const replacing = await start('waitForeverWorkflow', id, [], { workflowIdConflictPolicy: 'TERMINATE_EXISTING' });
  t.not(replacing.firstExecutionRunId, first.firstExecutionRunId);
  t.is((await suite.client.workflow.getHandle(id, first.firstExecutionRunId).describe()).status.name, 'TERMINATED');
  t.is((await replacing.describe()).status.name, 'RUNNING');
  await replacing.terminate('test over');
});

test('the id reuse policy decides whether a closed workflow id may start again', async (t) => {
  const completed = uniqueId('reuse-completed');
  await suite.client.workflow.execute('greetWorkflow', {
    taskQueue: suite.taskQueue,
    workflowId: completed,
    args: ['a'],
  });
  await t.throwsAsync(start('greetWorkflow', completed, ['b'], { workflowIdReusePolicy: 'REJECT_DUPLICATE' }), {
    instanceOf: WorkflowExecutionAlreadyStartedError,
  });
  await t.throwsAsync(
    start('greetWorkflow', completed, ['b'], { workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
    { instanceOf: WorkflowExecutionAlreadyStartedError },
  );
  const again = await start('greetWorkflow', completed, ['c']); // ALLOW_DUPLICATE is the default
  t.is(await again.result(), 'Hello, c!');

  const failed = uniqueId('reuse-failed');
  await t.throwsAsync(
    suite.client.workflow.execute('failingWorkflow', { taskQueue: suite.taskQueue, workflowId: failed }),
    { instanceOf: WorkflowFailedError },
  );
  const retried = await start('greetWorkflow', failed, ['d'], { workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' });
  t.is(await retried.result(), 'Hello, d!');
  await assertReplays(t, suite, [completed, failed]);
});

test('a start repeated with the same request id returns the same run', async (t) => {
  const id = uniqueId('request-id');
  const request = {
    namespace: suite.temporal.namespace,
    workflowId: id,
    workflowType: { name: 'waitForeverWorkflow' },
    taskQueue: { name: suite.taskQueue },
    requestId: randomUUID(),
    identity: 'devserver-test',
  };
  const first = await suite.client.workflowService.startWorkflowExecution(request);
  const second = await suite.client.workflowService.startWorkflowExecution(request);
  t.is(second.runId, first.runId);
  await suite.client.workflow.getHandle(id).terminate('test over');
});

test('the memo given at start is shown by describe and list', async (t) => {
  const id = uniqueId('memo');
  const handle = await start('waitForeverWorkflow', id, [], { memo: { ticket: 'CHG-1042', priority: 2 } });
  t.deepEqual((await handle.describe()).memo, { ticket: 'CHG-1042', priority: 2 });
  for await (const execution of suite.client.workflow.list({ query: `WorkflowId = '${id}'` }))
    t.deepEqual(execution.memo, { ticket: 'CHG-1042', priority: 2 });
  await handle.terminate('test over');
});

test('a failed workflow with a retry policy is retried as a new run until it succeeds', async (t) => {
  const id = uniqueId('workflow-retry');
  const handle = await start('retriedWorkflow', id, [3], { retry: { initialInterval: '100ms', maximumAttempts: 5 } });
  t.is(await handle.result(), 3);
  const runs = await historiesOf(suite.client, id);
  t.is(runs.length, 3);
  t.is(runs[2]!.events![0]!.workflowExecutionStartedEventAttributes?.attempt, 3);
  await assertReplays(t, suite, [id]);

  const exhausted = uniqueId('workflow-retry-exhausted');
  const failing = await start('retriedWorkflow', exhausted, [5], {
    retry: { initialInterval: '100ms', maximumAttempts: 2 },
  });
  const error = await t.throwsAsync(failing.result(), { instanceOf: WorkflowFailedError });
  t.regex(error!.cause!.message, /workflow attempt 2 failed/);
  t.is((await historiesOf(suite.client, exhausted)).length, 2);
});

test('a run timeout ends the workflow TimedOut', async (t) => {
  const id = uniqueId('run-timeout');
  const handle = await start('waitForeverWorkflow', id, [], { workflowRunTimeout: '2s' });
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(error!.cause instanceof TimeoutFailure);
  t.is((await handle.describe()).status.name, 'TIMED_OUT');
});

test('workflows can be listed and counted by a custom search attribute', async (t) => {
  const amount = defineSearchAttributeKey('OrderAmount', SearchAttributeType.INT);
  const prefix = uniqueId('sa');
  const specs = [
    ['approved', 100],
    ['approved', 20],
    ['rejected', 300],
  ] as const;
  const handles = await Promise.all(
    specs.map(([status, value], i) =>
      start('searchAttributeWorkflow', `${prefix}-${i}`, [status], { typedSearchAttributes: [{ key: amount, value }] }),
    ),
  );
  // the workflow upserts OrderStatus in its first task
  for (const handle of handles) {
    for (
      let i = 0;
      i < 100 &&
      !(await handle.describe()).typedSearchAttributes.get(
        defineSearchAttributeKey('OrderStatus', SearchAttributeType.KEYWORD),
      );
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const query = `WorkflowId STARTS_WITH '${prefix}' AND OrderStatus = 'approved' AND OrderAmount > 50`;
  const listed = [];
  for await (const execution of suite.client.workflow.list({ query })) listed.push(execution.workflowId);
  t.deepEqual(listed, [`${prefix}-0`]);
  const approved = await suite.client.workflow.count(`OrderStatus = 'approved' AND WorkflowId STARTS_WITH '${prefix}'`);
  t.is(approved.count, 2);
  const amounts: Record<string, number | undefined> = {};
  for await (const execution of suite.client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}'` }))
    amounts[execution.workflowId] = execution.typedSearchAttributes.get(amount);
  t.deepEqual(amounts, { [`${prefix}-0`]: 100, [`${prefix}-1`]: 20, [`${prefix}-2`]: 300 });
  await Promise.all(handles.map((handle) => handle.terminate('test over')));
});

test('an unregistered search attribute is refused at start', async (t) => {
  const unknown = defineSearchAttributeKey('NoSuchAttribute', SearchAttributeType.KEYWORD);
  const error = await t.throwsAsync(
    start('greetWorkflow', uniqueId('sa-unknown'), ['x'], { typedSearchAttributes: [{ key: unknown, value: 'x' }] }),
  );
  t.regex((error!.cause as Error).message, /INVALID_ARGUMENT: search attribute NoSuchAttribute is not registered/);
});

timeSkippingTest('a 30-day timer completes at once under time skipping', async (t) => {
  const id = uniqueId('timer-30d');
  const thirtyDays = 30 * 24 * 3600_000;
  const startedAt = Date.now();
  const result = await suite.client.workflow.execute('timerWorkflow', {
    taskQueue: suite.taskQueue,
    workflowId: id,
    args: [thirtyDays],
  });
  const wallMs = Date.now() - startedAt;
  t.true((result as { workflowClockAdvancedMs: number }).workflowClockAdvancedMs >= thirtyDays);
  // Proof that time was skipped, not a speed target (that is the benchmark's): 30 days took under a minute.
  t.true(wallMs < 60_000, `took ${wallMs} ms of real time`);
  t.deepEqual(
    (await eventTypes(suite.client, id)).filter((type) => type.startsWith('TIMER')),
    ['TIMER_STARTED', 'TIMER_FIRED'],
  );
  await assertReplays(t, suite, [id]);
});

timeSkippingTest('an execution timeout spans the runs of a continue-as-new chain', async (t) => {
  const id = uniqueId('execution-timeout');
  const handle = await start('hourlyChainWorkflow', id, [1], { workflowExecutionTimeout: '150 minutes' });
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(error!.cause instanceof TimeoutFailure);
  const runs = await historiesOf(suite.client, id);
  t.is(runs.length, 3, 'two runs continued as new after an hour each; the third timed out half-way');
  t.truthy(runs[2]!.events!.at(-1)!.workflowExecutionTimedOutEventAttributes);
  await assertReplays(t, suite, [id]);
});

timeSkippingTest(
  'env.sleep moves server time to its target, firing the timers it passes and no later ones',
  async (t) => {
    const before = await suite.temporal.env.currentTimeMs();
    const oneHour = await start('timerWorkflow', uniqueId('env-sleep-1h'), [3600_000]);
    const threeDays = await start('timerWorkflow', uniqueId('env-sleep-3d'), [3 * 24 * 3600_000]);
    await suite.temporal.env.sleep(2 * 3600_000);
    const advanced = (await suite.temporal.env.currentTimeMs()) - before;
    t.true(advanced >= 2 * 3600_000 && advanced < 3 * 3600_000, `clock moved ${advanced} ms`);
    t.is((await oneHour.describe()).status.name, 'COMPLETED');
    t.is((await threeDays.describe()).status.name, 'RUNNING');
    await threeDays.terminate('test over');
  },
);

test('a real-time timer fires', async (t) => {
  const id = uniqueId('timer');
  const result = await suite.client.workflow.execute('timerWorkflow', {
    taskQueue: suite.taskQueue,
    workflowId: id,
    args: [300],
  });
  t.true((result as { workflowClockAdvancedMs: number }).workflowClockAdvancedMs >= 300);
  await assertReplays(t, suite, [id]);
});

test('a worker shut down mid-workflow is replaced by a new one that finishes it', async (t) => {
  const taskQueue = uniqueId('restart-queue');
  const id = uniqueId('restart');
  const handle = await suite.client.workflow.start('twoStepWorkflow', { taskQueue, workflowId: id, args: ['order'] });
  const firstWorker = await suite.temporal.createWorker({ taskQueue, workflowsPath, activities });
  await firstWorker.runUntil(async () => {
    while (!(await eventTypes(suite.client, id)).includes('ACTIVITY_TASK_COMPLETED'))
      await new Promise((resolve) => setTimeout(resolve, 20));
    // let the workflow task that sees the activity result complete before the worker goes away
    while ((await handle.describe()).raw.pendingWorkflowTask) await new Promise((resolve) => setTimeout(resolve, 20));
  });
  await handle.signal('proceed');
  const secondWorker = await suite.temporal.createWorker({ taskQueue, workflowsPath, activities });
  const result = await secondWorker.runUntil(handle.result());
  t.deepEqual(result, ['Hello, order step 1!', 'Hello, order step 2!']);
  const identities = new Set(
    ((await handle.fetchHistory()).events ?? [])
      .map((e) => e.workflowTaskStartedEventAttributes?.identity)
      .filter(Boolean),
  );
  t.true(identities.size >= 1);
  await assertReplays(t, suite, [id]);
});

test('a workflow whose task keeps failing waits for fixed code, then completes with a clean history', async (t) => {
  const taskQueue = uniqueId('hotfix-queue');
  const id = uniqueId('hotfix');
  const handle = await suite.client.workflow.start('greetWorkflow', {
    taskQueue,
    workflowId: id,
    args: ['hotfix'],
    workflowTaskTimeout: '1s',
  });
  const buggyWorker = await suite.temporal.createWorker({
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows-buggy.ts', import.meta.url)),
    activities,
  });
  await buggyWorker.runUntil(async () => {
    while (((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) < 3)
      await new Promise((resolve) => setTimeout(resolve, 50));
  });
  const failedSoFar = await eventTypes(suite.client, id);
  t.is(failedSoFar.filter((type) => type === 'WORKFLOW_TASK_FAILED').length, 1, 'only the first failure is recorded');
  const fixedWorker = await suite.temporal.createWorker({ taskQueue, workflowsPath, activities });
  t.is(await fixedWorker.runUntil(handle.result()), 'Hello, hotfix!');
  await assertReplays(t, suite, [id]);
});
