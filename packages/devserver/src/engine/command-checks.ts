/**
 * The real server's checks of a workflow task completion's commands, made before anything is written.
 *
 * First the sequence: a close command (complete, fail, cancel, continue-as-new) that is not the last command
 * rejects the completion as a whole — INVALID_ARGUMENT, nothing written, the task left to time out. Then each
 * command in order, seeing what the commands before it leave (a timer started earlier in the completion is
 * running; an activity asked to cancel cannot be asked again):
 *
 * 1. a close command while events wait for the workflow to see them: UNHANDLED_COMMAND;
 * 2. its attributes — what is required, ids within the id length limit, durations not negative, retry policies,
 *    search attributes (how many, registered, typed): the command's BAD_*_ATTRIBUTES cause (BAD_SEARCH_ATTRIBUTES
 *    for search attributes, BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE for protocol messages);
 * 3. its sizes (./limits.ts): over a limit, the run is terminated;
 * 4. the run's state: a timer or activity id in use (START_TIMER_DUPLICATE_ID, SCHEDULE_ACTIVITY_DUPLICATE_ID); a
 *    timer or an activity to cancel that is not there, or an activity asked to cancel already
 *    (BAD_CANCEL_TIMER_ATTRIBUTES, BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES).
 *
 * A broken rule fails the workflow task with its cause (./task-refusals.ts), and the task is retried.
 */
import { CompletionRejected, RpcError } from '../errors.js';
import type { Execution } from '../execution.js';
import { CommandType, durationError, durationToMs, EventType, WorkflowTaskFailedCause as Cause } from '../proto.js';
import type { SearchAttributes } from '../proto.js';
import type proto from '@temporalio/proto';
import { validateSearchAttributes } from '../visibility/search-attributes.js';
import type { EngineContext } from './context.js';
import { checkCommandSizes, searchAttributesCountError } from './limits.js';
import { retryPolicyError } from './retry.js';
import { failTask } from './task-refusals.js';
import type { DecodedMessage } from './updates.js';

type Command = proto.temporal.api.command.v1.ICommand;
type TaskQueue = proto.temporal.api.taskqueue.v1.ITaskQueue;

/** The real server's `limit.maxIDLength`: timer, activity and marker ids, types, task queue names. */
const MAX_ID_LENGTH = 1000;
/** Task queues the real server keeps for itself. */
const RESERVED_TASK_QUEUE_PREFIX = '/_sys/';

export const CLOSE_COMMANDS: ReadonlySet<number> = new Set<number>([
  CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
]);

const ACTIVITY_CLOSED = new Set<number>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
]);

const commandName = (type: number) => (CommandType[type] ?? String(type)).replace('COMMAND_TYPE_', '');

/** A close command must be the last: otherwise the whole completion is rejected. */
export function checkCommandSequence(commands: Command[]): void {
  const close = commands.findIndex((command) => CLOSE_COMMANDS.has(command.commandType ?? 0));
  if (close >= 0 && close < commands.length - 1)
    throw new CompletionRejected(
      `invalid command sequence [${commands.map((c) => commandName(c.commandType ?? 0)).join(', ')}]: ${commandName(commands[close]!.commandType!)} closes the workflow and must be the last command`,
    );
}

/** A fired timer's TimerFired event still waiting for the workflow task to complete. */
function waitingTimerFired(execution: Execution, timerId: string): number {
  return execution.buffered.findIndex(
    (event) => event.eventType === EventType.EVENT_TYPE_TIMER_FIRED && event.attributes.timerId === timerId,
  );
}

/**
 * Cancelling a timer that fired while the workflow task ran: its TimerFired, not yet written, is dropped, as the
 * real server drops it. Returns the timer's TimerStarted event id, for the TimerCanceled event.
 */
export function takeWaitingTimerFired(execution: Execution, timerId: string): number | undefined {
  const index = waitingTimerFired(execution, timerId);
  if (index < 0) return undefined;
  const [fired] = execution.buffered.splice(index, 1);
  return Number(fired!.attributes.startedEventId);
}

