import { z } from 'zod';
import type { OrderState } from '../lifecycle/index.js';
import { lookAlikeIdentities, quotedName, sameIdentity } from './identity.js';
import { formatQuote, type ApprovalTier, type Quote } from './requirement.js';

/** An approver as the directory knows them; the workflow gets a snapshot from an activity. */
export interface Approver {
  id: string;
  roles: readonly string[];
  active: boolean;
}

/**
 * A vote, as sent with the `approve`/`reject` update or signal. The approver names the quote they saw, so a
 * vote can never approve a price they were not shown.
 */
function buildVoteSchema() {
  return z.strictObject({
    approverId: z.string().trim().min(1, 'must name the approver').max(200, 'must be at most 200 characters'),
    decision: z.enum(['approve', 'reject']),
    monthlyRate: z.number().finite().nonnegative(),
    currency: z.string().min(1, 'must name the currency of the quote'),
    comment: z.string().max(2000, 'must be at most 2000 characters').optional(),
  });
}

let voteSchema: ReturnType<typeof buildVoteSchema> | undefined;

export type ApprovalVote = z.output<ReturnType<typeof buildVoteSchema>>;

/** One approval round: the votes cast on the current quote (the workflow starts a new list when it asks again). */
export interface ApprovalRound {
  requesterId: string;
  quote: Quote;
  tier: ApprovalTier;
  approvers: readonly Approver[];
  /** Votes accepted so far in this round, oldest first. */
  votes: readonly ApprovalVote[];
}

export interface ApprovalState extends Omit<ApprovalRound, 'tier'> {
  status: OrderState;
  /** The tier of the current round; null when the order has none (auto-approved, or not yet quoted). */
  tier: ApprovalTier | null;
}

export type VoteRefusalCode =
  | 'INVALID_VOTE'
  | 'NOT_AWAITING_APPROVAL'
  | 'APPROVER_UNKNOWN'
  | 'APPROVER_INACTIVE'
  | 'REQUESTER_CANNOT_VOTE'
  | 'APPROVER_LACKS_ROLE'
  | 'QUOTE_NOT_CURRENT'
  | 'ALREADY_VOTED';

export interface VoteRefusal {
  ok: false;
  code: VoteRefusalCode;
  /** For people: says what is wrong and, where it helps, what to do. Holds no secret. */
  reason: string;
}

export type VoteCheck = { ok: true; vote: ApprovalVote } | VoteRefusal;

/**
 * May this vote be accepted now? Pure, so it serves as the update validator (a refusal changes nothing) and
 * as the check on the signal path (a refused signal is recorded and ignored).
 */
export function validateApprovalVote(state: ApprovalState, vote: unknown): VoteCheck {
  // Built on first use and kept, as the policy's schemas are (see `policySchemas`).
  voteSchema ??= buildVoteSchema();
  const parsed = voteSchema.safeParse(vote);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join('.') : 'vote';
    return refuse('INVALID_VOTE', `${field}: ${issue.message}`);
  }
  const closed = notDecidable(state.status, state.tier !== null);
  if (closed) return closed;
  const refusal = refusalFor({ ...state, tier: state.tier! }, parsed.data, state.votes);
  if (refusal) return refusal;
  // Recorded under the directory's spelling of the id, whatever case the caller's identity used.
  const approver = state.approvers.find((candidate) => sameIdentity(candidate.id, parsed.data.approverId))!;
  return { ok: true, vote: { ...parsed.data, approverId: approver.id } };
}

/** The order takes no vote now: it is not in an approval round (`inRound`: the workflow's own view of it). */
export function notDecidable(status: string, inRound = true): VoteRefusal | undefined {
  if (status === 'AWAITING_APPROVAL' && inRound) return undefined;
  return refuse('NOT_AWAITING_APPROVAL', `the order is ${status}, not awaiting approval`);
}

/**
 * Why this voter may not decide in the round, given the votes before theirs; undefined when they may. The workflow
 * asks it of the directory's record of the approver; the console asks it of the signed-in person, to say why there
 * is nothing for them to decide before they try.
 */
