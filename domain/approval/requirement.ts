import type { ApprovalPolicy } from './policy.js';

/** The price the API quoted for an order (the spec's `price.monthlyRate` and `price.currency`). */
export interface Quote {
  monthlyRate: number;
  currency: string;
}

/** A tier as the workflow needs it: who may vote and how many distinct approvers must approve. */
export interface ApprovalTier {
  /** Position in the policy's tiers, lowest first: a higher index is a higher tier. */
  index: number;
  name: string;
  roles: readonly string[];
  approvals: number;
}

export type HumanApprovalCause =
  'above-auto-approve-line' | 'unknown-currency' | 'invalid-amount' | 'always-require-human';

export type ApprovalRequirement =
  { kind: 'auto-approved' } | { kind: 'needs-approval'; tier: ApprovalTier; cause: HumanApprovalCause };

/**
 * What a quote needs before it may be bought. Below the currency's auto-approve line (strictly) it is
 * approved at once unless the policy always wants a human; otherwise the lowest tier whose `upTo` covers
 * the amount. A currency the policy does not know, or an amount that is not a finite non-negative number,
 * takes the top tier: when in doubt, the strictest approval.
 */
export function approvalRequirement(policy: ApprovalPolicy, quote: Quote): ApprovalRequirement {
  const top = policy.tiers.length - 1;
  const line = policy.autoApproveBelow[quote.currency];
  if (line === undefined) return { kind: 'needs-approval', tier: tierAt(policy, top), cause: 'unknown-currency' };
  if (!Number.isFinite(quote.monthlyRate) || quote.monthlyRate < 0) {
    return { kind: 'needs-approval', tier: tierAt(policy, top), cause: 'invalid-amount' };
  }
  if (quote.monthlyRate < line) {
    return policy.alwaysRequireHuman
      ? { kind: 'needs-approval', tier: tierAt(policy, 0), cause: 'always-require-human' }
      : { kind: 'auto-approved' };
  }
  const index = policy.tiers.findIndex((tier) => {
    const limit = tier.upTo?.[quote.currency];
    return limit === undefined || quote.monthlyRate <= limit;
  });
  return { kind: 'needs-approval', tier: tierAt(policy, index === -1 ? top : index), cause: 'above-auto-approve-line' };
}

function tierAt(policy: ApprovalPolicy, index: number): ApprovalTier {
  const tier = policy.tiers[index];
  return { index, name: tier.name, roles: [...tier.roles], approvals: tier.approvals };
}

export type RequoteDecision =
  | { decision: 'buy' }
  | { decision: 'ask-again'; code: 'CURRENCY_CHANGED' | 'PRICE_ROSE' | 'TIER_RAISED'; reason: string };

/**
 * After a stale quote is validated again: may the order be bought on the approval it has, or must it go
 * back for approval? The same price or lower, or a new price that needs no human at all, buys. A new
 * currency, a rise beyond the policy's allowance (every allowance set must hold), or a rise into a higher
 * tier than the one that approved (or into any tier, after an automatic approval) asks again.
 */
export function requoteDecision(policy: ApprovalPolicy, approvedQuote: Quote, newQuote: Quote): RequoteDecision {
  if (newQuote.currency !== approvedQuote.currency) {
    return {
      decision: 'ask-again',
      code: 'CURRENCY_CHANGED',
      reason: `the quote changed currency from ${approvedQuote.currency} to ${newQuote.currency}`,
    };
  }
  const rise = micros(newQuote.monthlyRate) - micros(approvedQuote.monthlyRate);
  if (rise <= 0) return { decision: 'buy' };

  const now = approvalRequirement(policy, newQuote);
  if (now.kind === 'auto-approved') return { decision: 'buy' };

  const before = approvalRequirement(policy, approvedQuote);
  const approvedTier = before.kind === 'auto-approved' ? -1 : before.tier.index;
  if (now.tier.index > approvedTier) {
    return {
      decision: 'ask-again',
      code: 'TIER_RAISED',
      reason: `${formatQuote(newQuote)} needs the "${now.tier.name}" tier, above the approval given for ${formatQuote(approvedQuote)}`,
    };
  }

  const allowance = riseAllowanceMicros(policy, approvedQuote);
  if (rise > allowance) {
    return {
      decision: 'ask-again',
      code: 'PRICE_ROSE',
      reason: `the monthly rate rose from ${formatQuote(approvedQuote)} to ${formatQuote(newQuote)}, more than the policy allows without a new approval`,
    };
  }
  return { decision: 'buy' };
}

/** The largest rise (in millionths) every configured allowance permits; none configured means none allowed. */
function riseAllowanceMicros(policy: ApprovalPolicy, approvedQuote: Quote): number {
  const { amount, percent } = policy.maxRiseWithoutApproval;
  const limits: number[] = [];
  const absolute = amount[approvedQuote.currency];
  if (absolute !== undefined) limits.push(micros(absolute));
  if (percent !== undefined) limits.push(micros((approvedQuote.monthlyRate * percent) / 100));
  return limits.length === 0 ? 0 : Math.min(...limits);
}

/** Money compared in whole millionths, so 1049.99 - 999.99 is exactly 50 and boundaries behave. */
function micros(value: number): number {
  return Math.round(value * 1_000_000);
}

export function formatQuote(quote: Quote): string {
  return `${quote.monthlyRate} ${quote.currency}`;
}
