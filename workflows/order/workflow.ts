import { CancellationScope, patched, workflowInfo } from '@temporalio/workflow';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import { records } from './activities.js';
import { buy, BUY_IN_WORKFLOW_TASK_PATCH, BUY_WRITES_AHEAD_PATCH, settleUncertainBuy, type BuyResult } from './buy.js';
import { messageOf } from './failures.js';
import { passGate } from './gate.js';
import { adoptPolicy, policyRefused } from './policy.js';
import { installHandlers } from './handlers.js';
import { orderWorkflowV1 } from './legacy/v1-workflow.js';
import { currentQuote, newProgress } from './progress.js';
import { ENGINE, OrderRecorder } from './recorder.js';
import { withDefaults, type Ending, type OrderRun } from './run.js';
import { ENVIRONMENT, ORDER_STATUS, TICKET_ID } from './search-attributes.js';
import type { OrderOutcome, OrderWorkflowInput } from './types.js';

export type { OrderOutcome, OrderWorkflowInput, OrderWorkflowOptions } from './types.js';

/** Marks runs of the lean order; runs without it began before the cut-over and finish on the frozen v1 code. */
export const LEAN_ORDER_PATCH = 'lean-order';

/**
 * Marks runs whose policy, lookup and first validation are one local activity (gate.ts); older runs make three. It
 * implies the patches before it, which such runs therefore never ask (see `versionOfRun`); so does the newer
 * `BUY_IN_WORKFLOW_TASK_PATCH`, which implies this one.
 */
export const ONE_READ_PATCH = 'one-read-before-gate';

/**
 * Which version of the order this run follows, from the patches it began with, asked once as the run starts (a
 * patch asked later could be answered differently on replay). The newest is asked first: a run begun on this code
 * then carries its marker alone, and not the two before it with their TemporalChangeVersion upserts (four history
 * events). A run begun earlier has no such marker, and its own markers answer the older patches as they did.
 */
function versionOfRun(): 'v1' | Pick<OrderRun, 'buyWritesAhead' | 'oneReadBeforeGate' | 'buyInWorkflowTask'> {
  if (patched(BUY_IN_WORKFLOW_TASK_PATCH)) return { buyWritesAhead: true, oneReadBeforeGate: true, buyInWorkflowTask: true };
  if (patched(ONE_READ_PATCH)) return { buyWritesAhead: true, oneReadBeforeGate: true, buyInWorkflowTask: false };
  if (!patched(LEAN_ORDER_PATCH)) return 'v1';
  return { buyWritesAhead: patched(BUY_WRITES_AHEAD_PATCH), oneReadBeforeGate: false, buyInWorkflowTask: false };
}

/** One workflow per ticket: look up, validate, gate on the quote, buy once, record everything. */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderOutcome> {
  const version = versionOfRun();
  if (version === 'v1') return orderWorkflowV1(input);
  const info = workflowInfo();
  const recorder = new OrderRecorder(input, input.carried ?? newProgress(), { workflowId: info.workflowId, runId: info.firstExecutionRunId });
  const run: OrderRun = { recorder, policy: undefined!, options: withDefaults(input.options), ...version, inbox: {} };
  installHandlers(run);

  if (input.carried) {
    run.policy = parseApprovalPolicy(recorder.progress.governing!.policy);
    recorder.listenForApprovers();
  } else {
    receive(run);
    const ending = run.oneReadBeforeGate ? undefined : await readPolicy(run);
    if (ending) return finish(run, ending);
  }

  // The story: pass the gate (lookup, validation, approval), then buy; an uncertain buy that ops say was not
  // carried out goes through the gate again. A run carried over resumes the wait it was in.
  let resumeRound = input.carried?.state === 'AWAITING_APPROVAL';
  if (input.carried?.state === 'BUY_UNCERTAIN') {
    const settled = await CancellationScope.nonCancellable(() => settleUncertainBuy(run));
    if (settled !== 'revalidate') return finishBuy(run, settled);
  }
  for (;;) {
    const ending = await passGate(run, resumeRound);
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
  // Set by the client at start; a run started some other way (raw Temporal) sets them at its first checkpoint.
  const present = workflowInfo().typedSearchAttributes;
  if (present.get(TICKET_ID) === undefined) recorder.setSearchAttribute({ key: TICKET_ID, value: request.ticketId });
  if (present.get(ENVIRONMENT) === undefined) recorder.setSearchAttribute({ key: ENVIRONMENT, value: request.environment });
  if (present.get(ORDER_STATUS) === undefined) recorder.setSearchAttribute({ key: ORDER_STATUS, value: progress.state });
  // Without the request: the journal's activity reads it from this run's start input and stores it redacted, so
  // history holds the request once.
  recorder.record({ type: 'received' });
  progress.timeline.push({ seq: progress.seq, at: new Date(Date.now()).toISOString(), state: progress.state, actor: request.requestedBy, reason: 'order received' });
  recorder.notify('received', 'order received');
}

/**
 * Runs begun before the one read read the workers' policy first, which governs the order to its end (the one read
 * brings it with the first quote: gate.ts).
 */
async function readPolicy(run: OrderRun): Promise<Ending> {
  const { request } = run.recorder.input;
  let governing;
  try {
    governing = await records.loadApprovalPolicy({ environment: request.environment });
  } catch (error) {
    return policyRefused(run, messageOf(error));
  }
  return adoptPolicy(run, governing);
}

function finishBuy(run: OrderRun, result: Exclude<BuyResult, 'revalidate'>): Promise<OrderOutcome> {
  const { progress } = run.recorder;
  return result === 'bought'
    ? finish(run, { state: 'BOUGHT', actor: ENGINE, reason: `bought ${progress.product!.technicalServiceUid}` })
    : finish(run, { state: 'FAILED', actor: ENGINE, reason: progress.lastError?.message ?? 'the buy failed' });
}

async function finish(run: OrderRun, ending: NonNullable<Ending> | { state: 'BOUGHT' | 'FAILED'; actor: string; reason: string }): Promise<OrderOutcome> {
  const { recorder } = run;
  const { progress } = recorder;
  if (progress.state !== ending.state) recorder.moveTo(ending.state, ending.actor, ending.reason);
  await recorder.close();
  const quote = currentQuote(progress);
  return { state: ending.state, reason: ending.reason, ...(quote ? { quote } : {}), ...(progress.product ? { product: progress.product } : {}) };
}
