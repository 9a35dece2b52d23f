/**
 * Child workflows, and signals and cancel requests between workflows, with the real SDK worker: results and
 * failures reaching the parent, ids already taken, signals to a child and to other workflows, cancelling a
 * child, the parent close policies whatever closes the parent, a child that continues as new, time skipping
 * across parent and child, the events in both histories, Describe's parent and pending children. Every
 * history is replayed.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { fileURLToPath } from 'node:url';
import { assertReplays, eventTypes, historiesOf, startSuite, uniqueId } from './support.js';
import type { Suite } from './support.js';
import { until } from './durable-support.js';
import type { ParentClose } from './fixtures/child-workflows.js';

const { EventType, ParentClosePolicy, StartChildWorkflowExecutionFailedCause } = protoRoot.temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let suite: Suite;
test.before(async () => {
  suite = await startSuite(
    'devserver-children',
    fileURLToPath(new URL('./fixtures/child-workflows.ts', import.meta.url)),
  );
});
test.after.always(async () => {
  await suite?.stop();
});

/** Time only jumps while the whole server is idle: these run alone (and need the devserver's time skipping). */
const timeSkippingTest = process.env.TEMPORAL_ADDRESS ? test.serial.skip : test.serial;

const start = (workflowType: string, workflowId: string, args: unknown[] = [], extra: object = {}) =>
  suite.client.workflow.start(workflowType, { taskQueue: suite.taskQueue, workflowId, args, ...extra });
const handle = (workflowId: string, runId?: string) => suite.client.workflow.getHandle(workflowId, runId);
const events = async (workflowId: string, runId?: string) =>
  (await handle(workflowId, runId).fetchHistory()).events ?? [];
const typeName = (event: HistoryEvent) => String(EventType[event.eventType ?? 0]).replace('EVENT_TYPE_', '');
/** The first event of a type, and its attributes. */
function find(history: HistoryEvent[], type: string): { event: HistoryEvent; attributes: Record<string, any> } {
  const event = history.find((e) => typeName(e) === type);
  if (!event) throw new Error(`no ${type} in ${history.map(typeName).join(', ')}`);
  const key = `${type.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())}EventAttributes`;
  return { event, attributes: (event as Record<string, any>)[key] };
}
/** `expected` appear in this order among the run's events. */
async function assertEventsInOrder(t: ExecutionContext, workflowId: string, expected: string[]): Promise<void> {
  const types = await eventTypes(suite.client, workflowId);
  let at = 0;
  for (const type of types) if (type === expected[at]) at++;
  t.is(at, expected.length, `${expected.join(' → ')} in ${types.join(', ')}`);
}
const runIdOf = async (workflowId: string) => (await handle(workflowId).describe()).runId;
const statusOf = async (workflowId: string) => (await handle(workflowId).describe()).status.name;
const pendingChildren = async (workflowId: string) => (await handle(workflowId).describe()).raw.pendingChildren ?? [];

