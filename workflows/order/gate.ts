import { ActivityFailure, ApplicationFailure, CancellationScope, ContinueAsNew, isCancellation, TemporalFailure } from '@temporalio/workflow';
import type { FirstRead, FirstReadStage, QuoteRecord } from './activity-types.js';
import { approvalRequirement, isQuoteStale, requoteDecision, type ApprovalPolicy, type ApprovalTier } from '../../domain/approval/index.js';
import { reads } from './activities.js';
import { awaitApproval } from './approval-round.js';
import { summarise } from './failures.js';
import { adoptPolicy, policyRefused } from './policy.js';
import { currentQuote } from './progress.js';
import { ENGINE } from './recorder.js';
import type { Ending, OrderRun } from './run.js';

type Validated = FirstRead['quote'];

/**
 * Everything before the buy, in a scope a cancel can end: the first read (the policy, the lookup and the validation
 * in one, in runs of the one read; else the lookup), validations and the approval gate, until the quote to buy is
 * approved and fresh. `resumeRound` resumes an approval round carried over from the order's previous run.
 */
export async function passGate(run: OrderRun, resumeRound: boolean): Promise<Ending> {
  const { recorder, inbox } = run;
  const scope = new CancellationScope();
  inbox.beforeBuy = scope;
  try {
    if (inbox.cancel) scope.cancel();
    return await scope.run(() => reachApprovedQuote(run, resumeRound));
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error) || inbox.cancel) {
      return { state: 'CANCELLED', actor: inbox.cancel?.actor ?? 'temporal', reason: inbox.cancel?.reason ?? 'the workflow was cancelled' };
    }
    // A bug (an illegal transition), not a business outcome: it fails the workflow task, so the order parks unchanged.
    if (!(error instanceof TemporalFailure)) throw error;
    const step = recorder.progress.state === 'LOOKING_UP' ? 'looked up' : 'validated';
    const summary = recorder.noteError(error, `the order could not be ${step}`);
    return { state: 'FAILED', actor: ENGINE, reason: summary.message };
  } finally {
    inbox.beforeBuy = undefined;
  }
}

async function reachApprovedQuote(run: OrderRun, resumeRound: boolean): Promise<Ending> {
  const { recorder } = run;
  const { progress } = recorder;
  const { request } = recorder.input;
  // The price charged must be the price approved: a quote is bought only straight after the validate that gave
  // it, with no wait between (an approval round, an uncertain buy resolved); after any wait it is validated again.
  let validatedSinceWait = false;
  if (resumeRound) {
    const ending = await awaitApproval(run);
    if (ending) return ending;
  }
  let firstQuote: Validated | undefined;
  if (!progress.targets) {
    recorder.moveTo('LOOKING_UP', ENGINE, 'looking up the location and the image');
    if (progress.governing) {
      progress.targets = await reads.lookUpOrderTargets({ ...orderContext(run), request });
    } else {
      const first = await readBeforeGate(run);
      if (first.ending) return first.ending;
      progress.targets = first.read.targets;
      firstQuote = first.read.quote;
    }
    for (const warning of progress.targets.warnings) recorder.note(ENGINE, warning);
  }
  // Read only now: a run of the one read has its policy from that read.
  const { policy } = run;
  for (;;) {
    const approved = progress.approved;
    const latest = currentQuote(progress);
    if (approved && latest && validatedSinceWait && !isQuoteStale(policy, latest.quotedAt, Date.now())) return undefined;
    const reason = approved ? 'validating again before buying, so the price charged is the price approved' : 'validating the order with the API';
    const current = firstQuote ? takeValidation(run, reason, firstQuote) : await validate(run, reason);
    firstQuote = undefined;
    validatedSinceWait = true;
    if (approved) {
      const decision = requoteDecision(policy, approved, current);
      if (decision.decision === 'buy') {
        recorder.moveTo('APPROVED', 'policy', `re-validated at ${current.monthlyRate} ${current.currency}: within the approval given`);
        progress.approved = current;
        return undefined;
      }
      const requirement = approvalRequirement(policy, current);
      const tier = requirement.kind === 'needs-approval' ? requirement.tier : lowestTier(policy);
      const ending = await awaitApproval(run, { tier, quote: current, reason: decision.reason });
      if (ending) return ending;
      validatedSinceWait = false;
      continue;
    }
    const requirement = approvalRequirement(policy, current);
    if (requirement.kind === 'auto-approved') {
      recorder.moveTo('APPROVED', 'policy', `${current.monthlyRate} ${current.currency} is below the auto-approve line`);
      progress.approved = current;
    } else {
      const reason = `${current.monthlyRate} ${current.currency} needs the "${requirement.tier.name}" tier (${requirement.cause})`;
      const ending = await awaitApproval(run, { tier: requirement.tier, quote: current, reason });
      if (ending) return ending;
      validatedSinceWait = false;
    }
  }
}

/** Validates the order with the API and records the quote. */
async function validate(run: OrderRun, reason: string): Promise<QuoteRecord> {
  const { recorder } = run;
  recorder.moveTo('VALIDATING', ENGINE, reason);
  return recordQuote(run, await reads.validateOrder({ ...orderContext(run), request: recorder.input.request, targets: recorder.progress.targets! }));
}

/** Takes the validation the first read made, as `validate` would have made it (without an await: see `receive` in workflow.ts). */
function takeValidation(run: OrderRun, reason: string, validated: Validated): QuoteRecord {
  run.recorder.moveTo('VALIDATING', ENGINE, reason);
  return recordQuote(run, validated);
}

function recordQuote(run: OrderRun, validated: Validated): QuoteRecord {
  const quote: QuoteRecord = { ...validated, quotedAt: Date.now() };
  run.recorder.recordQuote(quote);
  return quote;
}

/**
 * The first read of a run of the one read: the policy, the targets and a quote. A failed read leaves the order in the
 * state of the read that failed (the validation moves it to VALIDATING first); the gate's caller words the failure.
 */
async function readBeforeGate(run: OrderRun): Promise<{ read: FirstRead; ending?: undefined } | { ending: NonNullable<Ending> }> {
  const { recorder } = run;
  let read: FirstRead;
  try {
    read = await reads.readBeforeGate({ ...orderContext(run), request: recorder.input.request });
  } catch (error) {
    const stage = failedStage(error);
    if (stage === 'policy') return { ending: policyRefused(run, summarise(error, 'the policy could not be read').message) };
    if (stage === 'validation') recorder.moveTo('VALIDATING', ENGINE, 'validating the order with the API');
    throw error;
  }
  const ending = adoptPolicy(run, read.governing);
  return ending ? { ending } : { read };
}

/** Which read of the first read failed, from its failure's details (set by the activity). */
function failedStage(error: unknown): FirstReadStage | undefined {
  let cause: unknown = error;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const details = cause.details?.[0] as { stage?: FirstReadStage } | undefined;
  return details?.stage;
}

export function orderContext(run: OrderRun) {
  const { identity, input } = run.recorder;
  return { workflowId: identity.workflowId, runId: identity.runId, environment: input.request.environment };
}

/** After an automatic approval, a re-quote that asks again goes to the lowest tier. */
function lowestTier(policy: ApprovalPolicy): ApprovalTier {
  const tier = policy.tiers[0]!;
  return { index: 0, name: tier.name, roles: [...tier.roles], approvals: tier.approvals };
}