/** What the checked commands leave of the run: its running timers, pending activities and waiting events. */
export class CommandChecks {
  private readonly runningTimers: Set<string>;
  private readonly pendingActivityIds: Set<string>;
  /** Pending activities by scheduled event id. */
  private readonly activities = new Map<number, { activityId: string; started: boolean; cancelRequested: boolean }>();
  private readonly firedTimersWaiting = new Set<string>();
  /** Activities whose closing event waits for the workflow task to complete: a cancel request for them is still recorded. */
  private readonly closedActivitiesWaiting = new Set<number>();
  private eventsWaiting: number;

  constructor(
    private readonly ctx: EngineContext,
    private readonly execution: Execution,
    private readonly messages: Map<string, DecodedMessage>,
  ) {
    this.runningTimers = new Set(execution.timers.keys());
    this.pendingActivityIds = new Set();
    for (const activity of execution.activities.values()) {
      this.pendingActivityIds.add(activity.activityId);
      this.activities.set(activity.scheduledEventId, {
        activityId: activity.activityId,
        started: activity.state === 'started',
        cancelRequested: activity.cancelRequestedEventId !== undefined,
      });
    }
    for (const event of execution.buffered) {
      if (event.eventType === EventType.EVENT_TYPE_TIMER_FIRED)
        this.firedTimersWaiting.add(String(event.attributes.timerId));
      if (ACTIVITY_CLOSED.has(event.eventType))
        this.closedActivitiesWaiting.add(Number(event.attributes.scheduledEventId));
    }
    this.eventsWaiting = execution.buffered.length;
  }

  /** Throws a WorkflowTaskRefusal for the first rule the command breaks (see the module comment for the order). */
  check(command: Command): void {
    const type = command.commandType ?? 0;
    if (CLOSE_COMMANDS.has(type) && this.eventsWaiting > 0)
      throw failTask(Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND);
    this.checkAttributes(command);
    checkCommandSizes(this.ctx.options.limits, command, this.execution, this.ctx.log);
    this.checkAgainstRun(command);
  }

