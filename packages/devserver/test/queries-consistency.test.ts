/**
 * A query sees every signal accepted before it: while a workflow task is scheduled or running, the query
 * waits for it and is answered by the worker with the task that follows (the real server's buffered
 * queries), and it goes straight to a worker only when the workflow has nothing new to see.
 */
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { until } from './durable-support.js';
import * as activities from './fixtures/activities.js';
import { assertReplays, startSuite, uniqueId, workflowsPath } from './support.js';
import type { Suite } from './support.js';

let suite: Suite;
test.before(async () => {
  suite = await startSuite('devserver-queries');
});
test.after.always(async () => {
  await suite?.stop();
});

const queriesReceived = () => suite.temporal.devServer!.callCounts().QueryWorkflow ?? 0;

test('three signals, then a query: the answer counts all three (features query/successful_query)', async (t) => {
  const id = uniqueId('three-signals');
  const handle = await suite.client.workflow.start('counterWorkflow', {
    taskQueue: suite.taskQueue,
    workflowId: id,
    args: [5],
  });
  t.is(await handle.query('status'), 'received 0 of 5');
  await handle.signal('add', 1);
  t.is(await handle.query('status'), 'received 1 of 5');
  await handle.signal('add', 2);
  await handle.signal('add', 3);
  await handle.signal('add', 4);
  t.is(await handle.query('status'), 'received 4 of 5');
  await handle.signal('add', 5);
  t.deepEqual(await handle.result(), { sum: 15, count: 5 });
  await assertReplays(t, suite, [id]);
});

test('a query sent while a workflow task runs waits for it, and sees the signals that arrived meanwhile', async (t) => {
  const taskQueue = uniqueId('held-task');
  let taskRunning!: () => void;
  const running = new Promise<void>((resolve) => (taskRunning = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holdWorkflowTask = async () => {
    taskRunning();
    await released;
  };
  const worker = await suite.temporal.createWorker({
    taskQueue,
    workflowsPath,
    activities: { ...activities, holdWorkflowTask },
  });
  await worker.runUntil(async () => {
    const id = uniqueId('held');
    const handle = await suite.client.workflow.start('heldCounterWorkflow', { taskQueue, workflowId: id, args: [3] });
    await running; // the first workflow task is in the worker's hands until `release`
    for (const n of [1, 2, 3]) await handle.signal('add', n);
    const received = queriesReceived();
    const answer = handle.query<string>('status');
    await until(async () => queriesReceived() > received, 'the server receives the query');
    t.is((await handle.describe()).raw.pendingWorkflowTask?.state, 2, 'the workflow task is still running');
    release();
    t.is(await answer, 'received 3 of 3');
    t.deepEqual(await handle.result(), { sum: 6, count: 3 });
  });
});

test('a query before the first workflow task ran waits for a worker to take that task', async (t) => {
  const taskQueue = uniqueId('no-worker-yet');
  const id = uniqueId('first-task');
  const handle = await suite.client.workflow.start('counterWorkflow', { taskQueue, workflowId: id, args: [1] });
  const received = queriesReceived();
  const answer = handle.query<string>('status');
  await until(async () => queriesReceived() > received, 'the server receives the query');
  const worker = await suite.temporal.createWorker({ taskQueue, workflowsPath, activities });
  await worker.runUntil(async () => {
    t.is(await answer, 'received 0 of 1');
    await handle.signal('add', 1);
    t.deepEqual(await handle.result(), { sum: 1, count: 1 });
  });
});

test('a query to a workflow whose task keeps failing is refused at once', async (t) => {
  const taskQueue = uniqueId('failing-task');
  const id = uniqueId('failing');
  const handle = await suite.client.workflow.start('greetWorkflow', {
    taskQueue,
    workflowId: id,
    args: ['x'],
    workflowTaskTimeout: '1s',
  });
  const buggyWorker = await suite.temporal.createWorker({
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows-buggy.ts', import.meta.url)),
    activities,
  });
  await buggyWorker.runUntil(async () => {
    await until(
      async () => ((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) >= 3,
      'the third attempt',
    );
    const error = await t.throwsAsync(handle.query('status'));
    t.regex(
      String((error!.cause as Error | undefined)?.message),
      /FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state/,
    );
  });
  await handle.terminate('test over');
});
