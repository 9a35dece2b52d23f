import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';
import type { OrderOutcome, OrderWorkflowInput } from './types.js';

/**
 * Called where the order waits (an approval round, an uncertain buy): when the history has grown long, the order
 * continues as a new run that carries its whole progress and resumes the same wait, so a wait of months never
 * nears the server's history limits. It happens only when nothing is half-done: no handler running, no message
 * to the ticket system or approvers unsent, no cancel or resolution waiting to be acted on.
 */
export async function continueAsNewIfDue(run: OrderRun): Promise<void> {
  const info = workflowInfo();
  if (!info.continueAsNewSuggested && info.historyLength < run.options.continueAsNewAfterEvents) return;
  if (!run.recorder.outboxesIdle) return;
  await condition(allHandlersFinished);
  if (run.inbox.cancel || run.inbox.resolution) return;
  run.recorder.note(ENGINE, `continuing as a new run after ${info.historyLength} history events; the order waits on, unchanged`);
  await run.recorder.writeAhead();
  await continueAsNew<(input: OrderWorkflowInput) => Promise<OrderOutcome>>({ ...run.recorder.input, carried: run.recorder.progress });
}
