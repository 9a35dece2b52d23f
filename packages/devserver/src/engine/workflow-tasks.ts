/**
 * Workflow tasks: scheduling one when the workflow has something new to see, handing it to a poller, its
 * timeouts, and its completion or failure; retries after a failure or timeout are transient (see
 * WorkflowTaskState). A sticky run's task (./sticky.ts) is offered on its worker's sticky queue with only the
 * events after the last completed task; one not taken there within the sticky schedule-to-start timeout times
 * out and goes to the normal queue, where a task always carries the full history. Commands in a completion
 * are applied by ./commands.ts, the answers to the queries it carried by ./queries.ts.
 */
import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.js';
import type { Execution, StickyQueue, WorkflowTaskState } from '../execution.js';
import {
  EventType,
  msToDuration,
  msToTimestamp,
  packAny,
  TaskQueueKind,
  TimeoutType,
  WorkflowTaskFailedCause,
} from '../proto.js';
import type proto from '@temporalio/proto';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { decodeToken, encodeToken } from './tokens.js';
import { applyCommands, checkCommands } from './commands.js';
import { CompletionRejected, RpcError, WorkflowTaskRefusal } from '../errors.js';
import { terminateForRefusedTask } from './executions.js';
import {
  applyUpdateMessage,
  decodeUpdateMessages,
  hasAdmittedUpdates,
  returnUnansweredUpdates,
  takeUpdateRequests,
  type DecodedMessage,
} from './updates.js';
import { answerBufferedQueries, bufferedQueries } from './queries.js';
import { currentTaskQueue, forgetSticky, liveStickyQueue, rememberSticky } from './sticky.js';
import { historySizeInfo } from './history-size.js';

/** A PollWorkflowTaskQueueResponse, as a plain object for protobufjs `fromObject`. */
export type PollWorkflowTaskResponse = object;
type CompleteRequest = proto.temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest;
/** A RespondWorkflowTaskCompletedResponse, as a plain object for protobufjs `fromObject`. */
type CompleteResponse = { resetHistoryEventId?: number };
type FailRequest = proto.temporal.api.workflowservice.v1.IRespondWorkflowTaskFailedRequest;

export function installWorkflowTasks(ctx: EngineContext): void {
  ctx.scheduleWorkflowTask = (execution, options) => scheduleWorkflowTask(ctx, execution, options);
}

/**
 * `speculative`: the task is only to deliver updates (the real server's speculative task, see WorkflowTaskState);
 * a retry is never speculative.
 */
export function scheduleWorkflowTask(
  ctx: EngineContext,
  execution: Execution,
  options: { speculative?: boolean } = {},
): void {
  // during a retry's backoff, signals and updates are recorded and wait for the first task
  if (execution.workflowTask || execution.firstTaskTimer !== undefined || !isRunning(execution)) return;
  const attempt = execution.nextWorkflowTaskAttempt;
  const attributes = {
    taskQueue: currentTaskQueue(execution),
    startToCloseTimeout: msToDuration(execution.workflowTaskTimeoutMs),
    attempt,
  };
  const speculative = options.speculative === true && attempt === 1;
  const transient = attempt > 1 || speculative;
  const event = transient
    ? ctx.makeEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, attributes)
    : ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, attributes);
  const task: WorkflowTaskState = {
    scheduledEventId: event.eventId,
    startedEventId: 0,
    attempt,
    state: 'scheduled',
    scheduledTime: ctx.clock.now(),
    transientEvents: transient ? [event] : undefined,
    ...(speculative ? { speculative } : {}),
  };
  execution.workflowTask = task;
  ctx.touch(execution);
  offerWorkflowTask(ctx, execution, task);
}

/**
 * A sticky run's task waits on its sticky queue, or (that worker gone) on the normal queue, for at most the
 * sticky schedule-to-start timeout; any other task waits on the normal queue.
 */
function offerWorkflowTask(ctx: EngineContext, execution: Execution, task: WorkflowTaskState): void {
  if (execution.sticky) {
    const { name, scheduleToStartMs } = execution.sticky;
    task.timeoutTimer = ctx.clock.at(task.scheduledTime + scheduleToStartMs, () =>
      stickyTaskTimedOut(ctx, execution, task, name),
    );
  }
  const sticky = liveStickyQueue(ctx, execution);
  if (sticky)
    ctx.matching.offer('sticky', execution.namespace, sticky.name, (identity) =>
      startWorkflowTask(ctx, execution, task, identity, sticky),
    );
  else
    ctx.matching.offer('workflow', execution.namespace, execution.taskQueue, (identity) =>
      startWorkflowTask(ctx, execution, task, identity),
    );
}

