import { z } from 'zod';
import type { Queryable, Sql } from '../connection.js';
import {
  toBuyAttempt,
  toEvent,
  toNote,
  toOrder,
  toVote,
  type ApprovalVoteRow,
  type AwaitingApprovalRecord,
  type BuyAttemptRow,
  type OrderEventRow,
  type OrderNoteRow,
  type OrderRecord,
  type OrderRow,
  type OrderView,
} from '../records.js';
import {
  awaitingApprovalInput,
  listOrdersInput,
  type AwaitingApprovalInput,
  type ListOrdersInput,
} from '../schemas.js';
import { operation } from '../validate.js';

/** What ops and approvers read: one order whole, pages of orders, an approver's inbox. */
export interface OrderReads {
  /** The order with its events, votes and buy attempts, read as one consistent snapshot; null if unknown. */
  getOrder(workflowId: string): Promise<OrderView | null>;
  /** The order's request as recorded (secrets redacted); null if unknown. One row: it never waits on the journal. */
  getOrderRequest(workflowId: string): Promise<Record<string, unknown> | null>;
  /** The team the order is charged to (null: none); undefined if the order is unknown. One row, as the request. */
  getOrderTeam(workflowId: string): Promise<string | null | undefined>;
  /** Newest first. */
  listOrders(filter?: ListOrdersInput): Promise<OrderRecord[]>;
  /** Orders awaiting a vote this approver may give (one of their roles, not their own order, not yet voted), oldest first. */
  listAwaitingApproval(input: AwaitingApprovalInput): Promise<AwaitingApprovalRecord[]>;
}

const workflowIdInput = z.string().min(1, 'must not be empty');

/**
 * The round as the workflow recorded it on its move to AWAITING_APPROVAL (approval-round.ts); read leniently, as any
 * event's details: a field may be missing or of another type.
 */
interface ApprovalRoundDetails {
  tier?: string;
  roles?: string[];
  approvals?: number;
  deadline?: string;
}

/** An order waiting for votes, with its round (migrations/0008) and the votes for its quote so far. */
type AwaitingRow = OrderRow & { round_details: ApprovalRoundDetails; round_at: Date; approvals_given: number };

