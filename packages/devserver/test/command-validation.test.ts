/**
 * A workflow task completion with a command that breaks one of the real server's rules: the task fails with the
 * rule's cause (WorkflowTaskFailed, failure "<Cause>: <what is wrong>"), nothing of the completion is applied, the
 * worker is answered INVALID_ARGUMENT with that message, and the task is retried (attempt 2, transient). A retried
 * task refused again is dropped (nothing written, it times out); a close command that is not the last rejects the
 * completion as a whole; a close command while events wait fails the task with UNHANDLED_COMMAND.
 */
import test from 'ava';
import protoRoot from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { historyOf, rejection, typeNames } from './limits-support.js';
import type { HistoryEvent } from './limits-support.js';
import { completeTask, pollTask, signalRun, startRulesEnv, startRun } from './rules-support.js';
import type { RulesEnv } from './rules-support.js';
import { uniqueId } from './support.js';

const { CommandType: C, WorkflowTaskFailedCause: Cause } = protoRoot.temporal.api.enums.v1;
type Command = protoRoot.temporal.api.command.v1.ICommand;

let env: RulesEnv;
test.before(async () => {
  env = await startRulesEnv();
});
test.after.always(async () => {
  await env?.close();
});

const timer = (timerId: string, ms = 60_000): Command => ({
  commandType: C.COMMAND_TYPE_START_TIMER,
  startTimerCommandAttributes: { timerId, startToFireTimeout: msToTs(ms) },
});
const activity = (attrs: protoRoot.temporal.api.command.v1.IScheduleActivityTaskCommandAttributes): Command => ({
  commandType: C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
  scheduleActivityTaskCommandAttributes: {
    activityId: 'a1',
    activityType: { name: 'greet' },
    taskQueue: { name: 'acts' },
    startToCloseTimeout: msToTs('10s'),
    ...attrs,
  },
});
const complete: Command = {
  commandType: C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  completeWorkflowExecutionCommandAttributes: {},
};
const causeOf = (event: HistoryEvent | undefined) => Cause[event?.workflowTaskFailedEventAttributes?.cause ?? 0];

/** Starts a raw run, answers its first task with `commands`; the answer's error (if any) and the history after. */
async function firstCompletion(commands: Command[]) {
  const workflowId = uniqueId('rules');
  const taskQueue = uniqueId('raw');
  await startRun(env, workflowId, taskQueue);
  const task = await pollTask(env, taskQueue);
  const refused = await completeTask(env, task, commands).then(
    () => undefined,
    (error: { code?: number; details?: string }) => error,
  );
  return { workflowId, taskQueue, refused, events: await historyOf(env, workflowId) };
}

