/**
 * Request ids, kept as the real server keeps them in a run's mutable state so that a client's retry changes nothing:
 *
 * - a signal (SignalWorkflowExecution, or the signal of SignalWithStartWorkflowExecution) whose request id the run
 *   has recorded is not delivered again, and is answered as a success even once the run has closed;
 * - a start whose request id is one of the run's is answered with that run (../engine/executions.ts): `started`
 *   only when that request started it, not when it attached to it (conflict policy USE_EXISTING).
 *
 * The signal request ids are kept with the run (and in a durable store's record); a run continued as new starts
 * with none, as on the real server.
 */
import type { Execution } from '../execution.js';

export function isDuplicateSignal(execution: Execution, requestId: string | null | undefined): boolean {
  return !!requestId && !!execution.signalRequestIds?.has(requestId);
}

export function rememberSignal(execution: Execution, requestId: string | null | undefined): void {
  if (requestId) (execution.signalRequestIds ??= new Set()).add(requestId);
}

/** How many signal request ids the run has recorded (a checkpoint to go back to: see forgetSignalsSince). */
export const signalCount = (execution: Execution): number => execution.signalRequestIds?.size ?? 0;

/** Forgets the request ids recorded after the first `count` (a change undone by the history limits). */
export function forgetSignalsSince(execution: Execution, count: number): void {
  const ids = execution.signalRequestIds;
  if (!ids || ids.size <= count) return;
  // a Set iterates in insertion order: the ids recorded since are the last ones
  [...ids].slice(count).forEach((id) => ids.delete(id));
}

/** Whether `requestId` is the one that started the run (a retried start), not one that attached to it. */
export const startedBy = (execution: Execution, requestId: string): boolean =>
  execution.startRequest.unpack().requestId === requestId;
