/**
 * Applying the commands of a completed workflow task to the run's history. Commands are checked first
 * and refused as a whole (nothing written) when one is invalid or not implemented by this server.
 */
import { status } from '@grpc/grpc-js';
import { RpcError, unimplemented } from '../errors.js';
import type { Execution, TimerState } from '../execution.js';
import { CommandType, durationToMs, EventType, ExecutionStatus, timestampToMs } from '../proto.js';
import type proto from '@temporalio/proto';
import { packSearchAttributes } from '../packed-message.js';
import { mergeSearchAttributes } from '../visibility/search-attributes.js';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { requestActivityCancel, scheduleActivity } from './activities.js';
import { checkCommandSequence, CLOSE_COMMANDS, CommandChecks, takeWaitingTimerFired } from './command-checks.js';
import { close, completeWorkflow, continueAsNew, failWorkflow } from './executions.js';
import { applyUpdateMessage } from './updates.js';
import { initiateChild, validateStartChild } from './children.js';
import { initiateCancel, initiateSignal, validateCancelExternal, validateSignalExternal } from './external-requests.js';
import { carryOutInitiated } from './transfers.js';
import type { DecodedMessage } from './updates.js';

type Command = proto.temporal.api.command.v1.ICommand;

const SUPPORTED_COMMANDS = new Set<number>([
  ...CLOSE_COMMANDS,
  CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
  CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK,
  CommandType.COMMAND_TYPE_START_TIMER,
  CommandType.COMMAND_TYPE_CANCEL_TIMER,
  CommandType.COMMAND_TYPE_RECORD_MARKER,
  CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  CommandType.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES,
  CommandType.COMMAND_TYPE_PROTOCOL_MESSAGE,
  CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION,
]);

/** A user timer on the clock, at its absolute time (so one loaded from a durable store and already due fires at once). */
export function armTimer(ctx: EngineContext, execution: Execution, timer: TimerState): void {
  timer.handle = ctx.clock.at(timer.fireAt, () => {
    if (execution.timers.get(timer.timerId) !== timer) return;
    execution.timers.delete(timer.timerId);
    ctx.external(execution, [
      {
        eventType: EventType.EVENT_TYPE_TIMER_FIRED,
        attributes: { timerId: timer.timerId, startedEventId: timer.startedEventId },
      },
    ]);
  });
}

/**
 * Throws (before anything is written) when a command cannot be applied: a CompletionRejected (the whole
 * completion) or a WorkflowTaskRefusal (the task fails, or the run is terminated) from ./command-checks.ts, or
 * UNIMPLEMENTED for a command this server does not know.
 */
export function checkCommands(
  ctx: EngineContext,
  execution: Execution,
  commands: Command[],
  messages: Map<string, DecodedMessage>,
): void {
  checkCommandSequence(commands);
  const checks = new CommandChecks(ctx, execution, messages);
  for (const command of commands) {
    const type = command.commandType ?? 0;
    if (!SUPPORTED_COMMANDS.has(type))
      throw unimplemented(`devserver: workflow command ${CommandType[type] ?? type} is not implemented`);
    if (type === CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION)
      validateStartChild(ctx, execution, command.startChildWorkflowExecutionCommandAttributes);
    if (type === CommandType.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION)
      validateSignalExternal(ctx, command.signalExternalWorkflowExecutionCommandAttributes);
    if (type === CommandType.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION)
      validateCancelExternal(
        ctx,
        command.requestCancelExternalWorkflowExecutionCommandAttributes,
        commands.slice(0, commands.indexOf(command)),
      );
    checks.check(command);
  }
}

/** Applies the commands in order; returns whether the workflow needs another task right away. */
export function applyCommands(
  ctx: EngineContext,
  execution: Execution,
  commands: Command[],
  messages: Map<string, DecodedMessage>,
  completedEventId: number,
  identity: string,
): boolean {
  let needsTask = false;
  for (const command of commands) {
    if (!isRunning(execution)) break;
    needsTask = applyCommand(ctx, execution, command, messages, completedEventId, identity) || needsTask;
  }
  // acceptances/responses the worker sent without a protocol-message command still take effect
  if (isRunning(execution)) for (const message of messages.values()) applyUpdateMessage(ctx, execution, message);
  // children to start, signals and cancel requests to deliver: once every command is applied (./transfers.ts)
  return carryOutInitiated(ctx, execution, completedEventId) || needsTask;
}

