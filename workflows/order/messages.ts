import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalTier, ApprovalVote } from '../approval/index.js';
import type { ChosenImage, ChosenLocation, ProductRecord, QuoteRecord } from '../../activities/order/types.js';
import type { OrderState } from './states.js';

/** One line of the order's timeline, as `status` shows it. */
export interface TimelineEntry {
  seq: number;
  at: string;
  state: OrderState;
  actor: string;
  reason: string;
}

export interface OrderStatusView {
  workflowId: string;
  ticketId: string;
  environment: 'staging' | 'production';
  requestedBy: string;
  state: OrderState;
  location?: ChosenLocation;
  image?: ChosenImage;
  kind?: string;
  quote?: QuoteRecord;
  approval?: {
    tier: ApprovalTier;
    votes: ApprovalVote[];
    stillNeeded: number;
    deadline: string;
    remindersSent: number;
  };
  buyAttempts: number;
  product?: ProductRecord;
  lastError?: { message: string; type?: string; traceId?: string; at: string };
  timeline: TimelineEntry[];
}

/** A finance approver's vote; `monthlyRate` and `currency` are the quote they were shown. */
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

/** Ops' answer for an order in BUY_UNCERTAIN, after checking the provider's portal. */
export type ResolveBuyInput =
  | { actor: string; outcome: 'created'; technicalServiceUid: string; provisioningStatus?: string; note?: string }
  | { actor: string; outcome: 'not-created'; note: string };

export const statusQuery = defineQuery<OrderStatusView>('status');
export const approveUpdate = defineUpdate<VoteResult, [VoteInput]>('approve');
export const rejectUpdate = defineUpdate<VoteResult, [VoteInput]>('reject');
/** The same decision for systems that can only signal: an invalid one is recorded and ignored. */
export const decisionSignal = defineSignal<[VoteInput & { decision: 'approve' | 'reject' }]>('decision');
export const cancelUpdate = defineUpdate<OrderState, [CancelInput]>('cancel');
export const resolveBuyUpdate = defineUpdate<OrderState, [ResolveBuyInput]>('resolveBuy');
