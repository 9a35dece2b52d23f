/**
 * Workflow updates. An update is admitted, handed to the workflow as a protocol message on its next
 * workflow task, then accepted (UpdateAccepted event) or rejected by the validator (no event), and
 * completed (UpdateCompleted event). Callers wait for the stage they asked for. When the run closes first,
 * callers get what the real server answers then (see survivesClose).
 */
import { status } from '@grpc/grpc-js';
import { notFound, RpcError } from '../errors.js';
import type { Execution, UpdateOutcome, UpdateRequest, UpdateState } from '../execution.js';
import { EventType, UpdateStage, unpackAny } from '../proto.js';
import type proto from '@temporalio/proto';
import { isRunning, updateKey } from './context.js';
import type { EngineContext } from './context.js';

type ProtocolMessage = proto.temporal.api.protocol.v1.IMessage;
type Acceptance = proto.temporal.api.update.v1.IAcceptance;
type Response = proto.temporal.api.update.v1.IResponse;
type Rejection = proto.temporal.api.update.v1.IRejection;

/** A protocol message from a workflow task completion, decoded. */
export interface DecodedMessage {
  id: string;
  updateId: string;
  typeName: string;
  body: object;
  handled: boolean;
}

const STAGE_NUMBER: Record<UpdateState['stage'], number> = {
  admitted: UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
  sent: UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
  accepted: UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
  completed: UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED,
};

export function hasAdmittedUpdates(execution: Execution): boolean {
  for (const update of execution.updates.values()) if (update.stage === 'admitted') return true;
  return false;
}

/** Marks admitted updates as sent and returns their request messages for the workflow task. */
export function takeUpdateRequests(
  execution: Execution,
  sequencingEventId: number,
): { id: string; protocolInstanceId: string; eventId: number; body: UpdateRequest }[] {
  const messages = [];
  for (const update of execution.updates.values()) {
    if (update.stage !== 'admitted') continue;
    update.stage = 'sent';
    messages.push({
      id: `${update.updateId}/request`,
      protocolInstanceId: update.updateId,
      eventId: sequencingEventId,
      body: update.request,
    });
  }
  return messages;
}

/** Updates sent on a task that ended without an answer go out again on the next task. */
export function returnUnansweredUpdates(execution: Execution): void {
  for (const update of execution.updates.values()) if (update.stage === 'sent') update.stage = 'admitted';
}

/** Decodes a completion's protocol messages, keyed by message id (nothing is applied yet). */
export function decodeUpdateMessages(messages: ProtocolMessage[]): Map<string, DecodedMessage> {
  const decoded = new Map<string, DecodedMessage>();
  for (const message of messages) {
    if (!message.body) continue;
    const { typeName, body } = unpackAny(message.body);
    decoded.set(message.id ?? '', {
      id: message.id ?? '',
      updateId: message.protocolInstanceId ?? '',
      typeName,
      body,
      handled: false,
    });
  }
  return decoded;
}

/** Applies an acceptance or response (each writes an event) or a rejection (writes none). */
export function applyUpdateMessage(ctx: EngineContext, execution: Execution, message: DecodedMessage): void {
  if (message.handled) return;
  message.handled = true;
  const update = execution.updates.get(message.updateId);
  if (message.typeName === 'temporal.api.update.v1.Acceptance') {
    const body = message.body as Acceptance;
    const event = ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, {
      protocolInstanceId: message.updateId,
      acceptedRequestMessageId: body.acceptedRequestMessageId,
      acceptedRequestSequencingEventId: body.acceptedRequestSequencingEventId,
      acceptedRequest: body.acceptedRequest ?? update?.request,
    });
    if (update) {
      update.acceptedEventId = Number(event.eventId);
      setStage(ctx, execution, update, 'accepted');
    }
  } else if (message.typeName === 'temporal.api.update.v1.Rejection') {
    if (update) setStage(ctx, execution, update, 'completed', { failure: (message.body as Rejection).failure });
  } else if (message.typeName === 'temporal.api.update.v1.Response') {
    const body = message.body as Response;
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED, {
      meta: body.meta,
      acceptedEventId: update?.acceptedEventId ?? 0,
      outcome: body.outcome,
    });
    if (update) setStage(ctx, execution, update, 'completed', body.outcome ?? undefined);
  } else {
    ctx.log(`ignored protocol message of unknown type ${message.typeName}`, 'warn');
  }
}

