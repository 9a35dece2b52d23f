import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import { workerActionKeys } from './action-keys.js';
import { sealCarried } from './carried-seal.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';
import type { OrderOutcome, OrderWorkflowInput } from './types.js';

/**
 * Called where the order waits (an approval round, an uncertain buy): when the history has grown long, the order
 * continues as a new run that carries its whole progress and resumes the same wait, so a wait of months never
 * nears the server's history limits. It happens only when nothing is half-done: no handler running, no message
 * to the ticket system or approvers unsent, nothing people asked for waiting to be acted on, no journal entry
 * unwritten. The new run believes the progress only with the seal this run makes over it (carried-seal.ts).
 * `woken` is the wait's own wake-up condition: when it holds (a vote came), the caller acts on it first.
 */
export async function continueAsNewIfDue(run: OrderRun, woken: () => boolean): Promise<void> {
  const info = workflowInfo();
  if (!info.continueAsNewSuggested && info.historyLength < run.options.continueAsNewAfterEvents) return;
  const { recorder, inbox } = run;
  const interrupted = () => woken() || inbox.cancel !== undefined || inbox.resolution !== undefined;
  await condition(() => (recorder.outboxesIdle && allHandlersFinished()) || interrupted());
  if (interrupted()) return;
  recorder.note(
    ENGINE,
    `continuing as a new run after ${info.historyLength} history events; the order waits on, unchanged`,
  );
  await recorder.writeAhead();
  // Whatever arrived while the journal was written is acted on (and journaled) in this run first; the order tries
  // again at its next wait.
  if (interrupted() || !recorder.quiet) return;
  const [key] = workerActionKeys();
  const { workflowId, runId: firstRunId } = recorder.identity;
  await continueAsNew<(input: OrderWorkflowInput) => Promise<OrderOutcome>>({
    ...recorder.input,
    carried: recorder.progress,
    // Without a key the next run is refused, as any run with unsealed state is: a worker always has one.
    ...(key ? { seal: sealCarried(key, { workflowId, firstRunId, fromRunId: info.runId }, recorder.progress) } : {}),
  });
}