const refusals: [string, Command[], number, string][] = [
  [
    'an activity without a task queue',
    [activity({ taskQueue: null })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask.taskQueue.name is required',
  ],
  [
    'an activity without a type',
    [activity({ activityType: { name: '' } })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask.activityType.name is required',
  ],
  [
    'an activity without a start-to-close or schedule-to-close timeout',
    [activity({ startToCloseTimeout: null, scheduleToStartTimeout: msToTs('10s') })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask: a startToCloseTimeout or a scheduleToCloseTimeout is required (activity a1, type greet)',
  ],
  [
    'an activity with a negative heartbeat timeout',
    [activity({ heartbeatTimeout: msToTs(-5000) })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask.heartbeatTimeout must not be negative',
  ],
  [
    "an activity whose retry policy's maximum interval is under its initial interval",
    [activity({ retryPolicy: { initialInterval: msToTs('10s'), maximumInterval: msToTs('1s') } })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask.retryPolicy.maximumInterval must not be less than retryPolicy.initialInterval',
  ],
  [
    'an activity whose retry backoff coefficient is under 1',
    [activity({ retryPolicy: { backoffCoefficient: 0.5 } })],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
    'ScheduleActivityTask.retryPolicy.backoffCoefficient must be 1 or more',
  ],
  [
    'two activities with one id',
    [activity({}), activity({})],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_SCHEDULE_ACTIVITY_DUPLICATE_ID,
    'ScheduleActivityTask: activityId a1 is in use by a pending activity',
  ],
  [
    'a timer with a negative timeout',
    [timer('t1', -1000)],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_TIMER_ATTRIBUTES,
    'StartTimer.startToFireTimeout must not be negative (timer t1)',
  ],
  [
    'a timer without an id',
    [timer('')],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_TIMER_ATTRIBUTES,
    'StartTimer.timerId is required',
  ],
  [
    'two timers with one id',
    [timer('t1'), timer('t1')],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_START_TIMER_DUPLICATE_ID,
    'StartTimer: timerId t1 is in use by a running timer',
  ],
  [
    'cancelling a timer that is not running',
    [{ commandType: C.COMMAND_TYPE_CANCEL_TIMER, cancelTimerCommandAttributes: { timerId: 'nope' } }],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_TIMER_ATTRIBUTES,
    'CancelTimer: timerId nope names no running timer',
  ],
  [
    'cancelling an activity that is not pending',
    [
      {
        commandType: C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK,
        requestCancelActivityTaskCommandAttributes: { scheduledEventId: 2 as never },
      },
    ], // int64: protobufjs takes a number
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES,
    'RequestCancelActivityTask: scheduledEventId 2 names no pending activity',
  ],
  [
    'a marker without a name',
    [{ commandType: C.COMMAND_TYPE_RECORD_MARKER, recordMarkerCommandAttributes: { markerName: '' } }],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_RECORD_MARKER_ATTRIBUTES,
    'RecordMarker.markerName is required',
  ],
  [
    'completing without attributes',
    [{ commandType: C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION }],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_COMPLETE_WORKFLOW_EXECUTION_ATTRIBUTES,
    'CompleteWorkflowExecution: the command has no attributes',
  ],
  [
    'failing without a failure',
    [{ commandType: C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION, failWorkflowExecutionCommandAttributes: {} }],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES,
    'FailWorkflowExecution.failure is required',
  ],
  [
    'continuing as new with a negative run timeout',
    [
      {
        commandType: C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
        continueAsNewWorkflowExecutionCommandAttributes: { workflowRunTimeout: msToTs(-1000) },
      },
    ],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CONTINUE_AS_NEW_ATTRIBUTES,
    'ContinueAsNewWorkflowExecution.workflowRunTimeout must not be negative',
  ],
  [
    'continuing as new with a negative maximum attempts',
    [
      {
        commandType: C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
        continueAsNewWorkflowExecutionCommandAttributes: { retryPolicy: { maximumAttempts: -1 } },
      },
    ],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CONTINUE_AS_NEW_ATTRIBUTES,
    'ContinueAsNewWorkflowExecution.retryPolicy.maximumAttempts must not be negative',
  ],
  [
    'continuing as new with an unregistered search attribute',
    [
      {
        commandType: C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
        continueAsNewWorkflowExecutionCommandAttributes: {
          searchAttributes: { indexedFields: { Unknown: { data: Buffer.from('"x"') } } },
        },
      },
    ],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES,
    'ContinueAsNewWorkflowExecution: search attribute Unknown is not registered in namespace default; register it with AddSearchAttributes',
  ],
  [
    'upserting no search attribute',
    [
      {
        commandType: C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        upsertWorkflowSearchAttributesCommandAttributes: { searchAttributes: {} },
      },
    ],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES,
    'UpsertWorkflowSearchAttributes.searchAttributes.indexedFields must name at least one attribute',
  ],
  [
    'modifying no memo field',
    [
      {
        commandType: C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES,
        modifyWorkflowPropertiesCommandAttributes: { upsertedMemo: { fields: {} } },
      },
    ],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES,
    'ModifyWorkflowProperties.upsertedMemo.fields must name at least one field',
  ],
  [
    'a protocol message command whose message is not in the completion',
    [{ commandType: C.COMMAND_TYPE_PROTOCOL_MESSAGE, protocolMessageCommandAttributes: { messageId: 'm1' } }],
    Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE,
    "ProtocolMessage: message m1 is not among the completion's messages",
  ],
];

for (const [what, commands, cause, detail] of refusals) {
  test(`${what} fails the workflow task with ${Cause[cause]}`, async (t) => {
    // a valid timer first: nothing of a refused completion is applied
    const { taskQueue, refused, events } = await firstCompletion([timer('before'), ...commands]);
    const causeName = Cause[cause]!.replace('WORKFLOW_TASK_FAILED_CAUSE_', '')
      .toLowerCase()
      .replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
    const message = `${causeName}: ${detail}`;
    t.like(refused, { code: 3, details: message });
    t.deepEqual(typeNames(events), [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_FAILED',
    ]);
    t.is(causeOf(events[3]), Cause[cause]);
    t.like(events[3]!.workflowTaskFailedEventAttributes?.failure, {
      message,
      serverFailureInfo: { nonRetryable: false },
    });
    const retry = await pollTask(env, taskQueue);
    t.is(retry.attempt, 2, 'the task is retried');
  });
}

test('a timer id in use by a timer started in an earlier workflow task fails the task (START_TIMER_DUPLICATE_ID)', async (t) => {
  const { workflowId, taskQueue, refused } = await firstCompletion([timer('t1')]);
  t.is(refused, undefined);
  await signalRun(env, workflowId);
  const second = await pollTask(env, taskQueue);
  t.like(await rejection(completeTask(env, second, [timer('t1')])), {
    code: 3,
    details: 'StartTimerDuplicateId: StartTimer: timerId t1 is in use by a running timer',
  });
  const events = await historyOf(env, workflowId);
  t.is(causeOf(events.at(-1)), 'WORKFLOW_TASK_FAILED_CAUSE_START_TIMER_DUPLICATE_ID');
  t.is(typeNames(events).filter((name) => name === 'TIMER_STARTED').length, 1);
});

test('an activity id that was cancelled earlier in the same completion may be used again', async (t) => {
  const { workflowId, taskQueue } = await firstCompletion([activity({})]);
  await signalRun(env, workflowId);
  const second = await pollTask(env, taskQueue);
  const scheduledEventId = (await historyOf(env, workflowId)).find(
    (e) => e.activityTaskScheduledEventAttributes,
  )!.eventId;
  await completeTask(env, second, [
    {
      commandType: C.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK,
      requestCancelActivityTaskCommandAttributes: { scheduledEventId },
    },
    activity({}),
  ]);
  const names = typeNames(await historyOf(env, workflowId));
  // the cancelled activity is a new event for the workflow: a workflow task follows
  t.deepEqual(names.slice(-4), [
    'ACTIVITY_TASK_CANCEL_REQUESTED',
    'ACTIVITY_TASK_CANCELED',
    'ACTIVITY_TASK_SCHEDULED',
    'WORKFLOW_TASK_SCHEDULED',
  ]);
});

test('a timer of zero duration is accepted, and fires at once', async (t) => {
  const { workflowId, refused } = await firstCompletion([timer('now', 0)]);
  t.is(refused, undefined);
  for (let i = 0; i < 50 && !typeNames(await historyOf(env, workflowId)).includes('TIMER_FIRED'); i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.true(typeNames(await historyOf(env, workflowId)).includes('TIMER_FIRED'));
});

test('a close command that is not the last rejects the completion as a whole: nothing is written, the task times out', async (t) => {
  const { taskQueue, workflowId, refused, events } = await firstCompletion([complete, timer('after')]);
  t.is(refused?.code, 3);
  t.is(
    refused?.details,
    'invalid command sequence [COMPLETE_WORKFLOW_EXECUTION, START_TIMER]: COMPLETE_WORKFLOW_EXECUTION closes the workflow and must be the last command',
  );
  t.deepEqual(typeNames(events), ['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED']);
  const retry = await pollTask(env, taskQueue); // after the 1 s workflow task timeout
  t.is(retry.attempt, 2);
  t.is(typeNames(await historyOf(env, workflowId)).at(-1), 'WORKFLOW_TASK_TIMED_OUT');
});

test('a retried workflow task refused again is dropped: nothing is written and the task times out', async (t) => {
  const { workflowId, taskQueue, refused } = await firstCompletion([timer('t1', -1)]);
  t.is(refused?.code, 3);
  const retry = await pollTask(env, taskQueue);
  t.is(retry.attempt, 2);
  t.like(await rejection(completeTask(env, retry, [timer('t1', -1)])), { code: 3 });
  t.is(
    typeNames(await historyOf(env, workflowId)).filter((name) => name === 'WORKFLOW_TASK_FAILED').length,
    1,
    'only the first failure is recorded',
  );
  const third = await pollTask(env, taskQueue); // after the 1 s workflow task timeout
  t.is(third.attempt, 3);
});

test('a close command while a signal waits fails the task with UNHANDLED_COMMAND, answered as the real server answers it', async (t) => {
  const workflowId = uniqueId('unhandled');
  const taskQueue = uniqueId('raw');
  await startRun(env, workflowId, taskQueue);
  const task = await pollTask(env, taskQueue);
  await signalRun(env, workflowId);
  t.like(await rejection(completeTask(env, task, [complete])), { code: 3, details: 'UnhandledCommand' });
  const events = await historyOf(env, workflowId);
  t.deepEqual(typeNames(events).slice(3), [
    'WORKFLOW_TASK_FAILED',
    'WORKFLOW_EXECUTION_SIGNALED',
    'WORKFLOW_TASK_SCHEDULED',
  ]);
  t.is(causeOf(events[3]), 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND');
  const next = await pollTask(env, taskQueue);
  t.is(next.attempt, 1);
  await completeTask(env, next, [complete]);
  t.is(typeNames(await historyOf(env, workflowId)).at(-1), 'WORKFLOW_EXECUTION_COMPLETED');
});

test('cancelling a timer that fired while the task ran drops its TimerFired, and the workflow may close in the same completion', async (t) => {
  const workflowId = uniqueId('fired');
  const taskQueue = uniqueId('raw');
  await startRun(env, workflowId, taskQueue, { workflowTaskTimeoutSeconds: 10 });
  const first = await pollTask(env, taskQueue);
  await signalRun(env, workflowId); // waits for the first task: the second follows it at once
  await completeTask(env, first, [timer('t1', 1000)]);
  const second = await pollTask(env, taskQueue);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the timer fires while the second task is with the worker
  await completeTask(env, second, [
    { commandType: C.COMMAND_TYPE_CANCEL_TIMER, cancelTimerCommandAttributes: { timerId: 't1' } },
    complete,
  ]);
  const events = await historyOf(env, workflowId);
  t.false(typeNames(events).includes('TIMER_FIRED'));
  const started = events.find((e) => e.timerStartedEventAttributes)!;
  t.is(
    Number(events.find((e) => e.timerCanceledEventAttributes)?.timerCanceledEventAttributes?.startedEventId),
    Number(started.eventId),
  );
  t.is(typeNames(events).at(-1), 'WORKFLOW_EXECUTION_COMPLETED');
});

test("after a refused completion the SDK's worker takes the retried task, finishes the workflow, and the history replays", async (t) => {
  const workflowId = uniqueId('sdk-retry');
  const taskQueue = uniqueId('rules-sdk');
  await startRun(env, workflowId, taskQueue, {
    workflowType: 'timerThenActivityWorkflow',
    input: ['Ada'],
    workflowTaskTimeoutSeconds: 10,
  });
  const first = await pollTask(env, taskQueue);
  t.like(await rejection(completeTask(env, first, [timer('1', 10), timer('1', 10)])), { code: 3 }); // the real server refuses a timer id twice
  const result = await env.withWorker(taskQueue, () => env.client.workflow.getHandle(workflowId).result());
  t.is(result, 'Hello, Ada!');
  t.true(typeNames(await historyOf(env, workflowId)).includes('WORKFLOW_TASK_FAILED'));
  await env.assertReplays(t, [workflowId]);
});
