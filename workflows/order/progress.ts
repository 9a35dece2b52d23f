import type { OrderRequest } from '../../schemas/index.js';
/**
 * The order's state in one plain object: what the status query shows, what each step reads and changes, and what
 * a long wait carries into a new run (continue-as-new). Pure data and pure functions: no Temporal API here, so it
 * is tested outside a workflow.
 */
import type { ErrorSummary, GoverningPolicy, OrderTargets, ProductRecord, QuoteRecord } from './activity-types.js';
import { canTransition, type OrderState } from '../../domain/lifecycle/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import {
  approverShortfall,
  eligibleApprovers,
  tallyVotes,
  type ApprovalTier,
  type ApprovalVote,
  type Approver,
  type BudgetFit,
} from '../../domain/approval/index.js';
import type { OrderStatusView, TimelineEntry } from './messages.js';

/** What opens an approval round (approval-round.ts). */
export interface RoundStart {
  tier: ApprovalTier;
  quote: QuoteRecord;
  /** Why approval is needed, as the timeline says it. */
  reason: string;
  /** Set when the round's tier is the budget's: the figures that put the price over it (the reason says why). */
  budget?: BudgetFit;
}

export interface ApprovalRound {
  tier: ApprovalTier;
  quote: QuoteRecord;
  /** Which of the order's quotes is being decided (1 = the first). */
  quoteNumber: number;
  approvers: Approver[];
  votes: ApprovalVote[];
  /** When the round began, on the workflow clock (reminders are counted from it). */
  startedAt: number;
  deadline: number;
  remindersSent: number;
  /** When `approvers` was last read from the directory (absent in rounds begun before it was kept: `startedAt`). */
  directoryReadAt?: number;
  /** While the round is short of approvers (`approverShortfall`): when the order reads the directory again. */
  nextDirectoryReadAt?: number;
  /** Why the round's tier is the budget's: the price would take the team over its budget. */
  overBudget?: string;
}

/** The follow-up of the bought product's provisioning, on the workflow clock (epoch ms). */
export interface ProvisioningProgress {
  /** When the follow-up began: the order's move to BOUGHT. */
  startedAt: number;
  /** When the order ends PROVISIONING_STALLED if the product is not live. */
  deadline: number;
  /** Each status the product was seen in, in order, with when it was first seen (the buy's answer first). */
  statuses: Array<{ status: string; at: number }>;
  /** Reads made (each one that answered or failed); the wait before the next one grows with them. */
  reads: number;
  /** When the API last answered a read. */
  lastAnsweredAt?: number;
  /** Reads that failed since the last answer. */
  failedReads: number;
  remindersSent: number;
  /**
   * Who settled an uncertain buy as created, when the order was bought that way: the follow-up began then, and its
   * first status is the one the provider reported at the settlement.
   */
  settledBy?: string;
}

export interface OrderProgress {
  state: OrderState;
  /** The journal's sequence: every entry and timeline line takes the next one. */
  seq: number;
  timeline: TimelineEntry[];
  governing?: GoverningPolicy;
  targets?: OrderTargets;
  /** Every quote the order was given, oldest first: a price that rose is shown as such. */
  quotes: QuoteRecord[];
  /** The quote last approved, by the policy or by people: a re-validation is compared with it. */
  approved?: QuoteRecord;
  round?: ApprovalRound;
  buyAttempts: number;
  /** Reminders sent about the uncertain buy now waiting for ops. */
  buyRemindersSent: number;
  product?: ProductRecord;
  /**
   * How the workers follow the bought product until it is live, given when the order began (absent: the order ends
   * at BOUGHT), and how far the follow-up has come.
   */
  followUp?: ProvisioningPlan;
  provisioning?: ProvisioningProgress;
  lastError?: ErrorSummary & { at: string };
  /** Nonces of the signed actions this order accepted: the same signed message is never accepted twice. */
  acceptedNonces: string[];
}

export function newProgress(): OrderProgress {
  return {
    state: 'RECEIVED',
    seq: 0,
    timeline: [],
    quotes: [],
    buyAttempts: 0,
    buyRemindersSent: 0,
    acceptedNonces: [],
  };
}

/** The order's latest quote. */
export function currentQuote(progress: OrderProgress): QuoteRecord | undefined {
  return progress.quotes.at(-1);
}

/**
 * Moves the order to `to` (asserted against the state table) and returns the timeline line it adds, numbered `seq`:
 * the next sequence number, unless a step numbered the move itself (see `OrderRecorder.adopt`).
 */
