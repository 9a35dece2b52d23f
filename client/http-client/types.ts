import type { ApiOrder, OrderListItem } from '../orders/index.js';
import type { VoteResult as WorkflowVoteResult } from '../../workflows/order/messages.js';
import type { OrderState } from '../../domain/lifecycle/index.js';

// The HTTP API's shapes as a caller sees them (client/http/schemas.ts is the server's side of the same contract).

/** One problem with the input: where (a path into the body, query or URL) and which rule it breaks. */
export interface ApiErrorDetail {
  path: string;
  message: string;
}

export type { ApiOrder, OrderListItem } from '../orders/index.js';

export interface SubmitResult {
  /** true: a new order started (201); false: the ticket already had this very order (200). */
  created: boolean;
  order: ApiOrder;
  warnings: ApiErrorDetail[];
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
  /** The team's figures the approver was shown when voting (the shape of an order's `budget`); null: none. */
  figures?: Record<string, unknown> | null;
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
  /** When the buy request was about to leave; null: it never left. */
  sentAt: string | null;
}

export interface OrderHistory {
  orderId: string;
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

/** Set when the request repeated the caller's action that already took effect: what it was; nothing changed. */
interface Repeat {
  alreadyDone?: string;
}

/** A vote's answer: the round as it stands. */
export type VoteResult = WorkflowVoteResult & Repeat;

/** An action's answer: the state the order went to. */
export type StateResult = { state: OrderState } & Repeat;

/** `attempt`: the buy attempt ops checked at the provider (the order's `buyAttempts`); a later one is not settled. */
export type ResolveBuyInput =
  | { outcome: 'created'; attempt: number; technicalServiceUid: string; note?: string }
  | { outcome: 'not-created'; attempt: number; note: string };

/** One order awaiting the caller's decision (the server's schema of `GET /api/v1/approvals`). */
export type { PendingApproval } from '../http/schemas.js';

export interface Me {
  id: string;
  /** Unique across credentials: an API token's owner, or `<issuer>#<username>` for an OIDC person. */
  qualifiedId: string;
  roles: string[];
  via: 'oidc' | 'token';
  can: {
    readOrders: boolean;
    submit: boolean;
    approve: boolean;
    seeAllOrders: boolean;
    resolveBuys: boolean;
    readHistoryPayloads: boolean;
  };
}

/** What `POST /api/v1/orders/{id}/recover` answers: the run that was reset, and the one that goes on in its place. */
export interface OrderRecovery {
  orderId: string;
  recoveredRunId: string;
  runId: string;
  resetToEventId: number;
}
