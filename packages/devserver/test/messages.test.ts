/** Signals, queries, updates, cancellation, termination, continue-as-new and workflow failure. */
import test from 'ava';
import {
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  CancelledFailure,
  TerminatedFailure,
  ApplicationFailure,
} from '@temporalio/client';
import { assertReplays, eventTypes, startSuite, uniqueId } from './support.js';
import type { Suite } from './support.js';

let suite: Suite;
test.before(async () => {
  suite = await startSuite('devserver-messages');
});
test.after.always(async () => {
  await suite?.stop();
});

const start = (workflowType: string, workflowId: string, args: unknown[] = []) =>
  suite.client.workflow.start(workflowType, { taskQueue: suite.taskQueue, workflowId, args });

test('a burst of signals, many landing while a workflow task runs, is delivered in full', async (t) => {
  const id = uniqueId('signals');
  const handle = await start('counterWorkflow', id, [20]);
  await Promise.all(Array.from({ length: 20 }, (_, i) => handle.signal('add', i + 1)));
  t.deepEqual(await handle.result(), { sum: 210, count: 20 });
  const types = await eventTypes(suite.client, id);
  t.is(types.filter((type) => type === 'WORKFLOW_EXECUTION_SIGNALED').length, 20);
  await assertReplays(t, suite, [id]);
});

test('signal-with-start starts the workflow once, then signals the running run', async (t) => {
  const id = uniqueId('signal-with-start');
  const options = { taskQueue: suite.taskQueue, workflowId: id, args: [2], signal: 'add', signalArgs: [7] };
  const first = await suite.client.workflow.signalWithStart('counterWorkflow', options);
  const second = await suite.client.workflow.signalWithStart('counterWorkflow', { ...options, signalArgs: [8] });
  t.is(second.signaledRunId, first.signaledRunId);
  t.deepEqual(await first.result(), { sum: 15, count: 2 });
  await assertReplays(t, suite, [id]);
});

test('a query is answered from the workflow state', async (t) => {
  const id = uniqueId('query');
  const handle = await start('counterWorkflow', id, [2]);
  t.is(await handle.query('status'), 'received 0 of 2');
  await handle.signal('add', 5);
  t.is(await handle.query('status'), 'received 1 of 2');
  await handle.signal('add', 5);
  t.deepEqual(await handle.result(), { sum: 10, count: 2 });
  // queries still work on a closed workflow
  t.is(await handle.query('status'), 'received 2 of 2');
  await assertReplays(t, suite, [id]);
});

test('a query the workflow does not know is refused', async (t) => {
  const id = uniqueId('query-unknown');
  const handle = await start('counterWorkflow', id, [1]);
  const error = await t.throwsAsync(handle.query('no-such-query'));
  t.regex(error!.message, /no-such-query/);
  await handle.terminate('done');
});

test('updates are accepted and completed, and a validator rejection leaves no trace in history', async (t) => {
  const id = uniqueId('update');
  const handle = await start('updatableWorkflow', id);
  t.is(await handle.executeUpdate('setDiscount', { args: [10] }), 0);
  t.is(await handle.executeUpdate('setDiscount', { args: [20] }), 10);
  const before = await eventTypes(suite.client, id);
  const rejected = await t.throwsAsync(handle.executeUpdate('setDiscount', { args: [90] }), {
    instanceOf: WorkflowUpdateFailedError,
  });
  t.regex(rejected!.cause!.message, /over the 50% limit/);
  // as on the real server, the task that carried it was speculative and is dropped: not even its workflow task
  t.deepEqual(await eventTypes(suite.client, id), before);
  // an update started without waiting, then polled for its outcome
  const pending = await handle.startUpdate('setDiscount', { args: [30], waitForStage: 'ACCEPTED' });
  t.is(await pending.result(), 20);
  await handle.signal('finish');
  t.is(await handle.result(), 30);
  const types = await eventTypes(suite.client, id);
  t.is(types.filter((type) => type === 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED').length, 3);
  t.is(types.filter((type) => type === 'WORKFLOW_EXECUTION_UPDATE_COMPLETED').length, 3);
  await assertReplays(t, suite, [id]);
});

test('cancelling a workflow cancels its running activity, lets cleanup run, and ends it Canceled', async (t) => {
  const id = uniqueId('cancel');
  const handle = await start('cancellableWorkflow', id);
  // wait until the activity is running on the worker
  for (let i = 0; i < 100; i++) {
    const described = await handle.describe();
    if (described.raw.pendingActivities?.some((a) => a.state === 2)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await handle.cancel();
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(error!.cause instanceof CancelledFailure);
  t.is((await handle.describe()).status.name, 'CANCELLED');
  const types = await eventTypes(suite.client, id);
  t.true(types.includes('ACTIVITY_TASK_CANCEL_REQUESTED'));
  t.true(types.includes('ACTIVITY_TASK_CANCELED'));
  t.is(types.filter((type) => type === 'ACTIVITY_TASK_COMPLETED').length, 1, 'the cleanup activity ran');
  await assertReplays(t, suite, [id]);
});

test('terminating a workflow ends it at once with the reason', async (t) => {
  const id = uniqueId('terminate');
  const handle = await start('waitForeverWorkflow', id);
  await handle.terminate('ops said stop');
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(error!.cause instanceof TerminatedFailure);
  t.is(error!.cause!.message, 'ops said stop');
  t.is((await handle.describe()).status.name, 'TERMINATED');
  await t.throwsAsync(handle.signal('add', 1), { message: /already completed/ });
  await assertReplays(t, suite, [id]);
});

test('continue-as-new starts a new run of the same workflow id, and the client follows it', async (t) => {
  const id = uniqueId('chain');
  const handle = await start('chainWorkflow', id, [0, 3]);
  const result = (await handle.result()) as { step: number; firstRunId: string; runId: string };
  t.is(result.step, 3);
  t.is(result.firstRunId, handle.firstExecutionRunId);
  t.not(result.runId, handle.firstExecutionRunId);
  const runs = suite.client.workflow.list({ query: `WorkflowId = '${id}'` });
  const statuses = [];
  for await (const run of runs) statuses.push(run.status.name);
  t.deepEqual(statuses.sort(), ['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);
  await assertReplays(t, suite, [id]);
});

test('a workflow that throws fails with its ApplicationFailure', async (t) => {
  const id = uniqueId('fail');
  const handle = await start('failingWorkflow', id);
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(error!.cause instanceof ApplicationFailure);
  t.is((error!.cause as ApplicationFailure).type, 'OrderRejected');
  await assertReplays(t, suite, [id]);
});
