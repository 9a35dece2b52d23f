/**
 * What a workflow task's commands set off in other runs — starting a child (./children.ts), signalling or
 * cancelling another workflow (./external-requests.ts) — is carried out once all of the completion's commands
 * are applied, as the real server's transfer tasks carry it out once the completion is saved: a completion that
 * closes its run carries out nothing it initiated (the transfer tasks find the run closed); otherwise the events
 * that arrived while the task ran are written first, then the outcomes (ChildWorkflowExecutionStarted,
 * ExternalWorkflowExecutionSignaled, the ...Failed events), and a new workflow task brings them to the workflow.
 *
 * Unlike the real server's queue, it all happens within the completion call: nothing is left in flight, so time
 * skipping never waits on it and a durable store commits the completion and its outcomes together.
 */
import type { BufferedEvent, Execution } from '../execution.js';
import { EventType } from '../proto.js';
import type { HistoryEvent } from '../proto.js';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { startInitiatedChild } from './children.js';
import { deliverCancel, deliverSignal } from './external-requests.js';

/** Runs carrying out their completion's commands: events for them are written at once (see deliverToRun). */
const carryingOut = new Set<Execution>();

/**
 * Carries out the Initiated events written after `workflowTaskCompletedEventId` (the completion being applied);
 * returns whether it wrote anything, so that the completion schedules a workflow task.
 */
export function carryOutInitiated(
  ctx: EngineContext,
  execution: Execution,
  workflowTaskCompletedEventId: number,
): boolean {
  if (!isRunning(execution)) return false;
  const initiated = execution.history
    .slice(workflowTaskCompletedEventId)
    .filter((event) => INITIATED.has(event.eventType));
  if (!initiated.length) return false;
  ctx.flushBuffered(execution);
  carryingOut.add(execution);
  try {
    for (const event of initiated) if (isRunning(execution)) carryOut(ctx, execution, event);
  } finally {
    carryingOut.delete(execution);
  }
  return true;
}

const INITIATED = new Set<number>([
  EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
]);

function carryOut(ctx: EngineContext, execution: Execution, initiated: HistoryEvent): void {
  if (initiated.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
    startInitiatedChild(ctx, execution, initiated);
  else if (initiated.eventType === EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED)
    deliverSignal(ctx, execution, initiated);
  else deliverCancel(ctx, execution, initiated);
}

/**
 * Events for a run caused by another run (a child closing): as any event from outside, except while the run
 * carries out its completion (a child it started there terminated an earlier one with the same id): then they
 * are written at once, among the outcomes, and the completion schedules the workflow task.
 */
export function deliverToRun(ctx: EngineContext, run: Execution, events: BufferedEvent[]): void {
  if (!carryingOut.has(run)) {
    ctx.external(run, events);
    return;
  }
  for (const { eventType, attributes } of events) ctx.appendEvent(run, eventType, attributes);
}
