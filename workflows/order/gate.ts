import { CancellationScope, ContinueAsNew, isCancellation, TemporalFailure } from '@temporalio/workflow';
import type { OrderTargets, QuoteRecord } from './activity-types.js';
import {
  approvalRequirement,
  isQuoteStale,
  requoteDecision,
  type ApprovalPolicy,
  type ApprovalTier,
} from '../../domain/approval/index.js';
import { reads } from './activities.js';
import { awaitApproval } from './approval-round.js';
import { budgetRound, commitApproval, type BudgetVerdict } from './budget-gate.js';
import { summarise } from './failures.js';
import { currentQuote, type RoundStart } from './progress.js';
import { ENGINE } from './recorder.js';
import type { Ending, GovernedRun, OrderRun } from './run.js';

/**
 * Everything before the buy, in a scope a cancel can end: the lookups, validations and the approval gate, until the
 * quote to buy is approved and fresh. `resumeRound` resumes an approval round carried over from the order's previous
 * run.
 */
export async function passGate(run: GovernedRun, resumeRound: boolean): Promise<Ending> {
  const { recorder, inbox } = run;
  const scope = new CancellationScope();
  inbox.beforeBuy = scope;
  try {
    if (inbox.cancel) scope.cancel();
    return await scope.run(() => reachApprovedQuote(run, resumeRound));
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    if (isCancellation(error) || inbox.cancel) {
      return {
        state: 'CANCELLED',
        actor: inbox.cancel?.actor ?? 'temporal',
        reason: inbox.cancel?.reason ?? 'the workflow was cancelled',
      };
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

async function reachApprovedQuote(run: GovernedRun, resumeRound: boolean): Promise<Ending> {
  const { recorder, policy } = run;
  const { progress } = recorder;
  // The price charged must be the price approved: a quote is bought only straight after the validate that gave
  // it, with no wait between (an approval round, an uncertain buy resolved); after any wait it is validated again.
  let validatedSinceWait = false;
  if (resumeRound) {
    const ending = await awaitApproval(run);
    if (ending) return ending;
  }
  if (!progress.targets) {
    recorder.moveTo('LOOKING_UP', ENGINE, 'looking up the location and the image');
    progress.targets = await lookUp(run);
    for (const warning of progress.targets.warnings) recorder.note(ENGINE, warning);
  }
  for (;;) {
    const approved = progress.approved;
    const latest = currentQuote(progress);
    if (approved && latest && validatedSinceWait && !isQuoteStale(policy, latest.quotedAt, Date.now()))
      return undefined;
    const reason = approved
      ? 'validating again before buying, so the price charged is the price approved'
      : 'validating the order with the API';
    const current = await validate(run, reason);
    validatedSinceWait = true;
    const step = approved ? await decideRequote(run, approved, current) : await decideQuote(run, current);
    if (step.kind === 'end') return step.ending;
    if (step.kind === 'waited') validatedSinceWait = false;
    else if (approved) return undefined;
  }
}

/** What the gate did with a quote: approved it at once, waited for a round (then validates again), or ended. */
type GateStep = { kind: 'approved' } | { kind: 'waited' } | { kind: 'end'; ending: NonNullable<Ending> };

/** A first quote (or one after a round): approved by the policy on its own, or put to a tier's round. */
async function decideQuote(run: GovernedRun, current: QuoteRecord): Promise<GateStep> {
  const requirement = approvalRequirement(run.policy, current);
  if (requirement.kind === 'needs-approval') {
    const reason = `${current.monthlyRate} ${current.currency} needs the "${requirement.tier.name}" tier (${requirement.cause})`;
    return putToRound(run, { tier: requirement.tier, quote: current, reason });
  }
  const escalated = await budgetRound(run, current, null);
  if (escalated) return afterVerdict(run, escalated);
  const verdict = await commitApproval(run, current, null);
  if (verdict.kind !== 'approve') return afterVerdict(run, verdict);
  approve(run, current, 'policy', `${current.monthlyRate} ${current.currency} is below the auto-approve line`, verdict);
  return { kind: 'approved' };
}

/** A quote validated again after the approval: bought on it (a rise commits again), or put to a new round. */
async function decideRequote(run: GovernedRun, approved: QuoteRecord, current: QuoteRecord): Promise<GateStep> {
  const { policy, recorder } = run;
  const decision = requoteDecision(policy, approved, current);
  if (decision.decision === 'buy') {
    const rose = current.monthlyRate > approved.monthlyRate;
    const why = `the price rose from ${approved.monthlyRate} to ${current.monthlyRate} ${current.currency}`;
    const verdict = rose
      ? await commitApproval(run, current, recorder.progress.round?.tier ?? null, why)
      : ({ kind: 'approve', details: {} } as const);
    if (verdict.kind !== 'approve') return afterVerdict(run, verdict);
    const reason = `re-validated at ${current.monthlyRate} ${current.currency}: within the approval given`;
    approve(run, current, 'policy', reason, verdict);
    return { kind: 'approved' };
  }
  const requirement = approvalRequirement(policy, current);
  const tier = requirement.kind === 'needs-approval' ? requirement.tier : lowestTier(policy);
  return putToRound(run, { tier, quote: current, reason: decision.reason });
}

/** A round on the quote, at the tier its budget needs when that is higher (or the order's end, when refused). */
async function putToRound(run: GovernedRun, start: RoundStart): Promise<GateStep> {
  const verdict = await budgetRound(run, start.quote, start.tier);
  if (verdict) return afterVerdict(run, verdict);
  const ending = await awaitApproval(run, start);
  return ending ? { kind: 'end', ending } : { kind: 'waited' };
}

async function afterVerdict(run: GovernedRun, verdict: Exclude<BudgetVerdict, { kind: 'approve' }>): Promise<GateStep> {
  if (verdict.kind === 'end') return verdict;
  const ending = await awaitApproval(run, verdict.start);
  return ending ? { kind: 'end', ending } : { kind: 'waited' };
}

/** The quote is approved: journaled with the budget figures the approval was checked against, when there were any. */
function approve(
  run: GovernedRun,
  quote: QuoteRecord,
  actor: string,
  reason: string,
  verdict: Extract<BudgetVerdict, { kind: 'approve' }>,
): void {
  const details = Object.keys(verdict.details).length > 0 ? verdict.details : undefined;
  run.recorder.moveTo('APPROVED', actor, reason, details);
  run.recorder.progress.approved = quote;
}

/**
 * The location and the image, looked up side by side (one API read each, each its own local activity). When both
 * fail, the order fails with the location's failure and notes the image's.
 */
async function lookUp(run: OrderRun): Promise<OrderTargets> {
  const input = { ...orderContext(run), request: run.recorder.input.request };
  const [location, image] = await Promise.allSettled([reads.lookUpLocation(input), reads.lookUpImage(input)]);
  if (location.status === 'rejected') {
    if (image.status === 'rejected')
      run.recorder.note(
        ENGINE,
        `the image could not be looked up either: ${summarise(image.reason, 'the image lookup failed').message}`,
      );
    throw location.reason;
  }
  if (image.status === 'rejected') throw image.reason;
  return {
    location: location.value.location,
    image: image.value.image,
    kind: image.value.kind,
    warnings: [...location.value.warnings, ...image.value.warnings],
  };
}

/** Validates the order with the API and records the quote. */
async function validate(run: OrderRun, reason: string): Promise<QuoteRecord> {
  const { recorder } = run;
  recorder.moveTo('VALIDATING', ENGINE, reason);
  const validated = await reads.validateOrder({
    ...orderContext(run),
    request: recorder.input.request,
    targets: recorder.progress.targets!,
  });
  const quote: QuoteRecord = { ...validated, quotedAt: Date.now() };
  recorder.recordQuote(quote);
  return quote;
}

export function orderContext(run: OrderRun) {
  const { identity, input } = run.recorder;
  return { workflowId: identity.workflowId, runId: identity.runId, environment: input.request.environment };
}

/** After an automatic approval, a re-quote that asks again goes to the lowest tier. */
function lowestTier(policy: ApprovalPolicy): ApprovalTier {
  const tier = policy.tiers[0];
  return { index: 0, name: tier.name, roles: [...tier.roles], approvals: tier.approvals };
}