/** No worker took the task in time: recorded, as on the real server, and scheduled again on the normal queue. */
function stickyTaskTimedOut(
  ctx: EngineContext,
  execution: Execution,
  task: WorkflowTaskState,
  stickyQueue: string,
): void {
  if (execution.workflowTask !== task || task.state !== 'scheduled') return;
  ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
    scheduledEventId: task.scheduledEventId,
    startedEventId: 0,
    timeoutType: TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
  });
  ctx.log(
    `workflow task of ${execution.workflowId}/${execution.runId} not taken from sticky queue ${stickyQueue} in time: moved to the normal queue`,
  );
  endTask(ctx, execution, task, 1, true);
}

function armWorkflowTaskTimeout(ctx: EngineContext, execution: Execution, task: WorkflowTaskState): void {
  const startedTime = task.startedTime ?? ctx.clock.now();
  task.timeoutTimer = ctx.clock.at(startedTime + execution.workflowTaskTimeoutMs, () =>
    timeOutWorkflowTask(ctx, execution, task),
  );
}

/**
 * A run loaded from a durable store: a scheduled task is offered again; a started one (a worker held it
 * when the server stopped) keeps its start-to-close deadline, and times out and is retried when no
 * completion arrives, as on the real server.
 */
export function resumeWorkflowTask(ctx: EngineContext, execution: Execution): void {
  const task = execution.workflowTask;
  if (!task) return;
  if (task.state === 'scheduled') offerWorkflowTask(ctx, execution, task);
  else armWorkflowTaskTimeout(ctx, execution, task);
}

/** Hands the task to a poller of the normal queue, or of `sticky` (the run's sticky queue when it was offered). */
function startWorkflowTask(
  ctx: EngineContext,
  execution: Execution,
  task: WorkflowTaskState,
  identity: string,
  sticky?: StickyQueue,
): PollWorkflowTaskResponse | null {
  if (execution.workflowTask !== task || task.state !== 'scheduled' || !isRunning(execution)) return null;
  // stickiness ended since (reset, timeout): this task is the normal queue's now
  if (sticky && execution.sticky !== sticky) return null;
  // taken from the normal queue: the sticky worker is bypassed and must not be sent partial histories any more
  if (!sticky) forgetSticky(execution);
  ctx.clock.cancel(task.timeoutTimer);
  const startedEventId = execution.history.length + (task.transientEvents ? 2 : 1);
  const attributes = {
    scheduledEventId: task.scheduledEventId,
    identity,
    requestId: randomUUID(),
    ...historySizeInfo(execution, ctx.options.limits, startedEventId),
  };
  let started;
  if (task.transientEvents) {
    started = ctx.makeEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, attributes, {}, 1);
    task.transientEvents.push(started);
  } else {
    started = ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, attributes);
  }
  task.state = 'started';
  task.startedEventId = started.eventId;
  task.startedTime = ctx.clock.now();
  ctx.touch(execution);
  armWorkflowTaskTimeout(ctx, execution, task);
  // the sequencing id is the event before WorkflowTaskStarted, as on the real server
  const messages = takeUpdateRequests(execution, task.startedEventId - 1).map((m) => ({
    ...m,
    body: packAny('temporal.api.update.v1.Request', m.body),
  }));
  // the sticky worker has applied everything up to the last completed task's WorkflowTaskStarted
  const events = [
    ...execution.history.slice(sticky ? execution.lastCompletedStartedEventId : 0),
    ...(task.transientEvents ?? []),
  ];
  ctx.workflowTaskCounts[sticky ? 'sticky' : 'normal']++;
  ctx.workflowTaskCounts.events += events.length;
  return {
    taskToken: encodeToken({
      kind: 'workflow',
      runId: execution.runId,
      scheduledEventId: task.scheduledEventId,
      attempt: task.attempt,
      startedTime: task.startedTime,
    }),
    workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
    workflowType: { name: execution.workflowType },
    previousStartedEventId: execution.lastCompletedStartedEventId,
    startedEventId: task.startedEventId,
    attempt: task.attempt,
    backlogCountHint: 0,
    history: { events },
    nextPageToken: Buffer.alloc(0),
    workflowExecutionTaskQueue: { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    scheduledTime: msToTimestamp(task.scheduledTime),
    startedTime: msToTimestamp(task.startedTime),
    queries: bufferedQueries(ctx, execution),
    messages,
  };
}

