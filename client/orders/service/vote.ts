import { formatQuote, notDecidable, quoteRefusal } from '../../../domain/approval/index.js';
import type { VoteResult } from '../../../workflows/order/messages.js';
import { allow, mayVote, VOTE_NEEDS_ROLE } from '../access.js';
import type { ApiOrder } from '../order-view.js';
import { sameIdentity, type Principal } from '../principal.js';
import { OrderConflict } from '../refusals.js';
import { keepVoteFigures } from './decision-figures.js';
import type { OrderServiceParts } from './parts.js';
import { readClaimedOrder } from './read.js';

export type Decision = 'approve' | 'reject';

/** The quote a vote decides on, as the caller was shown it, and what they say of it. */
export interface NamedQuote {
  monthlyRate: number;
  currency: string;
  comment?: string;
}

/** The round after the vote; `alreadyDone` when the vote repeats one that was counted (nothing changed). */
export type VoteOutcome = VoteResult & { alreadyDone?: string };

/**
 * A vote by the caller on the quote they name; a price that moved since they looked is refused with the new one.
 * `sending` is called right before the vote leaves for the order's workflow.
 */
export async function vote(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  decision: Decision,
  named: NamedQuote,
  sending: () => void,
): Promise<VoteOutcome> {
  allow(mayVote(principal), VOTE_NEEDS_ROLE);
  const { order, ref } = await readClaimedOrder(parts, principal, name, 'act');
  if (order.waitingForWorkerSince)
    throw new OrderConflict(
      'NOT_STARTED',
      `no worker has started this order yet (waiting since ${order.waitingForWorkerSince}); it has no quote to decide on`,
    );
  const repeat = repeatedVote(order, principal, decision, named);
  if (repeat) return repeat;
  if (order.source === 'records')
    throw new OrderConflict('ORDER_CLOSED', `the order has ended (${order.state}); it takes no more decisions`);
  // The workflow's own rules, asked before the update is sent: a refusal here names the field the caller got wrong.
  const refusal = notDecidable(order.state) ?? quoteRefusal(named, order.quote!);
  if (refusal) {
    const details =
      refusal.code === 'QUOTE_NOT_CURRENT'
        ? [{ path: 'monthlyRate', message: `the current quote is ${formatQuote(order.quote!)}` }]
        : undefined;
    throw new OrderConflict(refusal.code, refusal.reason, details);
  }
  const approverId = await parts.intake.canonicalRequester(principal.id);
  await keepVoteFigures(parts, order, approverId);
  const fields = { approverId, ...named };
  return decision === 'approve'
    ? parts.orders.approve(ref, fields, sending)
    : parts.orders.reject(ref, fields, sending);
}

/**
 * The caller's vote of the same decision on the same quote, already counted: a repeat (a retry after a 503 that said
 * it may have taken effect), answered with the round as it stands.
 */
function repeatedVote(
  order: ApiOrder,
  principal: Principal,
  decision: Decision,
  named: { monthlyRate: number; currency: string },
): VoteOutcome | undefined {
  const round = order.approval;
  const earlier = round?.votes.find((vote) => sameIdentity(vote.approverId, principal.id));
  if (!round || !earlier || earlier.decision !== decision) return undefined;
  if (earlier.monthlyRate !== named.monthlyRate || earlier.currency !== named.currency) return undefined;
  const rejected = round.votes.some((vote) => vote.decision === 'reject');
  return {
    state: order.state,
    approvedBy: rejected
      ? []
      : round.votes.filter((vote) => vote.decision === 'approve').map((vote) => vote.approverId),
    stillNeeded: round.stillNeeded,
    alreadyDone: `your ${decision === 'approve' ? 'approval' : 'rejection'} of ${formatQuote(named)} was already counted: this repeats a vote that took effect; nothing changed`,
  };
}