test("a child's result reaches its parent; the child's start event names its parent and root", async (t) => {
  const id = uniqueId('greet');
  t.deepEqual(
    await suite.client.workflow.execute('greetParent', { taskQueue: suite.taskQueue, workflowId: id, args: ['Ada'] }),
    {
      greeting: 'Hello, Ada!',
      parent: id,
      root: id,
    },
  );
  await assertEventsInOrder(t, id, [
    'WORKFLOW_TASK_COMPLETED',
    'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
    'CHILD_WORKFLOW_EXECUTION_STARTED',
    'WORKFLOW_TASK_SCHEDULED',
    'CHILD_WORKFLOW_EXECUTION_COMPLETED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  const parent = await events(id);
  const initiated = find(parent, 'START_CHILD_WORKFLOW_EXECUTION_INITIATED');
  t.is(initiated.attributes.workflowId, `${id}-child`);
  t.is(initiated.attributes.parentClosePolicy, ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE);
  const childRunId = await runIdOf(`${id}-child`);
  const completed = find(parent, 'CHILD_WORKFLOW_EXECUTION_COMPLETED').attributes;
  t.is(completed.workflowExecution.runId, childRunId);
  t.is(Number(completed.initiatedEventId), Number(initiated.event.eventId));
  t.is(Number(completed.startedEventId), Number(find(parent, 'CHILD_WORKFLOW_EXECUTION_STARTED').event.eventId));

  const childStarted = find(await events(`${id}-child`), 'WORKFLOW_EXECUTION_STARTED').attributes;
  t.like(childStarted.parentWorkflowExecution, { workflowId: id, runId: await runIdOf(id) });
  t.is(Number(childStarted.parentInitiatedEventId), Number(initiated.event.eventId));
  t.is(childStarted.parentWorkflowNamespace, suite.temporal.namespace);
  t.is(childStarted.rootWorkflowExecution.workflowId, id);
  await assertReplays(t, suite, [id, `${id}-child`]);
});

const childOutcome = test.macro(async (t, how: 'fail' | 'terminate' | 'timeout', eventType: string, cause: RegExp) => {
  const id = uniqueId(`child-${how}`);
  const parent =
    how === 'fail'
      ? await start('childOutcomeParent', id, ['failingChild'])
      : await start('childOutcomeParent', id, [
          'unblockable',
          how === 'timeout' ? { workflowExecutionTimeout: '1 hour' } : {},
        ]);
  if (how === 'terminate') {
    await until(async () => (await pendingChildren(id)).some((child) => child.runId), 'the child started');
    await handle(`${id}-child`).terminate('the test ends it');
  }
  const outcome = await parent.result();
  t.is(outcome.failure, 'Child Workflow execution failed');
  t.regex(outcome.cause, cause);
  await assertEventsInOrder(t, id, ['CHILD_WORKFLOW_EXECUTION_STARTED', eventType, 'WORKFLOW_EXECUTION_COMPLETED']);
  await assertReplays(t, suite, [id, `${id}-child`]);
});
test(
  "a child that fails fails the parent's executeChild with its failure",
  childOutcome,
  'fail',
  'CHILD_WORKFLOW_EXECUTION_FAILED',
  /^ApplicationFailure: the child broke$/,
);
test(
  'a child that is terminated is reported terminated',
  childOutcome,
  'terminate',
  'CHILD_WORKFLOW_EXECUTION_TERMINATED',
  /^TerminatedFailure/,
);
timeSkippingTest(
  'a child that times out is reported timed out (its timeout passed by time skipping)',
  childOutcome,
  'timeout',
  'CHILD_WORKFLOW_EXECUTION_TIMED_OUT',
  /^TimeoutFailure/,
);

test('a child whose workflow id is taken fails to start with WORKFLOW_ALREADY_EXISTS', async (t) => {
  const childId = uniqueId('taken');
  const taken = await start('unblockable', childId);
  const id = uniqueId('duplicate-parent');
  t.is(await (await start('duplicateChildParent', id, [childId])).result(), `already started: ${childId}`);
  const failed = find(await events(id), 'START_CHILD_WORKFLOW_EXECUTION_FAILED').attributes;
  t.is(
    failed.cause,
    StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
  );
  t.is(failed.workflowId, childId);
  t.deepEqual(await pendingChildren(id), []);
  await taken.signal('unblock', 'done');
  t.is(await taken.result(), 'done');
  await assertReplays(t, suite, [id, childId]);
});

test("a signal sent through the child's handle reaches the child, naming its sender", async (t) => {
  const id = uniqueId('signalling-parent');
  t.is(await (await start('signallingParent', id, ['from the parent'])).result(), 'from the parent');
  await assertEventsInOrder(t, id, [
    'CHILD_WORKFLOW_EXECUTION_STARTED',
    'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
    'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED',
    'CHILD_WORKFLOW_EXECUTION_COMPLETED',
  ]);
  const signaled = find(await events(`${id}-child`), 'WORKFLOW_EXECUTION_SIGNALED').attributes;
  t.is(signaled.signalName, 'unblock');
  t.is(signaled.identity, 'history-service');
  t.like(signaled.externalWorkflowExecution, { workflowId: id, runId: await runIdOf(id) });
  await assertReplays(t, suite, [id, `${id}-child`]);
});

test('signals and cancel requests to workflows that are not children are delivered; to a missing workflow they fail as not found', async (t) => {
  const signalTarget = await start('unblockable', uniqueId('signal-target'));
  const cancelTarget = await start('unblockable', uniqueId('cancel-target'));
  const id = uniqueId('messenger');
  const messenger = await start('messengerWorkflow', id, [
    signalTarget.workflowId,
    cancelTarget.workflowId,
    uniqueId('missing'),
  ]);
  t.deepEqual(await messenger.result(), {
    signalMissing: 'Unable to signal external workflow because it was not found',
    cancelMissing: 'Unable to cancel external workflow because not found',
  });
  t.is(await signalTarget.result(), 'from the messenger');
  await t.throwsAsync(cancelTarget.result(), { instanceOf: WorkflowFailedError });
  t.is(await statusOf(cancelTarget.workflowId), 'CANCELLED');
  const messengerEvents = await events(id);
  const cancelInitiated = find(messengerEvents, 'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED').event;
  const cancelRequested = find(await events(cancelTarget.workflowId), 'WORKFLOW_EXECUTION_CANCEL_REQUESTED').attributes;
  t.like(cancelRequested.externalWorkflowExecution, { workflowId: id, runId: messenger.firstExecutionRunId });
  t.is(Number(cancelRequested.externalInitiatedEventId), Number(cancelInitiated.eventId));
  await assertEventsInOrder(t, id, [
    'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
    'EXTERNAL_WORKFLOW_EXECUTION_SIGNALED',
    'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
    'EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED',
    'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED',
    'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED',
  ]);
  await assertReplays(t, suite, [id, signalTarget.workflowId, cancelTarget.workflowId]);
});

test('cancelling the scope that waits for a child cancels the child, and the parent learns it was cancelled', async (t) => {
  const id = uniqueId('cancelling-parent');
  t.is(await (await start('cancellingParent', id)).result(), 'child cancelled');
  t.is(await statusOf(`${id}-child`), 'CANCELLED');
  await assertEventsInOrder(t, id, [
    'CHILD_WORKFLOW_EXECUTION_STARTED',
    'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
    'EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED',
    'CHILD_WORKFLOW_EXECUTION_CANCELED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
  await assertReplays(t, suite, [id, `${id}-child`]);
});

type CloseHow = 'complete' | 'fail' | 'cancel' | 'terminate' | 'timeout' | 'continueAsNew';

/** Starts policyParent and closes it `how`; resolves once the parent's first run has closed. */
async function closeParent(
  t: ExecutionContext,
  id: string,
  how: CloseHow,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const close: ParentClose = how === 'complete' || how === 'fail' || how === 'continueAsNew' ? how : 'wait';
  const parent = await start('policyParent', id, [close], how === 'timeout' ? { workflowRunTimeout: '1 hour' } : {});
  if (how === 'cancel' || how === 'terminate') {
    await until(async () => (await pendingChildren(id)).length === 3, 'the parent started its children');
    await (how === 'cancel' ? parent.cancel() : parent.terminate('the test ends it'));
  }
  const firstRun = handle(id, parent.firstExecutionRunId);
  if (how === 'complete') await firstRun.result();
  else if (how === 'continueAsNew')
    await until(
      async () => (await firstRun.describe()).status.name === 'CONTINUED_AS_NEW',
      'the parent continued as new',
    );
  else await t.throwsAsync(firstRun.result(), { instanceOf: WorkflowFailedError });
  return parent;
}

const parentClosePolicies = test.macro(async (t, how: CloseHow) => {
  const id = uniqueId(`policies-${how}`);
  const parent = await closeParent(t, id, how);
  const terminated = find(await events(`${id}-terminate`), 'WORKFLOW_EXECUTION_TERMINATED').attributes;
  t.is(terminated.reason, 'by parent close policy');
  t.is(terminated.identity, 'history-service');
  await t.throwsAsync(handle(`${id}-cancel`).result(), { instanceOf: WorkflowFailedError });
  t.is(await statusOf(`${id}-cancel`), 'CANCELLED');
  const cancelRequested = find(await events(`${id}-cancel`), 'WORKFLOW_EXECUTION_CANCEL_REQUESTED').attributes;
  t.like(cancelRequested.externalWorkflowExecution, { workflowId: id, runId: parent.firstExecutionRunId });
  t.is(await statusOf(`${id}-abandon`), 'RUNNING');
  await handle(`${id}-abandon`).signal('unblock', 'on its own');
  t.is(await handle(`${id}-abandon`).result(), 'on its own');
  if (how === 'continueAsNew') {
    t.deepEqual(await pendingChildren(id), [], 'the new run has no children of its own');
    await parent.terminate('the test ends it');
  }
  await assertReplays(t, suite, [id, `${id}-terminate`, `${id}-cancel`, `${id}-abandon`]);
});
for (const how of ['complete', 'fail', 'cancel', 'terminate', 'continueAsNew'] as const)
  test(
    `when the parent closes (${how}), its children get their parent close policy: terminate, request cancel, abandon`,
    parentClosePolicies,
    how,
  );
timeSkippingTest(
  'when the parent times out, its children get their parent close policy: terminate, request cancel, abandon',
  parentClosePolicies,
  'timeout',
);

test("a child that continues as new stays the parent's child: its last run's result reaches the parent", async (t) => {
  const id = uniqueId('chain-parent');
  const result = await (await start('chainParent', id, [3])).result();
  const childId = `${id}-child`;
  const lastRunId = await runIdOf(childId);
  t.deepEqual(result, { step: 3, firstRunId: result.firstRunId, parent: id });
  t.not(result.firstRunId, lastRunId);
  const parent = await events(id);
  t.is(find(parent, 'CHILD_WORKFLOW_EXECUTION_STARTED').attributes.workflowExecution.runId, result.firstRunId);
  t.is(find(parent, 'CHILD_WORKFLOW_EXECUTION_COMPLETED').attributes.workflowExecution.runId, lastRunId);
  t.is((await handle(childId).describe()).parentExecution?.workflowId, id);
  await assertReplays(t, suite, [id, childId]);
});

timeSkippingTest('time skipping carries a child through a 3-day sleep while its parent waits', async (t) => {
  const id = uniqueId('sleepy-parent');
  const startedAt = Date.now();
  const sleptMs = await (await start('sleepyParent', id, ['3 days'])).result();
  t.true(sleptMs >= 3 * 24 * 3600_000, `the child's clock moved ${sleptMs} ms`);
  t.true(Date.now() - startedAt < 20_000, 'in seconds of real time');
  await assertReplays(t, suite, [id, `${id}-child`]);
});

timeSkippingTest(
  "a child on a cron schedule runs until its parent closes; its runs stay the parent's child and do not report to it",
  async (t) => {
    const id = uniqueId('cron-parent');
    await (await start('cronParent', id, ['@every 1h', 150 * 60_000])).result();
    const childId = `${id}-child`;
    const runs = await historiesOf(suite.client, childId);
    const closeTypes = runs.map((history) => typeName(history.events!.at(-1)!));
    t.true(runs.length >= 3, `${runs.length} runs`);
    t.deepEqual(closeTypes, [
      ...Array(runs.length - 1).fill('WORKFLOW_EXECUTION_COMPLETED'),
      'WORKFLOW_EXECUTION_TERMINATED',
    ]);
    t.is(find(runs.at(-1)!.events!, 'WORKFLOW_EXECUTION_TERMINATED').attributes.reason, 'by parent close policy');
    for (const history of runs)
      t.is(find(history.events!, 'WORKFLOW_EXECUTION_STARTED').attributes.parentWorkflowExecution?.workflowId, id);
    const parentTypes = await eventTypes(suite.client, id);
    t.true(parentTypes.includes('CHILD_WORKFLOW_EXECUTION_STARTED'));
    t.false(
      parentTypes.some(
        (type) => type.startsWith('CHILD_WORKFLOW_EXECUTION_') && type !== 'CHILD_WORKFLOW_EXECUTION_STARTED',
      ),
    );
    await assertReplays(t, suite, [id, childId]);
  },
);

test("Describe shows a parent's pending children and a child's parent and root", async (t) => {
  const id = uniqueId('waiting-parent');
  const parent = await start('waitingParent', id);
  const [child] = await until(async () => {
    const children = await pendingChildren(id);
    return children[0]?.runId ? children : undefined;
  }, 'the child started');
  const childId = `${id}-child`;
  const initiated = find(await events(id), 'START_CHILD_WORKFLOW_EXECUTION_INITIATED').event;
  t.like(child, {
    workflowId: childId,
    runId: await runIdOf(childId),
    workflowTypeName: 'unblockable',
    parentClosePolicy: ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE,
  });
  t.is(Number(child!.initiatedId), Number(initiated.eventId));
  const childDescription = await handle(childId).describe();
  t.deepEqual(childDescription.parentExecution, { workflowId: id, runId: parent.firstExecutionRunId });
  t.deepEqual(childDescription.rootExecution, { workflowId: id, runId: parent.firstExecutionRunId });
  const parentDescription = await parent.describe();
  t.is(parentDescription.parentExecution, undefined);
  t.deepEqual(parentDescription.rootExecution, { workflowId: id, runId: parent.firstExecutionRunId });

  await handle(childId).signal('unblock', 'done');
  await until(async () => (await pendingChildren(id)).length === 0, 'the child is no longer pending');
  await parent.signal('finish');
  t.is(await parent.result(), 'done');
  await assertReplays(t, suite, [id, childId]);
});