function setStage(
  ctx: EngineContext,
  execution: Execution,
  update: UpdateState,
  stage: UpdateState['stage'],
  outcome?: UpdateOutcome,
): void {
  ctx.touch(execution);
  update.stage = stage;
  if (outcome) update.outcome = outcome;
  ctx.watchers.changed(updateKey(execution.runId, update.updateId));
}

/**
 * What is left of an update once its run has closed, as on the real server: one completed keeps its outcome;
 * one accepted but not completed fails (AcceptedUpdateCompletedWorkflow); one admitted or sent is gone (it was
 * aborted when the run closed, and was never stored).
 */
function survivesClose(update: UpdateState): boolean {
  return update.stage === 'accepted' || update.stage === 'completed';
}

const ACCEPTED_UPDATE_COMPLETED_WORKFLOW: UpdateOutcome = {
  failure: {
    message: 'Workflow Update failed because the Workflow completed before the Update completed.',
    source: 'Server',
    applicationFailureInfo: { type: 'AcceptedUpdateCompletedWorkflow', nonRetryable: true },
  },
};

/** The real server's answer to an update request on a run that closed with the update admitted or sent, not accepted. */
function abortedByClose(execution: Execution): RpcError {
  // a run continued by another (continue-as-new, a workflow retry): the client retries and reaches the new run
  const last = execution.history.at(-1);
  const continued =
    last?.workflowExecutionContinuedAsNewEventAttributes ||
    (last?.workflowExecutionFailedEventAttributes as { newExecutionRunId?: string } | undefined)?.newExecutionRunId ||
    (last?.workflowExecutionTimedOutEventAttributes as { newExecutionRunId?: string } | undefined)?.newExecutionRunId;
  return continued
    ? new RpcError(status.RESOURCE_EXHAUSTED, 'workflow operation can not be applied because workflow is closing')
    : notFound('workflow update was aborted by closing workflow');
}

/**
 * Admits an update (once per update id) and asks for a workflow task to deliver it. On a closed run only an
 * update that survived the close is found; any other is refused as the real server refuses it.
 */
export function admitUpdate(ctx: EngineContext, execution: Execution, request: UpdateRequest): UpdateState {
  const updateId = request.meta?.updateId ?? '';
  const existing = execution.updates.get(updateId);
  const running = isRunning(execution);
  if (existing && (running || survivesClose(existing))) return existing;
  if (!running) throw notFound('workflow execution already completed');
  const update: UpdateState = { updateId, request, stage: 'admitted' };
  execution.updates.set(updateId, update);
  ctx.touch(execution);
  // nothing else for the workflow to see: a speculative task, which leaves no trace if the update is rejected
  ctx.scheduleWorkflowTask(execution, { speculative: true });
  return update;
}

export function findUpdate(execution: Execution, updateId: string): UpdateState {
  const update = execution.updates.get(updateId);
  if (!update || (!isRunning(execution) && !survivesClose(update))) throw notFound(`update "${updateId}" not found`);
  return update;
}

/** Waits until the update reaches `stage` (or the long poll ends) and describes where it is. */
export async function waitForUpdate(
  ctx: EngineContext,
  execution: Execution,
  update: UpdateState,
  stage: number,
  onCancel?: (listener: () => void) => void,
): Promise<{ updateRef: object; outcome?: UpdateOutcome; stage: number }> {
  const reached = () => STAGE_NUMBER[update.stage] >= stage;
  await ctx.watchers.waitUntil(
    updateKey(execution.runId, update.updateId),
    () => reached() || !isRunning(execution),
    ctx.options.longPollMs,
    onCancel,
  );
  const updateRef = {
    workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
    updateId: update.updateId,
  };
  if (update.stage === 'completed') return { updateRef, outcome: update.outcome, stage: STAGE_NUMBER.completed };
  if (!isRunning(execution)) {
    if (update.stage === 'accepted')
      return { updateRef, outcome: ACCEPTED_UPDATE_COMPLETED_WORKFLOW, stage: STAGE_NUMBER.completed };
    throw abortedByClose(execution);
  }
  return { updateRef, stage: STAGE_NUMBER[update.stage] };
}