function applyCommand(
  ctx: EngineContext,
  execution: Execution,
  command: Command,
  messages: Map<string, DecodedMessage>,
  workflowTaskCompletedEventId: number,
  identity: string,
): boolean {
  const completed = { workflowTaskCompletedEventId };
  switch (command.commandType) {
    case CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK:
      scheduleActivity(
        ctx,
        execution,
        command.scheduleActivityTaskCommandAttributes!,
        workflowTaskCompletedEventId,
        command.userMetadata,
      );
      return false;
    case CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
      return requestActivityCancel(
        ctx,
        execution,
        Number(command.requestCancelActivityTaskCommandAttributes?.scheduledEventId ?? 0),
        workflowTaskCompletedEventId,
      );
    case CommandType.COMMAND_TYPE_START_TIMER: {
      const attrs = command.startTimerCommandAttributes!;
      const timerId = attrs.timerId ?? '';
      const started = ctx.appendEvent(
        execution,
        EventType.EVENT_TYPE_TIMER_STARTED,
        { timerId, startToFireTimeout: attrs.startToFireTimeout, ...completed },
        command.userMetadata ? { userMetadata: command.userMetadata } : {},
      );
      const timer: TimerState = {
        timerId,
        startedEventId: Number(started.eventId),
        fireAt: timestampToMs(started.eventTime) + durationToMs(attrs.startToFireTimeout),
        handle: 0,
      };
      execution.timers.set(timerId, timer);
      armTimer(ctx, execution, timer);
      return false;
    }
    case CommandType.COMMAND_TYPE_CANCEL_TIMER: {
      const timerId = command.cancelTimerCommandAttributes?.timerId ?? '';
      const timer = execution.timers.get(timerId);
      if (timer) {
        ctx.clock.cancel(timer.handle);
        execution.timers.delete(timerId);
      }
      const startedEventId = timer ? timer.startedEventId : takeWaitingTimerFired(execution, timerId);
      ctx.appendEvent(execution, EventType.EVENT_TYPE_TIMER_CANCELED, {
        timerId,
        startedEventId,
        identity,
        ...completed,
      });
      return false;
    }
    case CommandType.COMMAND_TYPE_RECORD_MARKER: {
      const attrs = command.recordMarkerCommandAttributes!;
      ctx.appendEvent(execution, EventType.EVENT_TYPE_MARKER_RECORDED, {
        markerName: attrs.markerName,
        details: attrs.details,
        header: attrs.header,
        failure: attrs.failure,
        ...completed,
      });
      return false;
    }
    case CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
      const searchAttributes = command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes;
      execution.searchAttributes = packSearchAttributes(
        mergeSearchAttributes(execution.searchAttributes.unpack(), searchAttributes),
      );
      ctx.appendEvent(execution, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
        searchAttributes,
        ...completed,
      });
      return false;
    }
    case CommandType.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
      const upsertedMemo = command.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo;
      const fields = { ...(execution.memo?.fields ?? {}) };
      for (const [key, value] of Object.entries(upsertedMemo?.fields ?? {})) {
        if (value.data?.length) fields[key] = value;
        else delete fields[key];
      }
      execution.memo = { fields };
      ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED, { upsertedMemo, ...completed });
      return false;
    }
    case CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
      completeWorkflow(
        ctx,
        execution,
        command.completeWorkflowExecutionCommandAttributes?.result,
        workflowTaskCompletedEventId,
      );
      return false;
    case CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION:
      failWorkflow(
        ctx,
        execution,
        command.failWorkflowExecutionCommandAttributes?.failure ?? { message: 'workflow failed' },
        workflowTaskCompletedEventId,
      );
      return false;
    case CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
      ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, {
        details: command.cancelWorkflowExecutionCommandAttributes?.details,
        ...completed,
      });
      close(ctx, execution, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED);
      return false;
    case CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
      continueAsNew(
        ctx,
        execution,
        command.continueAsNewWorkflowExecutionCommandAttributes!,
        workflowTaskCompletedEventId,
      );
      return false;
    case CommandType.COMMAND_TYPE_PROTOCOL_MESSAGE:
      applyUpdateMessage(ctx, execution, messages.get(command.protocolMessageCommandAttributes!.messageId!)!);
      return false;
    case CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION:
      initiateChild(
        ctx,
        execution,
        command.startChildWorkflowExecutionCommandAttributes!,
        workflowTaskCompletedEventId,
        command.userMetadata,
      );
      return false;
    case CommandType.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION:
      initiateSignal(
        ctx,
        execution,
        command.signalExternalWorkflowExecutionCommandAttributes!,
        workflowTaskCompletedEventId,
      );
      return false;
    case CommandType.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION:
      initiateCancel(
        ctx,
        execution,
        command.requestCancelExternalWorkflowExecutionCommandAttributes!,
        workflowTaskCompletedEventId,
      );
      return false;
    default:
      throw new RpcError(status.INTERNAL, `command ${command.commandType} passed the check but has no handler`);
  }
}