function findStartedTask(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
): { execution: Execution; task: WorkflowTaskState } {
  const token = decodeToken(tokenBytes);
  const execution = token.kind === 'workflow' ? ctx.store.getRun(token.runId) : undefined;
  const task = execution?.workflowTask;
  if (
    token.kind !== 'workflow' ||
    !execution ||
    !task ||
    task.scheduledEventId !== token.scheduledEventId ||
    task.state !== 'started' ||
    (token.startedTime !== undefined && token.startedTime !== task.startedTime)
  )
    throw notFound('Workflow task not found (it timed out, failed, or the run has closed).');
  ctx.touch(execution);
  return { execution, task };
}

/**
 * Ends the current task and schedules the next one: retried (attempt + 1) or fresh (attempt 1). A sticky
 * run's task is not counted as a retry: stickiness ends and attempt 1 goes to the normal queue, as on the
 * real server (the worker dropped the run from its cache).
 */
function endTask(
  ctx: EngineContext,
  execution: Execution,
  task: WorkflowTaskState,
  nextAttempt: number,
  forceNew: boolean,
): void {
  ctx.clock.cancel(task.timeoutTimer);
  ctx.touch(execution);
  execution.workflowTask = undefined;
  execution.nextWorkflowTaskAttempt = forgetSticky(execution) ? 1 : nextAttempt;
  returnUnansweredUpdates(execution);
  const hadBuffered = ctx.flushBuffered(execution);
  if (forceNew || hadBuffered || nextAttempt > 1 || hasAdmittedUpdates(execution)) scheduleWorkflowTask(ctx, execution);
}

function timeOutWorkflowTask(ctx: EngineContext, execution: Execution, task: WorkflowTaskState): void {
  if (execution.workflowTask !== task) return;
  // a speculative task that times out is written, with its timeout, as on the real server
  if (task.speculative) ctx.writeTransientTask(execution);
  if (!task.transientEvents)
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
    });
  ctx.log(`workflow task of ${execution.workflowId}/${execution.runId} timed out (attempt ${task.attempt})`);
  endTask(ctx, execution, task, task.attempt + 1, true);
}

/**
 * A completion the server does not apply, answered as the real server answers it (the error goes back to the
 * worker): rejected as a whole, or refused on a retried task (attempt 2 on, for any cause but UNHANDLED_COMMAND),
 * nothing is written and the task is left to time out; otherwise the task fails, visibly in history, and is retried
 * — or, refused for its payload sizes, the run is terminated. A command this server does not implement fails the
 * task the same way.
 */
function refuseCompletion(
  ctx: EngineContext,
  execution: Execution,
  task: WorkflowTaskState,
  request: CompleteRequest,
  error: unknown,
): never {
  const refusal = error instanceof WorkflowTaskRefusal ? error : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const run = `${execution.workflowId}/${execution.runId}`;
  // events arrived while the worker decided to close: the workflow sees them first, in a fresh task
  const unhandled = refusal?.failedCause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND;
  if (error instanceof CompletionRejected || (refusal && task.attempt > 1 && !unhandled)) {
    ctx.log(`workflow task of ${run} (attempt ${task.attempt}) not applied, left to time out: ${message}`);
    throw error;
  }
  ctx.writeTransientTask(execution);
  ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
    scheduledEventId: task.scheduledEventId,
    startedEventId: task.startedEventId,
    cause: refusal?.failedCause ?? WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED,
    failure: refusal ? { message, serverFailureInfo: { nonRetryable: false } } : { message, source: 'devserver' },
    identity: request.identity,
    binaryChecksum: request.binaryChecksum,
  });
  ctx.log(`workflow task of ${run} refused: ${message}`, refusal && !refusal.terminatesRun ? 'info' : 'warn');
  if (refusal?.terminatesRun) terminateForRefusedTask(ctx, execution, message);
  else endTask(ctx, execution, task, unhandled ? 1 : task.attempt + 1, true);
  answerBufferedQueries(ctx, execution, request.queryResults ?? {});
  throw error instanceof RpcError ? error : new RpcError(13, message);
}

