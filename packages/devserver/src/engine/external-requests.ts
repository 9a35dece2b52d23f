/**
 * Signals and cancel requests from one workflow to another (the SignalExternalWorkflowExecution and
 * RequestCancelExternalWorkflowExecution commands; the SDK's child handle `.signal()` and child cancellation
 * use them too), as the real server delivers them: the command writes the ...Initiated event; once the
 * completion's commands are all applied (./transfers.ts) the request reaches the target — WorkflowExecutionSignaled
 * or WorkflowExecutionCancelRequested, naming the sender, identity "history-service" — and the sender records
 * ExternalWorkflowExecutionSignaled / ExternalWorkflowExecutionCancelRequested, or the ...Failed event with
 * EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND. Not found: no such run, the sender's own workflow id, or (childWorkflowOnly)
 * a run that is not the sender's child; a signal also needs the target running, while a cancel request to a
 * closed run succeeds and changes nothing.
 */
import type { Execution } from '../execution.js';
import { api, CommandType, EventType, WorkflowTaskFailedCause } from '../proto.js';
import type { HistoryEvent } from '../proto.js';
import type proto from '@temporalio/proto';
import { eventAttributes } from '../persistence/codec.js';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { HISTORY_SERVICE_IDENTITY, requestCancel, signal } from './executions.js';
import { failTask } from './task-refusals.js';

type Command = proto.temporal.api.command.v1.ICommand;
type SignalAttributes = proto.temporal.api.command.v1.ISignalExternalWorkflowExecutionCommandAttributes;
type CancelAttributes = proto.temporal.api.command.v1.IRequestCancelExternalWorkflowExecutionCommandAttributes;
type WorkflowExecution = { workflowId?: string | null; runId?: string | null };

const { SignalExternalWorkflowExecutionFailedCause, CancelExternalWorkflowExecutionFailedCause } = api.enums.v1;
const SIGNAL = 'SignalExternalWorkflowExecution';
const CANCEL = 'RequestCancelExternalWorkflowExecution';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The target's namespace must exist; `bad` words the refusal for the command's field. */
function validateTarget(
  ctx: EngineContext,
  bad: (rule: string) => Error,
  namespace: string | null | undefined,
  workflowId: string | null | undefined,
  runId: string | null | undefined,
  workflowIdField: string,
): void {
  if (namespace) ctx.requireNamespace(namespace);
  if (!workflowId) throw bad(`.${workflowIdField} is required`);
  if (runId && !UUID.test(runId)) throw bad(`: runId ${runId} is not a valid run id (a UUID)`);
}

/** Refuses what the real server refuses in the command (before anything is written): the task fails with the cause. */
export function validateSignalExternal(ctx: EngineContext, attrs: SignalAttributes | null | undefined): void {
  const bad = (rule: string) =>
    failTask(
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
      `${SIGNAL}${rule}`,
    );
  if (!attrs) throw bad(': the command has no attributes');
  validateTarget(
    ctx,
    bad,
    attrs.namespace,
    attrs.execution?.workflowId,
    attrs.execution?.runId,
    'execution.workflowId',
  );
  if (!attrs.signalName) throw bad('.signalName is required');
}

/** As validateSignalExternal; also, as on the real server, a child cannot be started and cancelled in one workflow task (`earlier`: the commands before this one). */
export function validateCancelExternal(
  ctx: EngineContext,
  attrs: CancelAttributes | null | undefined,
  earlier: Command[],
): void {
  const bad = (rule: string) =>
    failTask(
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
      `${CANCEL}${rule}`,
    );
  if (!attrs) throw bad(': the command has no attributes');
  validateTarget(ctx, bad, attrs.namespace, attrs.workflowId, attrs.runId, 'workflowId');
  const startedHere = earlier.some(
    (c) =>
      c.commandType === CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION &&
      c.startChildWorkflowExecutionCommandAttributes?.workflowId === attrs.workflowId,
  );
  if (startedHere)
    throw bad(
      `: child ${attrs.workflowId} is started in the same workflow task; start and cancel must come in different tasks`,
    );
}

function targetRef(
  ctx: EngineContext,
  sender: Execution,
  namespace: string | null | undefined,
  workflowExecution: WorkflowExecution,
): object {
  const name = namespace || sender.namespace;
  return {
    namespace: name,
    namespaceId: ctx.store.getNamespace(name)!.id,
    workflowExecution: { workflowId: workflowExecution.workflowId, runId: workflowExecution.runId ?? '' },
  };
}

