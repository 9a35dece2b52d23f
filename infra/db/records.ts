import type { BuyOutcome, Environment, OrderStatus } from './schemas.js';

// What the repository returns. Plain JSON-safe objects (times as ISO strings, money as decimal
// strings) so they cross a Temporal activity boundary unchanged.

export interface OrderRecord {
  workflowId: string;
  ticketId: string;
  environment: Environment;
  requestedBy: string;
  /** The workflow run that received it (null for orders recorded before runs were kept). */
  runId: string | null;
  /** Who submitted it through the HTTP API (null for orders started otherwise). */
  submittedBy: string | null;
  /** The request as recorded: secrets were redacted by the caller. */
  request: Record<string, unknown>;
  status: OrderStatus;
  quote: { number: number; monthlyRate: string; currency: string; quotedAt: string } | null;
  product: { technicalServiceUid: string; provisioningStatus: string } | null;
  lastError: { message: string; at: string } | null;
  /** The approval policy that governs the order (null until the workflow has read it). */
  policy: { version: string; hash: string } | null;
  /** The team the intake charged it to; null: none (its policy lists no teams, or it was recorded before teams). */
  team: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OrderEventRecord {
  sequence: number;
  from: OrderStatus | null;
  to: OrderStatus;
  actor: string;
  reason: string | null;
  details: Record<string, unknown>;
  at: string;
}

export interface ApprovalVoteRecord {
  quoteNumber: number;
  approverId: string;
  decision: 'approve' | 'reject';
  monthlyRate: string;
  currency: string;
  reason: string | null;
  at: string;
  /** The HTTP API's signature over the vote; null for votes recorded before signatures were kept. */
  signature: Record<string, unknown> | null;
  /**
   * The decision figures the API showed when it accepted the vote (the team's commitments and budget beside the price;
   * migrations/0022_vote_figures.sql); null: none (an order without a team, or a vote cast before they were kept).
   */
  figures: Record<string, unknown> | null;
}

export interface BuyAttemptRecord {
  attempt: number;
  intentAt: string;
  /** null: the intent was recorded and no outcome yet — a buy whose result nobody saw. */
  outcome: BuyOutcome | null;
  technicalServiceUid: string | null;
  errorClass: string | null;
  errorMessage: string | null;
  finishedAt: string | null;
  resolvedBy: string | null;
  /** The workflow run that made the attempt (null for attempts recorded before runs were kept). */
  runId: string | null;
  /** When the buy activity claimed the attempt to send it; null: its request never left (or it predates the claim). */
  sentAt: string | null;
}

/** Everything ops see about one order; events, votes and attempts in the order they happened. */
export interface OrderNoteRecord {
  sequence: number;
  actor: string;
  message: string;
  details: Record<string, unknown>;
  at: string;
}

/** An order waiting for votes, as an approver's inbox lists it. */
export interface AwaitingApprovalRecord {
  order: OrderRecord;
  tier: string;
  roles: string[];
  approvalsNeeded: number;
  approvalsGiven: number;
  deadline: string | null;
  waitingSince: string;
}

export interface OrderView {
  order: OrderRecord;
  events: OrderEventRecord[];
  /** Notes that are not state changes; their sequence numbers interleave with the events'. */
  notes: OrderNoteRecord[];
  approvals: ApprovalVoteRecord[];
  buyAttempts: BuyAttemptRecord[];
}

export interface ApproverRecord {
  id: string;
  displayName: string;
  roles: string[];
  /** The team (cost centre) the person's orders are charged to when a request names none; null: none. */
  team: string | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** An API token as lists and logs show it: never its secret, never its hash. */
export interface ApiTokenRecord {
  /** The public id: the `<id>` of `mvo_<id>_<secret>`. */
  id: string;
  /** Whom the token acts as. */
  owner: string;
  roles: string[];
  description: string | null;
  createdAt: string;
  /** null: never expires. */
  expiresAt: string | null;
  /** Approximate (written at most about once a minute); null: never used. */
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
}

// The rows the repositories read, column for column as the postgres driver returns them: timestamptz as Date, numeric
// and bigint as text, jsonb parsed. Queries name their row type (`sql<OrderRow[]>`) and the mappers below make records.

/** An `orders` row (with the ticket's `submitted_by`, as the order reads join it). */
export interface OrderRow {
  workflow_id: string;
  ticket_id: string;
  environment: Environment;
  requested_by: string;
  run_id: string | null;
  submitted_by: string | null;
  request: Record<string, unknown>;
  status: OrderStatus;
  quote_number: number | null;
  quote_monthly_rate: string | null;
  quote_currency: string | null;
  quoted_at: Date | null;
  product_technical_service_uid: string | null;
  product_provisioning_status: string | null;
  last_error: string | null;
  last_error_at: Date | null;
  policy_version: string | null;
  policy_hash: string | null;
  /** Absent from reads that name their columns without it. */
  team?: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderEventRow {
  sequence: number;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  actor: string;
  reason: string | null;
  details: Record<string, unknown>;
  at: Date;
}

export interface ApprovalVoteRow {
  quote_number: number;
  approver_id: string;
  decision: 'approve' | 'reject';
  monthly_rate: string;
  currency: string;
  reason: string | null;
  at: Date;
  signature: Record<string, unknown> | null;
  /** Absent from reads that do not join the vote's figures. */
  figures?: Record<string, unknown> | null;
}

export interface BuyAttemptRow {
  attempt: number;
  intent_at: Date;
  outcome: BuyOutcome | null;
  technical_service_uid: string | null;
  error_class: string | null;
  error_message: string | null;
  finished_at: Date | null;
  resolved_by: string | null;
  run_id: string | null;
  sent_at: Date | null;
}

export interface ApproverRow {
  id: string;
  display_name: string;
  roles: string[];
  team: string | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface OrderNoteRow {
  sequence: number;
  actor: string;
  message: string;
  details: Record<string, unknown>;
  at: Date;
}

/** An `api_tokens` row without its secret's hash. */
export interface ApiTokenRow {
  id: string;
  owner: string;
  roles: string[];
  description: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

// The order's column groups are complete or empty together (orders_quote_complete, orders_last_error_complete,
// orders_policy_complete), so one column's presence vouches for the rest of its group.
export function toOrder(row: OrderRow): OrderRecord {
  return {
    workflowId: row.workflow_id,
    ticketId: row.ticket_id,
    environment: row.environment,
    requestedBy: row.requested_by,
    runId: row.run_id ?? null,
    submittedBy: row.submitted_by ?? null,
    request: row.request,
    status: row.status,
    quote:
      row.quote_number === null
        ? null
        : {
            number: row.quote_number,
            monthlyRate: row.quote_monthly_rate!,
            currency: row.quote_currency!,
            quotedAt: row.quoted_at!.toISOString(),
          },
    product:
      row.product_technical_service_uid === null
        ? null
        : {
            technicalServiceUid: row.product_technical_service_uid,
            provisioningStatus: row.product_provisioning_status!,
          },
    lastError: row.last_error === null ? null : { message: row.last_error, at: row.last_error_at!.toISOString() },
    policy:
      row.policy_version === null || row.policy_version === undefined
        ? null
        : { version: row.policy_version, hash: row.policy_hash! },
    team: row.team ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function toEvent(row: OrderEventRow): OrderEventRecord {
  return {
    sequence: row.sequence,
    from: row.from_status,
    to: row.to_status,
    actor: row.actor,
    reason: row.reason,
    details: row.details,
    at: row.at.toISOString(),
  };
}

export function toVote(row: ApprovalVoteRow): ApprovalVoteRecord {
  return {
    quoteNumber: row.quote_number,
    approverId: row.approver_id,
    decision: row.decision,
    monthlyRate: row.monthly_rate,
    currency: row.currency,
    reason: row.reason,
    at: row.at.toISOString(),
    signature: row.signature ?? null,
    figures: row.figures ?? null,
  };
}

export function toBuyAttempt(row: BuyAttemptRow): BuyAttemptRecord {
  return {
    attempt: row.attempt,
    intentAt: row.intent_at.toISOString(),
    outcome: row.outcome,
    technicalServiceUid: row.technical_service_uid,
    errorClass: row.error_class,
    errorMessage: row.error_message,
    finishedAt: iso(row.finished_at),
    resolvedBy: row.resolved_by,
    runId: row.run_id ?? null,
    sentAt: iso(row.sent_at),
  };
}

export function toApprover(row: ApproverRow): ApproverRecord {
  return {
    id: row.id,
    displayName: row.display_name,
    roles: row.roles,
    team: row.team,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function toNote(row: OrderNoteRow): OrderNoteRecord {
  return {
    sequence: row.sequence,
    actor: row.actor,
    message: row.message,
    details: row.details,
    at: row.at.toISOString(),
  };
}

export function toApiToken(row: ApiTokenRow): ApiTokenRecord {
  return {
    id: row.id,
    owner: row.owner,
    roles: row.roles,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
    revokedBy: row.revoked_by,
  };
}