export function completeWorkflowTask(ctx: EngineContext, request: CompleteRequest): CompleteResponse {
  const { execution, task } = findStartedTask(ctx, request.taskToken);
  const commands = request.commands ?? [];
  const messages = decodeUpdateMessages(request.messages ?? []);
  try {
    checkCommands(ctx, execution, commands, messages);
  } catch (error) {
    refuseCompletion(ctx, execution, task, request, error);
  }
  if (leavesNoTrace(execution, task, request, messages)) return dropSpeculativeTask(ctx, execution, request, messages);
  ctx.writeTransientTask(execution);
  ctx.clock.cancel(task.timeoutTimer);
  const completed = ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, {
    scheduledEventId: task.scheduledEventId,
    startedEventId: task.startedEventId,
    identity: request.identity,
    binaryChecksum: request.binaryChecksum,
    workerVersion: request.workerVersionStamp,
    sdkMetadata: request.sdkMetadata,
    meteringMetadata: request.meteringMetadata,
    deployment: request.deployment,
    versioningBehavior: request.versioningBehavior,
  });
  execution.lastCompletedStartedEventId = task.startedEventId;
  execution.workflowTask = undefined;
  execution.nextWorkflowTaskAttempt = 1;
  rememberSticky(ctx, execution, request.stickyAttributes);
  const needsTask = applyCommands(
    ctx,
    execution,
    commands,
    messages,
    Number(completed.eventId),
    request.identity ?? '',
  );
  if (isRunning(execution)) {
    returnUnansweredUpdates(execution);
    const hadBuffered = ctx.flushBuffered(execution);
    if (needsTask || hadBuffered || request.forceCreateNewWorkflowTask) scheduleWorkflowTask(ctx, execution);
    // only updates to deliver: speculative, unless the commands wrote events the workflow has not seen in a task
    else if (hasAdmittedUpdates(execution))
      scheduleWorkflowTask(ctx, execution, { speculative: execution.history.length === Number(completed.eventId) });
  }
  answerBufferedQueries(ctx, execution, request.queryResults ?? {});
  return {};
}

/** How many events after the last completed task a speculative task may carry and still be dropped (the real server's default). */
const DROPPABLE_EVENTS_MAX = 10;

/**
 * The real server's rule: a speculative task that completes with no commands, no heartbeat and only update
 * rejections changed nothing, and is dropped — if no events came after the last completed task, or up to
 * DROPPABLE_EVENTS_MAX from an SDK that can be sent them again (DiscardSpeculativeWorkflowTaskWithEvents).
 */
function leavesNoTrace(
  execution: Execution,
  task: WorkflowTaskState,
  request: CompleteRequest,
  messages: Map<string, DecodedMessage>,
): boolean {
  if (!task.speculative || !task.transientEvents) return false;
  if (request.commands?.length || request.forceCreateNewWorkflowTask || execution.buffered.length) return false;
  const droppable = request.capabilities?.discardSpeculativeWorkflowTaskWithEvents ? DROPPABLE_EVENTS_MAX : 0;
  if (execution.history.length + 1 > execution.lastCompletedStartedEventId + 2 + droppable) return false;
  return [...messages.values()].every((message) => message.typeName === 'temporal.api.update.v1.Rejection');
}

/**
 * Drops the task: its events are never written, the rejections reach their callers, and the worker is told to roll
 * its history back to the last completed task (resetHistoryEventId), whose events it is sent again next time.
 */
function dropSpeculativeTask(
  ctx: EngineContext,
  execution: Execution,
  request: CompleteRequest,
  messages: Map<string, DecodedMessage>,
): CompleteResponse {
  const task = execution.workflowTask!;
  ctx.clock.cancel(task.timeoutTimer);
  ctx.touch(execution);
  execution.workflowTask = undefined;
  execution.nextWorkflowTaskAttempt = 1;
  rememberSticky(ctx, execution, request.stickyAttributes);
  for (const message of messages.values()) applyUpdateMessage(ctx, execution, message);
  returnUnansweredUpdates(execution);
  if (hasAdmittedUpdates(execution)) scheduleWorkflowTask(ctx, execution, { speculative: true });
  answerBufferedQueries(ctx, execution, request.queryResults ?? {});
  return { resetHistoryEventId: execution.lastCompletedStartedEventId };
}

export function failWorkflowTask(ctx: EngineContext, request: FailRequest): void {
  const { execution, task } = findStartedTask(ctx, request.taskToken);
  // a speculative task that fails is written, with its failure, as on the real server
  if (task.speculative) ctx.writeTransientTask(execution);
  // only the first failure is recorded; retries are transient and leave no trace until one completes
  if (!task.transientEvents)
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      cause: request.cause,
      failure: request.failure,
      identity: request.identity,
      binaryChecksum: request.binaryChecksum,
    });
  ctx.log(
    `workflow task of ${execution.workflowId}/${execution.runId} failed (attempt ${task.attempt}): ${request.failure?.message ?? ''}`,
  );
  endTask(ctx, execution, task, task.attempt + 1, true);
}
