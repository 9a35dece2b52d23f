import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalTier, ApprovalVote } from '../../domain/approval/index.js';
import type { ChosenImage, ChosenLocation, ProductRecord, QuoteRecord } from './activity-types.js';
import type { Signed } from './signed-action.js';
import type { OrderState } from '../../domain/lifecycle/index.js';

/** One line of the order's timeline, as `status` shows it. */
export interface TimelineEntry {
  seq: number;
  at: string;
  state: OrderState;
  actor: string;
  reason: string;
}

/** The approval policy that governs an order: obtained from the workers' configuration when the order started. */
export interface GoverningPolicyView {
  version: string;
  /** SHA-256 of the environment's policy as parsed (hex). */
  hash: string;
}

export interface OrderStatusView {
  workflowId: string;
  /** The order's first run: the run that claimed its ticket (runs of any other chain are not the order). */
  firstRunId?: string;
  ticketId: string;
  environment: 'staging' | 'production';
  /** The requester, as authenticated (or as named by a ticket system and matched against the directory). */
  requestedBy: string;
  /** Who submitted the order, as authenticated by the API (a requester, or a ticket system's token owner). */
  submittedBy?: string;
  state: OrderState;
  policy?: GoverningPolicyView;
  location?: ChosenLocation;
  image?: ChosenImage;
  kind?: string;
  quote?: QuoteRecord;
  /** Every quote, oldest first, when there was more than one (a re-validation). */
  quoteHistory?: QuoteRecord[];
  approval?: {
    tier: ApprovalTier;
    votes: ApprovalVote[];
    stillNeeded: number;
    deadline: string;
    remindersSent: number;
    /**
     * Approvers who could vote on the round by the directory as the order last read it (`directoryReadAt`): active,
     * holding one of the tier's roles, not the requester. Those who voted already are among them.
     */
    eligibleApprovers: number;
    directoryReadAt: string;
    /**
     * Set while the order awaits approval and fewer could vote than the tier needs: no one can approve it until the
     * directory changes. The order reads it again at `nextDirectoryReadAt` (absent on orders begun before it did).
     */
    shortOfApprovers?: { eligible: number; needed: number; message: string; nextDirectoryReadAt?: string };
    /** Set when the round's tier is the one the policy names for an order over its team's budget: why. */
    overBudget?: string;
  };
  buyAttempts: number;
  product?: ProductRecord;
  /** The follow-up of the product's provisioning, once bought, when the workers follow it (times are ISO text). */
  provisioning?: {
    /** The provider's latest status of the product (DEPLOYABLE, CONFIGURED, LIVE…) and since when it holds. */
    status: string;
    since: string;
    startedAt: string;
    deadline: string;
    lastAnsweredAt?: string;
    /** Reads that failed since the API last answered. */
    failedReads: number;
    remindersSent: number;
    /** Every status seen, oldest first, with when it was first seen: how long the product spent in each. */
    statuses: Array<{ status: string; at: string }>;
    /** Who settled an uncertain buy as created, when it was bought that way: the follow-up counts from then. */
    settledBy?: string;
  };
  lastError?: { message: string; type?: string; traceId?: string; at: string };
  timeline: TimelineEntry[];
}

/** A finance approver's vote; `monthlyRate` and `currency` are the quote they were shown; the approver is the authenticated caller. */
export interface VoteInput {
  approverId: string;
  monthlyRate: number;
  currency: string;
  comment?: string;
}

export interface VoteResult {
  state: OrderState;
  approvedBy: string[];
  stillNeeded: number;
}

export interface CancelInput {
  actor: string;
  reason: string;
}

/**
 * Ops' answer for an order in BUY_UNCERTAIN, after checking the provider's portal. `attempt` names the buy
 * attempt it settles, so an answer about one attempt can never settle a later one.
 */
export type ResolveBuyInput =
  | {
      actor: string;
      attempt: number;
      outcome: 'created';
      technicalServiceUid: string;
      provisioningStatus?: string;
      note?: string;
    }
  | { actor: string; attempt: number; outcome: 'not-created'; note: string };

/**
 * Every human action is an update carrying the HTTP API's signature (see signed-action.ts): the validator
 * refuses anything unsigned, forged or replayed, so raw Temporal access is not enough to decide.
 */
export const statusQuery = defineQuery<OrderStatusView>('status');
export const approveUpdate = defineUpdate<VoteResult, [Signed<VoteInput>]>('approve');
export const rejectUpdate = defineUpdate<VoteResult, [Signed<VoteInput>]>('reject');
export const cancelUpdate = defineUpdate<OrderState, [Signed<CancelInput>]>('cancel');
export const resolveBuyUpdate = defineUpdate<OrderState, [Signed<ResolveBuyInput>]>('resolveBuy');