export function initiateSignal(
  ctx: EngineContext,
  sender: Execution,
  attrs: SignalAttributes,
  workflowTaskCompletedEventId: number,
): void {
  ctx.appendEvent(sender, EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
    ...targetRef(ctx, sender, attrs.namespace, attrs.execution!),
    signalName: attrs.signalName,
    input: attrs.input,
    control: attrs.control,
    childWorkflowOnly: attrs.childWorkflowOnly,
    header: attrs.header,
    workflowTaskCompletedEventId,
  });
}

export function initiateCancel(
  ctx: EngineContext,
  sender: Execution,
  attrs: CancelAttributes,
  workflowTaskCompletedEventId: number,
): void {
  ctx.appendEvent(sender, EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
    ...targetRef(ctx, sender, attrs.namespace, { workflowId: attrs.workflowId, runId: attrs.runId }),
    control: attrs.control,
    childWorkflowOnly: attrs.childWorkflowOnly,
    reason: attrs.reason,
    workflowTaskCompletedEventId,
  });
}

/** The run an Initiated event names (a given run, or the workflow's current one); never the sender's own workflow. */
function findTarget(
  ctx: EngineContext,
  sender: Execution,
  attrs: { namespace?: string | null; workflowExecution?: WorkflowExecution | null },
): Execution | undefined {
  const namespace = attrs.namespace ?? '';
  const workflowId = attrs.workflowExecution?.workflowId ?? '';
  const runId = attrs.workflowExecution?.runId;
  if (namespace === sender.namespace && workflowId === sender.workflowId) return undefined;
  const run = runId ? ctx.store.getRun(runId) : ctx.store.getCurrentRun(namespace, workflowId);
  if (!run || run.namespace !== namespace || run.workflowId !== workflowId) return undefined;
  return run;
}

const isChildOf = (run: Execution, sender: Execution) =>
  run.parent?.workflowId === sender.workflowId && run.parent.runId === sender.runId;
const senderRef = (sender: Execution) => ({ workflowId: sender.workflowId, runId: sender.runId });

/** The signal an Initiated event asks for (./transfers.ts, with the sender's completion still open). */
export function deliverSignal(ctx: EngineContext, sender: Execution, initiated: HistoryEvent): void {
  const attrs = eventAttributes(initiated);
  const result = {
    initiatedEventId: initiated.eventId,
    namespace: attrs.namespace,
    namespaceId: attrs.namespaceId,
    workflowExecution: attrs.workflowExecution,
    control: attrs.control,
  };
  const target = findTarget(ctx, sender, attrs);
  if (!target || !isRunning(target) || (attrs.childWorkflowOnly && !isChildOf(target, sender))) {
    ctx.appendEvent(sender, EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED, {
      ...result,
      cause:
        SignalExternalWorkflowExecutionFailedCause.SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
    });
    return;
  }
  signal(ctx, target, {
    signalName: attrs.signalName,
    input: attrs.input,
    header: attrs.header,
    identity: HISTORY_SERVICE_IDENTITY,
    requestId: ctx.newRunId(),
    externalWorkflowExecution: senderRef(sender),
  });
  ctx.appendEvent(sender, EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED, result);
}

/** The cancel request an Initiated event asks for (./transfers.ts, with the sender's completion still open). */
export function deliverCancel(ctx: EngineContext, sender: Execution, initiated: HistoryEvent): void {
  const attrs = eventAttributes(initiated);
  const result = {
    initiatedEventId: initiated.eventId,
    namespace: attrs.namespace,
    namespaceId: attrs.namespaceId,
    workflowExecution: attrs.workflowExecution,
  };
  const target = findTarget(ctx, sender, attrs);
  const open = target !== undefined && isRunning(target);
  if (!target || (open && attrs.childWorkflowOnly && !isChildOf(target, sender))) {
    ctx.appendEvent(sender, EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED, {
      ...result,
      control: attrs.control,
      cause:
        CancelExternalWorkflowExecutionFailedCause.CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
    });
    return;
  }
  if (open)
    requestCancel(ctx, target, attrs.reason ?? '', HISTORY_SERVICE_IDENTITY, {
      initiatedEventId: initiated.eventId,
      workflowExecution: senderRef(sender),
    });
  ctx.appendEvent(sender, EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED, result);
}
