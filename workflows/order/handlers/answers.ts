import { ApplicationFailure, CancellationScope, condition } from '@temporalio/workflow';

/**
 * A refused message, as its sender reads it: the reason and a code, and no stack trace (nothing of the workers' code
 * reaches whoever sent it).
 */
export function refusal(message: string, code: string): ApplicationFailure {
  const failure = ApplicationFailure.nonRetryable(message, code);
  failure.stack = '';
  return failure;
}

/**
 * Waits in a handler as the order does: a Temporal cancellation request (which the order ignores, workflow.ts) does
 * not end the wait, so the update is answered with what the order did.
 */
export function waitFor(done: () => boolean): Promise<void> {
  return CancellationScope.nonCancellable(() => condition(done));
}