  private checkAttributes(command: Command): void {
    switch (command.commandType) {
      case CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK:
        return this.checkScheduleActivity(command.scheduleActivityTaskCommandAttributes);
      case CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK: {
        const attrs = command.requestCancelActivityTaskCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'RequestCancelActivityTask: the command has no attributes');
        if (Number(attrs.scheduledEventId ?? 0) <= 0)
          throw failTask(cause, 'RequestCancelActivityTask: scheduledEventId is required');
        return;
      }
      case CommandType.COMMAND_TYPE_START_TIMER: {
        const attrs = command.startTimerCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_TIMER_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'StartTimer: the command has no attributes');
        requireId(cause, 'StartTimer.timerId', attrs.timerId);
        const problem = durationError(attrs.startToFireTimeout);
        if (problem) throw failTask(cause, `StartTimer.startToFireTimeout ${problem} (timer ${attrs.timerId})`);
        return;
      }
      case CommandType.COMMAND_TYPE_CANCEL_TIMER: {
        const attrs = command.cancelTimerCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_TIMER_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'CancelTimer: the command has no attributes');
        return requireId(cause, 'CancelTimer.timerId', attrs.timerId);
      }
      case CommandType.COMMAND_TYPE_RECORD_MARKER: {
        const attrs = command.recordMarkerCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_RECORD_MARKER_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'RecordMarker: the command has no attributes');
        return requireId(cause, 'RecordMarker.markerName', attrs.markerName);
      }
      case CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
        if (!command.completeWorkflowExecutionCommandAttributes)
          throw failTask(
            Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_COMPLETE_WORKFLOW_EXECUTION_ATTRIBUTES,
            'CompleteWorkflowExecution: the command has no attributes',
          );
        return;
      case CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION: {
        const attrs = command.failWorkflowExecutionCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'FailWorkflowExecution: the command has no attributes');
        if (!attrs.failure) throw failTask(cause, 'FailWorkflowExecution.failure is required');
        return;
      }
      case CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
        if (!command.cancelWorkflowExecutionCommandAttributes)
          throw failTask(
            Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_WORKFLOW_EXECUTION_ATTRIBUTES,
            'CancelWorkflowExecution: the command has no attributes',
          );
        return;
      case CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
        return this.checkContinueAsNew(command.continueAsNewWorkflowExecutionCommandAttributes);
      case CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const attrs = command.upsertWorkflowSearchAttributesCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'UpsertWorkflowSearchAttributes: the command has no attributes');
        if (!Object.keys(attrs.searchAttributes?.indexedFields ?? {}).length)
          throw failTask(
            cause,
            'UpsertWorkflowSearchAttributes.searchAttributes.indexedFields must name at least one attribute',
          );
        return this.checkSearchAttributes('UpsertWorkflowSearchAttributes', attrs.searchAttributes);
      }
      case CommandType.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
        const attrs = command.modifyWorkflowPropertiesCommandAttributes;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES;
        if (!attrs) throw failTask(cause, 'ModifyWorkflowProperties: the command has no attributes');
        if (!Object.keys(attrs.upsertedMemo?.fields ?? {}).length)
          throw failTask(cause, 'ModifyWorkflowProperties.upsertedMemo.fields must name at least one field');
        return;
      }
      case CommandType.COMMAND_TYPE_PROTOCOL_MESSAGE: {
        const messageId = command.protocolMessageCommandAttributes?.messageId;
        const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE;
        if (!messageId) throw failTask(cause, 'ProtocolMessage.messageId is required');
        if (!this.messages.has(messageId))
          throw failTask(cause, `ProtocolMessage: message ${messageId} is not among the completion's messages`);
        return;
      }
      default:
        return;
    }
  }

  private checkScheduleActivity(attrs: Command['scheduleActivityTaskCommandAttributes']): void {
    const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES;
    if (!attrs) throw failTask(cause, 'ScheduleActivityTask: the command has no attributes');
    if (!attrs.taskQueue?.name) throw failTask(cause, 'ScheduleActivityTask.taskQueue.name is required');
    checkTaskQueue(cause, 'ScheduleActivityTask.taskQueue.name', attrs.taskQueue);
    requireId(cause, 'ScheduleActivityTask.activityId', attrs.activityId);
    requireId(cause, 'ScheduleActivityTask.activityType.name', attrs.activityType?.name);
    const retryProblem = retryPolicyError(attrs.retryPolicy);
    if (retryProblem) throw failTask(cause, `ScheduleActivityTask.${retryProblem}`);
    for (const field of [
      'scheduleToCloseTimeout',
      'scheduleToStartTimeout',
      'startToCloseTimeout',
      'heartbeatTimeout',
    ] as const) {
      const problem = durationError(attrs[field]);
      if (problem) throw failTask(cause, `ScheduleActivityTask.${field} ${problem}`);
    }
    if (durationToMs(attrs.scheduleToCloseTimeout) <= 0 && durationToMs(attrs.startToCloseTimeout) <= 0)
      throw failTask(
        cause,
        `ScheduleActivityTask: a startToCloseTimeout or a scheduleToCloseTimeout is required (activity ${attrs.activityId}, type ${attrs.activityType?.name})`,
      );
  }

  private checkContinueAsNew(attrs: Command['continueAsNewWorkflowExecutionCommandAttributes']): void {
    const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CONTINUE_AS_NEW_ATTRIBUTES;
    if (!attrs) throw failTask(cause, 'ContinueAsNewWorkflowExecution: the command has no attributes');
    // an empty type or task queue is the run's own
    if (attrs.workflowType?.name)
      requireId(cause, 'ContinueAsNewWorkflowExecution.workflowType.name', attrs.workflowType.name);
    if (attrs.taskQueue?.name) checkTaskQueue(cause, 'ContinueAsNewWorkflowExecution.taskQueue.name', attrs.taskQueue);
    for (const field of ['workflowRunTimeout', 'workflowTaskTimeout', 'backoffStartInterval'] as const) {
      const problem = durationError(attrs[field]);
      if (problem) throw failTask(cause, `ContinueAsNewWorkflowExecution.${field} ${problem}`);
    }
    const retryProblem = retryPolicyError(attrs.retryPolicy);
    if (retryProblem) throw failTask(cause, `ContinueAsNewWorkflowExecution.${retryProblem}`);
    this.checkSearchAttributes('ContinueAsNewWorkflowExecution', attrs.searchAttributes);
  }

  /** How many, registered, of their registered types: BAD_SEARCH_ATTRIBUTES. */
  private checkSearchAttributes(command: string, searchAttributes: SearchAttributes | null | undefined): void {
    const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES;
    const countError = searchAttributesCountError(this.ctx.options.limits, searchAttributes);
    if (countError) throw failTask(cause, `${command}.${countError}`);
    const namespace = this.ctx.store.getNamespace(this.execution.namespace)!;
    try {
      validateSearchAttributes(searchAttributes, namespace.searchAttributes, namespace.name);
    } catch (error) {
      if (error instanceof RpcError) throw failTask(cause, `${command}: ${error.message}`);
      throw error;
    }
  }

  private checkAgainstRun(command: Command): void {
    switch (command.commandType) {
      case CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: {
        const activityId = command.scheduleActivityTaskCommandAttributes!.activityId!;
        if (this.pendingActivityIds.has(activityId))
          throw failTask(
            Cause.WORKFLOW_TASK_FAILED_CAUSE_SCHEDULE_ACTIVITY_DUPLICATE_ID,
            `ScheduleActivityTask: activityId ${activityId} is in use by a pending activity`,
          );
        this.pendingActivityIds.add(activityId);
        return;
      }
      case CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
        return this.cancelActivity(Number(command.requestCancelActivityTaskCommandAttributes!.scheduledEventId));
      case CommandType.COMMAND_TYPE_START_TIMER: {
        const timerId = command.startTimerCommandAttributes!.timerId!;
        if (this.runningTimers.has(timerId))
          throw failTask(
            Cause.WORKFLOW_TASK_FAILED_CAUSE_START_TIMER_DUPLICATE_ID,
            `StartTimer: timerId ${timerId} is in use by a running timer`,
          );
        this.runningTimers.add(timerId);
        return;
      }
      case CommandType.COMMAND_TYPE_CANCEL_TIMER: {
        const timerId = command.cancelTimerCommandAttributes!.timerId!;
        if (this.runningTimers.delete(timerId)) return;
        if (this.firedTimersWaiting.delete(timerId)) {
          this.eventsWaiting--; // its TimerFired is dropped: the workflow need not see it before it may close
          return;
        }
        throw failTask(
          Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_TIMER_ATTRIBUTES,
          `CancelTimer: timerId ${timerId} names no running timer`,
        );
      }
      default:
        return;
    }
  }

  private cancelActivity(scheduledEventId: number): void {
    const cause = Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES;
    const activity = this.activities.get(scheduledEventId);
    if (!activity) {
      if (this.closedActivitiesWaiting.has(scheduledEventId)) return;
      throw failTask(
        cause,
        `RequestCancelActivityTask: scheduledEventId ${scheduledEventId} names no pending activity`,
      );
    }
    if (activity.cancelRequested)
      throw failTask(
        cause,
        `RequestCancelActivityTask: the activity scheduled by event ${scheduledEventId} was asked to cancel already`,
      );
    activity.cancelRequested = true;
    // one not running on a worker is cancelled at once: its id is free again
    if (!activity.started) {
      this.activities.delete(scheduledEventId);
      this.pendingActivityIds.delete(activity.activityId);
    }
  }
}

function requireId(cause: number, field: string, value: string | null | undefined): void {
  if (!value) throw failTask(cause, `${field} is required`);
  if (value.length > MAX_ID_LENGTH)
    throw failTask(cause, `${field} is ${value.length} characters long, more than the limit of ${MAX_ID_LENGTH}`);
}

function checkTaskQueue(cause: number, field: string, taskQueue: TaskQueue): void {
  const name = taskQueue.name ?? '';
  if (name.length > MAX_ID_LENGTH)
    throw failTask(cause, `${field} is ${name.length} characters long, more than the limit of ${MAX_ID_LENGTH}`);
  if (name.startsWith(RESERVED_TASK_QUEUE_PREFIX))
    throw failTask(cause, `${field} ${name} starts with ${RESERVED_TASK_QUEUE_PREFIX}, which the server reserves`);
}