export function voterRefusal(
  round: Pick<ApprovalRound, 'requesterId' | 'tier'>,
  name: string,
  voter: Approver | undefined,
  earlier: readonly ApprovalVote[],
): VoteRefusal | undefined {
  if (!voter) return refuse('APPROVER_UNKNOWN', `approver "${name}" is not in the approver directory`);
  if (!voter.active) return refuse('APPROVER_INACTIVE', `approver "${name}" is not active`);
  // The requester as the order names them, matched strictly: their own name in any case or width, and names that
  // only look like theirs (another script's letters, invisible characters), are the requester.
  if (lookAlikeIdentities(voter.id, round.requesterId)) {
    return refuse(
      'REQUESTER_CANNOT_VOTE',
      sameIdentity(voter.id, round.requesterId)
        ? `approver "${name}" requested this order and cannot vote on it (a requester withdraws an order with cancel)`
        : `approver "${name}" cannot vote on this order: its requester ${quotedName(round.requesterId)} looks like the same person, and a requester cannot vote on their own order`,
    );
  }
  if (!voter.roles.some((role) => round.tier.roles.includes(role))) {
    return refuse(
      'APPROVER_LACKS_ROLE',
      `approver "${name}" has none of the roles the "${round.tier.name}" tier needs (${round.tier.roles.join(', ')})`,
    );
  }
  if (earlier.some((previous) => sameIdentity(previous.approverId, voter.id))) {
    return refuse('ALREADY_VOTED', `approver "${name}" has already voted on this quote`);
  }
  return undefined;
}

/** A vote names the quote its voter saw: one that is not the current quote is refused, so no one approves a price unseen. */
export function quoteRefusal(named: Quote, current: Quote): VoteRefusal | undefined {
  if (named.monthlyRate === current.monthlyRate && named.currency === current.currency) return undefined;
  return refuse(
    'QUOTE_NOT_CURRENT',
    `the vote names ${formatQuote(named)} but the current quote is ${formatQuote(current)}; read the order's status and vote on the current quote`,
  );
}

/** Why this vote does not count in the round, given the votes before it; undefined when it counts. */
function refusalFor(
  round: ApprovalRound,
  vote: ApprovalVote,
  earlier: readonly ApprovalVote[],
): VoteRefusal | undefined {
  const approver = round.approvers.find((candidate) => sameIdentity(candidate.id, vote.approverId));
  return voterRefusal(round, vote.approverId, approver, earlier) ?? quoteRefusal(vote, round.quote);
}

function refuse(code: VoteRefusalCode, reason: string): VoteRefusal {
  return { ok: false, code, reason };
}

export type TallyResult =
  | { outcome: 'waiting'; approvedBy: string[]; stillNeeded: number }
  | { outcome: 'approved'; approvedBy: string[] }
  | { outcome: 'rejected'; rejectedBy: string; comment?: string };

/**
 * Counts the round's votes in order. Each vote is checked again (defence in depth: a vote that would be
 * refused never counts), and an approver's first counted vote is their only one. The first decisive vote
 * wins: one reject from an authorised approver rejects the order (any approver allowed to approve may
 * veto); it is approved once `tier.approvals` distinct authorised approvers have approved.
 */
export function tallyVotes(round: ApprovalRound): TallyResult {
  const counted: ApprovalVote[] = [];
  const approvedBy: string[] = [];
  for (const vote of round.votes) {
    if (refusalFor(round, vote, counted)) continue;
    counted.push(vote);
    if (vote.decision === 'reject') {
      return vote.comment === undefined
        ? { outcome: 'rejected', rejectedBy: vote.approverId }
        : { outcome: 'rejected', rejectedBy: vote.approverId, comment: vote.comment };
    }
    approvedBy.push(vote.approverId);
    if (approvedBy.length >= round.tier.approvals) return { outcome: 'approved', approvedBy };
  }
  return { outcome: 'waiting', approvedBy, stillNeeded: round.tier.approvals - approvedBy.length };
}
