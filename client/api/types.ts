import type { ChosenImage, ChosenLocation, ProductRecord } from '../../activities/order/types.js';
import type { OrderStatusView, TimelineEntry, VoteResult } from '../../workflows/order/messages.js';
import type { OrderState } from '../../workflows/order/states.js';

// The HTTP API's shapes as a caller sees them (client/http/schemas.ts is the server's side of the same contract).

/** One problem with the input: where (a path into the body, query or URL) and which rule it breaks. */
export interface ApiErrorDetail {
  path: string;
  message: string;
}

/** The governing approval policy, recorded on the order when it started. */
export interface ApiPolicy {
  version: string;
  /** SHA-256 (hex) of the environment's policy as the workers parsed it. */
  hash: string;
}

/**
 * An order: live from its workflow (`source: 'workflow'`, every field the status query has) or, once Temporal
 * has forgotten it, from the records (`source: 'records'`: no location, image or approval details).
 */
export interface ApiOrder {
  ticketId: string;
  workflowId: string;
  environment: string;
  requestedBy: string;
  submittedBy: string | null;
  state: OrderState;
  policy: ApiPolicy | null;
  quote: { monthlyRate: number; currency: string; quotedAt?: string } | null;
  source: 'workflow' | 'records';
  location?: ChosenLocation;
  image?: ChosenImage;
  kind?: string;
  approval?: OrderStatusView['approval'];
  buyAttempts?: number;
  product?: (Pick<ProductRecord, 'technicalServiceUid' | 'provisioningStatus'> & Partial<ProductRecord>) | null;
  lastError?: { message: string; type?: string; traceId?: string; at: string } | null;
  timeline?: TimelineEntry[];
}

export interface SubmitResult {
  /** true: a new order started (201); false: the ticket already had this very order (200). */
  created: boolean;
  order: ApiOrder;
  warnings: ApiErrorDetail[];
}

/** One row of `GET /api/v1/orders` (from the records). */
export interface OrderListItem {
  ticketId: string;
  workflowId: string;
  environment: string;
  requestedBy: string;
  submittedBy: string | null;
  state: OrderState;
  quote: { monthlyRate: number; currency: string } | null;
  product: { technicalServiceUid: string; provisioningStatus: string } | null;
  lastError: { message: string; at: string } | null;
  policy: ApiPolicy | null;
  createdAt: string;
  updatedAt: string;
}

export interface OrderList {
  orders: OrderListItem[];
  /** Give it as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface ListOrdersQuery {
  status?: OrderState;
  environment?: 'staging' | 'production';
  requester?: string;
  limit?: number;
  cursor?: string;
}

/** One entry of an order's timeline in its history: a state change or a note, in sequence. */
export interface HistoryEntry {
  seq: number;
  at: string;
  kind: 'state' | 'note';
  state?: OrderState;
  actor: string;
  text: string;
}

export interface HistoryVote {
  quoteNumber: number;
  approverId: string;
  decision: string;
  monthlyRate: string;
  currency: string;
  reason: string | null;
  at: string;
}

export interface HistoryBuyAttempt {
  attempt: number;
  intentAt: string;
  outcome: string | null;
  technicalServiceUid: string | null;
  errorClass: string | null;
  errorMessage: string | null;
  finishedAt: string | null;
  resolvedBy: string | null;
}

export interface OrderHistory {
  ticketId: string;
  workflowId: string;
  timeline: HistoryEntry[];
  votes: HistoryVote[];
  buyAttempts: HistoryBuyAttempt[];
  /** Temporal's history events as proto3 JSON (payloads decoded for ops and admins, withheld for others); empty unless asked for. */
  events: unknown[];
}

export interface ApproveInput {
  monthlyRate: number;
  currency: string;
  comment?: string;
}

export interface RejectInput {
  monthlyRate: number;
  currency: string;
  reason: string;
}

export type { VoteResult };

export type ResolveBuyInput = { outcome: 'created'; technicalServiceUid: string; note?: string } | { outcome: 'not-created'; note: string };

/** One order awaiting the caller's decision. */
export interface PendingApproval {
  ticketId: string;
  requestedBy: string;
  environment: string;
  monthlyRate: number | null;
  currency: string | null;
  tier: string;
  approvalsNeeded: number;
  approvalsGiven: number;
  stillNeeded: number;
  deadline: string | null;
  waitingSince: string;
}

export interface Me {
  id: string;
  roles: string[];
  via: 'oidc' | 'token';
  can: { submit: boolean; approve: boolean; seeAllOrders: boolean; resolveBuys: boolean; readHistoryPayloads: boolean };
}