export function advance(
  progress: OrderProgress,
  to: OrderState,
  actor: string,
  reason: string,
  at: number,
  seq = progress.seq + 1,
): TimelineEntry {
  if (!canTransition(progress.state, to)) {
    // A bug, not a business outcome: fail the workflow task so the order parks visibly, unchanged.
    throw new Error(`illegal order transition ${progress.state} -> ${to}`);
  }
  progress.state = to;
  progress.seq = Math.max(progress.seq, seq);
  const entry: TimelineEntry = { seq, at: new Date(at).toISOString(), state: to, actor, reason };
  progress.timeline.push(entry);
  return entry;
}

/** The round as the approval rules read it. */
export function roundFacts(requesterId: string, round: ApprovalRound) {
  return { requesterId, quote: round.quote, tier: round.tier, approvers: round.approvers, votes: round.votes };
}

/** Who could vote on the round by the directory it holds, and whether that is fewer than its tier needs. */
export function roundEligibility(requesterId: string, round: ApprovalRound) {
  const facts = { requesterId, tier: round.tier };
  const eligible = eligibleApprovers(facts, round.approvers);
  return { eligible, shortfall: approverShortfall(facts, eligible) };
}

/** The round as the status query shows it. */
function approvalView(
  progress: OrderProgress,
  requesterId: string,
  round: ApprovalRound,
): NonNullable<OrderStatusView['approval']> {
  const iso = (at: number) => new Date(at).toISOString();
  const tally = tallyVotes(roundFacts(requesterId, round));
  const { eligible, shortfall } = roundEligibility(requesterId, round);
  const waiting = progress.state === 'AWAITING_APPROVAL';
  return {
    tier: round.tier,
    votes: [...round.votes],
    stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
    deadline: iso(round.deadline),
    remindersSent: round.remindersSent,
    eligibleApprovers: eligible.length,
    directoryReadAt: iso(round.directoryReadAt ?? round.startedAt),
    ...(round.overBudget !== undefined ? { overBudget: round.overBudget } : {}),
    ...(waiting && shortfall
      ? {
          shortOfApprovers: {
            ...shortfall,
            ...(round.nextDirectoryReadAt !== undefined ? { nextDirectoryReadAt: iso(round.nextDirectoryReadAt) } : {}),
          },
        }
      : {}),
  };
}

/** The order as the status query shows it. */
export function statusView(
  progress: OrderProgress,
  input: { request: OrderRequest; submittedBy?: string | undefined },
  workflowId: string,
  firstRunId?: string,
): OrderStatusView {
  const { request } = input;
  const { round, governing, targets } = progress;
  const quote = currentQuote(progress);
  return {
    workflowId,
    ...(firstRunId ? { firstRunId } : {}),
    ticketId: request.ticketId,
    environment: request.environment,
    requestedBy: request.requestedBy,
    ...(input.submittedBy ? { submittedBy: input.submittedBy } : {}),
    state: progress.state,
    ...(governing ? { policy: { version: governing.version, hash: governing.hash } } : {}),
    ...(targets ? { location: targets.location, image: targets.image, kind: targets.kind } : {}),
    ...(quote ? { quote } : {}),
    ...(progress.quotes.length > 1 ? { quoteHistory: [...progress.quotes] } : {}),
    ...(round ? { approval: approvalView(progress, request.requestedBy, round) } : {}),
    buyAttempts: progress.buyAttempts,
    ...(progress.product ? { product: progress.product } : {}),
    ...(progress.provisioning ? { provisioning: provisioningView(progress.provisioning) } : {}),
    ...(progress.lastError ? { lastError: progress.lastError } : {}),
    timeline: [...progress.timeline],
  };
}

function provisioningView(follow: ProvisioningProgress): NonNullable<OrderStatusView['provisioning']> {
  const iso = (at: number) => new Date(at).toISOString();
  const current = follow.statuses.at(-1)!;
  return {
    status: current.status,
    since: iso(current.at),
    // When the order was bought, as its timeline says: the first status was seen then. (`startedAt` counts the
    // deadline and reminders on the workflow's clock, which can stand a little earlier: see OrderRecorder.now.)
    startedAt: iso(follow.statuses[0].at),
    deadline: iso(follow.deadline),
    ...(follow.lastAnsweredAt !== undefined ? { lastAnsweredAt: iso(follow.lastAnsweredAt) } : {}),
    failedReads: follow.failedReads,
    remindersSent: follow.remindersSent,
    statuses: follow.statuses.map(({ status, at }) => ({ status, at: iso(at) })),
    ...(follow.settledBy !== undefined ? { settledBy: follow.settledBy } : {}),
  };
}