/** `pool`: where transactions run (a connection reserved for pipelined writes cannot hold one of its own). */
export function createOrderReads(sql: Sql, pool: Sql): OrderReads {
  return {
    getOrder: (workflowId) =>
      operation('getOrder', workflowIdInput, workflowId, (id) =>
        pool.begin('isolation level repeatable read read only', (tx) => readOrderView(tx, id)),
      ),

    getOrderRequest: (workflowId) =>
      operation('getOrderRequest', workflowIdInput, workflowId, async (id) => {
        const [row] = await sql<Array<Pick<OrderRow, 'request'>>>`SELECT request FROM orders WHERE workflow_id = ${id}`;
        return row?.request ?? null;
      }),

    getOrderTeam: (workflowId) =>
      operation('getOrderTeam', workflowIdInput, workflowId, async (id) => {
        const [row] = await sql<Array<Pick<OrderRow, 'team'>>>`SELECT team FROM orders WHERE workflow_id = ${id}`;
        return row ? (row.team ?? null) : undefined;
      }),

    listOrders: (filter = {}) =>
      operation(
        'listOrders',
        listOrdersInput,
        filter,
        async ({ status, environment, ticketId, requestedBy, submittedBy, after, limit }) => {
          const rows = await sql<OrderRow[]>`
          SELECT o.*, t.submitted_by FROM orders o LEFT JOIN tickets t ON t.workflow_id = o.workflow_id WHERE true
            ${status ? sql`AND o.status = ${status}` : sql``}
            ${environment ? sql`AND o.environment = ${environment}` : sql``}
            ${ticketId ? sql`AND o.ticket_id = ${ticketId}` : sql``}
            ${requestedBy ? sql`AND lower(o.requested_by) = lower(${requestedBy})` : sql``}
            ${submittedBy ? sql`AND lower(t.submitted_by) = lower(${submittedBy})` : sql``}
            ${after ? sql`AND (o.created_at, o.workflow_id) < (${after.createdAt}::timestamptz, ${after.workflowId})` : sql``}
          ORDER BY o.created_at DESC, o.workflow_id DESC
          LIMIT ${limit}`;
          return rows.map(toOrder);
        },
      ),

    listAwaitingApproval: (input) =>
      operation('listAwaitingApproval', awaitingApprovalInput, input, async ({ approverId, roles, limit }) => {
        // The round (its tier, roles, deadline) and when it began are kept on the order (migrations/0008); votes
        // count for the current quote, and are counted for the page only (a count in the inner SELECT would be
        // made for every waiting order before the sort and the limit).
        const rows = await sql<AwaitingRow[]>`
          SELECT page.*,
                 (SELECT count(*) FROM approvals a
                   WHERE a.workflow_id = page.workflow_id AND a.quote_number = page.quote_number AND a.decision = 'approve')::int AS approvals_given
          FROM (
            SELECT o.*, t.submitted_by, o.approval_round AS round_details, o.awaiting_since AS round_at
            FROM orders o
            LEFT JOIN tickets t ON t.workflow_id = o.workflow_id
            WHERE o.status = 'AWAITING_APPROVAL'
              -- A vote names the quote: an order whose quote is not recorded yet (its journal is being written) waits.
              AND o.quote_number IS NOT NULL
              AND lower(o.requested_by) <> lower(${approverId})
              AND o.approval_round->'roles' ?| ${roles}::text[]
              AND NOT EXISTS (SELECT 1 FROM approvals a
                              WHERE a.workflow_id = o.workflow_id AND a.quote_number = o.quote_number
                                AND lower(a.approver_id) = lower(${approverId}))
            ORDER BY o.awaiting_since, o.workflow_id
            LIMIT ${limit}
          ) page
          ORDER BY page.round_at, page.workflow_id`;
        return rows.map(toAwaitingApproval);
      }),
  };
}

/** The order with its events, notes, votes (with the figures each approver was shown) and buy attempts. */
async function readOrderView(tx: Queryable, id: string): Promise<OrderView | null> {
  const [order] = await tx<OrderRow[]>`
    SELECT o.*, t.submitted_by FROM orders o LEFT JOIN tickets t ON t.workflow_id = o.workflow_id
    WHERE o.workflow_id = ${id}`;
  if (!order) return null;
  const events = await tx<OrderEventRow[]>`SELECT * FROM order_events WHERE workflow_id = ${id} ORDER BY sequence`;
  const notes = await tx<OrderNoteRow[]>`SELECT * FROM order_notes WHERE workflow_id = ${id} ORDER BY sequence`;
  const approvals = await tx<ApprovalVoteRow[]>`
    SELECT a.*, f.figures FROM approvals a
    LEFT JOIN vote_figures f USING (workflow_id, quote_number, approver_id)
    WHERE a.workflow_id = ${id} ORDER BY a.quote_number, a.at, a.approver_id`;
  const attempts = await tx<BuyAttemptRow[]>`SELECT * FROM buy_attempts WHERE workflow_id = ${id} ORDER BY attempt`;
  return {
    order: toOrder(order),
    events: events.map(toEvent),
    notes: notes.map(toNote),
    approvals: approvals.map(toVote),
    buyAttempts: attempts.map(toBuyAttempt),
  };
}

function toAwaitingApproval(row: AwaitingRow): AwaitingApprovalRecord {
  const round = row.round_details;
  return {
    order: toOrder(row),
    tier: String(round.tier ?? ''),
    roles: Array.isArray(round.roles) ? round.roles.map(String) : [],
    approvalsNeeded: Number(round.approvals ?? 1),
    approvalsGiven: row.approvals_given,
    deadline: typeof round.deadline === 'string' ? round.deadline : null,
    waitingSince: row.round_at.toISOString(),
  };
}
