import { approvalRequirement, formatQuote, requoteDecision, type Quote } from './requirement.js';
import { tallyVotes, type ApprovalVote, type Approver } from './votes.js';
import type { ApprovalPolicy } from './policy.js';

/** What the records hold of an order's approval, each part already proven (quotes sealed, votes signed). */
export interface ApprovalEvidence {
  policy: ApprovalPolicy;
  requesterId: string;
  /** The prices the order was quoted, oldest first; the last is the one to pay. */
  quotes: readonly Quote[];
  /** The votes cast on the order, oldest first. */
  votes: readonly ApprovalVote[];
  approvers: readonly Approver[];
}

/**
 * Why the last quote may not be bought on this evidence, or undefined when it may: it needs no human under the policy,
 * or a quote before it (or it) was approved by enough authorised approvers — each vote counted as the workflow counts
 * it (`tallyVotes`) — and the rise since then is one the policy lets through without asking again (`requoteDecision`).
 */
export function approvalRefusal(evidence: ApprovalEvidence): string | undefined {
  const { policy, quotes } = evidence;
  const buying = quotes.at(-1);
  if (!buying) return 'the order has no quote';
  for (const quote of [...quotes].reverse()) {
    if (!approved(evidence, quote)) continue;
    if (samePrice(quote, buying) || requoteDecision(policy, quote, buying).decision === 'buy') return undefined;
  }
  return `no approval under the policy covers ${formatQuote(buying)}`;
}

function approved(evidence: ApprovalEvidence, quote: Quote): boolean {
  const requirement = approvalRequirement(evidence.policy, quote);
  if (requirement.kind === 'auto-approved') return true;
  const tally = tallyVotes({
    requesterId: evidence.requesterId,
    quote,
    tier: requirement.tier,
    approvers: evidence.approvers,
    votes: evidence.votes.filter((vote) => samePrice(vote, quote)),
  });
  return tally.outcome === 'approved';
}

function samePrice(a: Quote, b: Quote): boolean {
  return a.currency === b.currency && Math.round(a.monthlyRate * 1e6) === Math.round(b.monthlyRate * 1e6);
}
