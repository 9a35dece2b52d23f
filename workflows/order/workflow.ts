import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { buy, settleUncertainBuy, type BuyResult } from './buy.js';
import { passGate } from './gate.js';
import { followProvisioning, type ProvisioningEnding } from './provisioning.js';
import { refusedPayloadReason } from '../../codec/refused-payload.js';
import { admit, refuseUnreadableRun } from './admission.js';
import { policyOfNewOrder, resumePolicy } from './policy.js';
import { installHandlers, noteUnreadableSignals } from './handlers/index.js';
import { currentQuote, newProgress } from './progress.js';
import { ENGINE, OrderRecorder } from './recorder.js';
import { changesOfThisRun, withDefaults, type Ending, type GovernedRun, type OrderRun } from './run.js';
import { ENVIRONMENT, ORDER_STATUS, TICKET_ID } from './search-attributes.js';
import type { OrderOutcome, OrderWorkflowInput } from './types.js';

export type { OrderOutcome, OrderWorkflowInput, OrderWorkflowOptions } from './types.js';

/**
 * One workflow per ticket: read the policy, look up, validate, gate on the quote, buy once, record everything.
 *
 * This is the order's one version. From 1.0 on, every change to what this code does on replay is made behind a
 * `patched()` asked once as the run starts, with a replay test of histories recorded before it (see
 * docs/order-workflow.md, "Changing the workflow").
 */
export function orderWorkflow(input: OrderWorkflowInput): Promise<OrderOutcome> {
  // Temporal's own cancellation is not a way to cancel an order: a cancel is a signed update (handlers/cancel.ts), so the
  // order runs in a scope the server's cancel request cannot reach, and that request is only noted.
  const temporalCancel = CancellationScope.current().cancelRequested;
  return CancellationScope.nonCancellable(() => runOrder(input, temporalCancel));
}

async function runOrder(input: OrderWorkflowInput, temporalCancel: Promise<never>): Promise<OrderOutcome> {
  const unreadable = refusedPayloadReason(input);
  if (unreadable !== undefined) refuseUnreadableRun(unreadable);
  const info = workflowInfo();
  const recorder = new OrderRecorder(input, input.carried ?? newProgress(), {
    workflowId: info.workflowId,
    runId: info.firstExecutionRunId,
  });
  const run: OrderRun = { recorder, options: withDefaults(input.options), changes: changesOfThisRun(input), inbox: {} };
  installHandlers(run);
  const admission = await admit(run);
  noteUnreadableSignals(run);
  temporalCancel.catch(() => {
    recorder.note(
      ENGINE,
      'a Temporal cancellation request was ignored: an order is cancelled through the order API (signed), not by the workflow service',
    );
    recorder.checkpoint();
  });

  let governed: GovernedRun;
  if (input.carried) {
    governed = resumePolicy(run, recorder.progress.governing!);
  } else {
    receive(run);
    if (admission.provisioning) recorder.progress.followUp = admission.provisioning;
    const adopted = policyOfNewOrder(run, admission);
    if ('ending' in adopted) return finish(run, adopted.ending);
    governed = adopted.governed;
  }

  // The story: pass the gate (lookup, validation, approval), then buy, then follow the product until it is live; an
  // uncertain buy that ops say was not carried out goes through the gate again. A run carried over resumes the wait
  // it was in.
  if (input.carried?.state === 'BOUGHT' || input.carried?.state === 'PROVISIONING') return finishBuy(run, 'bought');
  let resumeRound = input.carried?.state === 'AWAITING_APPROVAL';
  if (input.carried?.state === 'BUY_UNCERTAIN') {
    const settled = await CancellationScope.nonCancellable(() => settleUncertainBuy(run));
    if (settled !== 'revalidate') return finishBuy(run, settled);
  }
  for (;;) {
    const ending = await passGate(governed, resumeRound);
    resumeRound = false;
    if (ending) return finish(run, ending);
    // From the buy on, nothing is cancellable: the buy, and the records of what it did (one scope for both).
    const outcome = await CancellationScope.nonCancellable(async () => {
      const bought = await buy(run);
      return bought === 'revalidate' ? undefined : finishBuy(run, bought);
    });
    if (outcome) return outcome;
  }
}

/**
 * Records the order as received. Not async, as nothing here waits: every promise a workflow makes costs the workflow
 * thread a stack trace (the SDK's, for the stack-trace query), and an order makes a few dozen.
 */
function receive(run: OrderRun): void {
  const { recorder } = run;
  const { request } = recorder.input;
  const { progress } = recorder;
  // Set by the client at start; should they be missing, they are set at the first checkpoint.
  const present = workflowInfo().typedSearchAttributes;
  if (present.get(TICKET_ID) === undefined) recorder.setSearchAttribute({ key: TICKET_ID, value: request.ticketId });
  if (present.get(ENVIRONMENT) === undefined)
    recorder.setSearchAttribute({ key: ENVIRONMENT, value: request.environment });
  if (present.get(ORDER_STATUS) === undefined)
    recorder.setSearchAttribute({ key: ORDER_STATUS, value: progress.state });
  // Without the request: the journal's activity reads it from this run's start input and stores it redacted, so
  // history holds the request once.
  recorder.record({ type: 'received' });
  progress.timeline.push({
    seq: progress.seq,
    at: new Date(Date.now()).toISOString(),
    state: progress.state,
    actor: request.requestedBy,
    reason: 'order received',
  });
  recorder.notify(progress.seq);
}

/** A bought order ends at BOUGHT, or, when the workers follow products, where its provisioning ends. */
async function finishBuy(run: OrderRun, result: Exclude<BuyResult, 'revalidate'>): Promise<OrderOutcome> {
  const { progress } = run.recorder;
  if (result === 'failed')
    return finish(run, { state: 'FAILED', actor: ENGINE, reason: progress.lastError?.message ?? 'the buy failed' });
  const bought = { state: 'BOUGHT', actor: ENGINE, reason: `bought ${progress.product!.technicalServiceUid}` } as const;
  return finish(run, progress.followUp ? await followProvisioning(run, progress.followUp) : bought);
}

async function finish(
  run: OrderRun,
  ending: NonNullable<Ending> | ProvisioningEnding | { state: 'FAILED'; actor: string; reason: string },
): Promise<OrderOutcome> {
  const { recorder } = run;
  const { progress } = recorder;
  if (progress.state !== ending.state) recorder.moveTo(ending.state, ending.actor, ending.reason);
  await recorder.close(run.changes.writesRecordsBeforeLastNotifications);
  const quote = currentQuote(progress);
  return {
    state: ending.state,
    reason: ending.reason,
    ...(quote ? { quote } : {}),
    ...(progress.product ? { product: progress.product } : {}),
  };
}
