import type { Sql } from '../connection.js';
import type { Environment } from '../schemas.js';
import { text } from '../schemas.js';
import { operation } from '../validate.js';

/** What the buy checks before it spends (activities/order/buy-evidence.ts), read at once. */
export interface BuyEvidenceRecord {
  ticket: { fingerprint: string; fingerprintKeyId: string; claimedRunId: string | null } | null;
  order: {
    status: string;
    environment: 'staging' | 'production';
    requestedBy: string;
    quote: { monthlyRate: number; currency: string } | null;
    /** The team the intake charged it to (null: none). */
    team: string | null;
  } | null;
  /** The approval that committed the team's money (budget_commitments), or null when none is recorded. */
  commitment: { monthlyRate: number; currency: string; tier: string | null; overBudget: boolean } | null;
  /** Oldest first. */
  workerQuotes: Array<{ quotedAt: Date; monthlyRate: number; currency: string; seal: string }>;
  /** Oldest first, each with the HTTP API's signature as it was recorded (null before signatures were kept). */
  votes: Array<{
    approverId: string;
    decision: 'approve' | 'reject';
    monthlyRate: number;
    currency: string;
    signed: Record<string, unknown> | null;
  }>;
}

/** What activities read to prove their right to act: the buy's evidence at once, and the order's state. */
export interface BuyEvidenceReads {
  /** The ticket, the order, its worker-obtained quotes and its votes, as one snapshot: one round trip. */
  buyEvidence(workflowId: string): Promise<BuyEvidenceRecord>;
  /** The order's state as the records say, or null when no order is recorded for the workflow. */
  orderState(workflowId: string): Promise<string | null>;
}

/**
 * The evidence as its one statement returns it: each part built by `row_to_json` or `json_agg`, so times are ISO
 * strings and numerics JSON numbers (or, for `quote_monthly_rate`, null).
 */
interface BuyEvidenceRow {
  ticket: { fingerprint: string; fingerprint_key_id: string; claimed_run_id: string | null } | null;
  order: {
    status: string;
    environment: Environment;
    requested_by: string;
    quote_monthly_rate: number | null;
    quote_currency: string;
    team: string | null;
  } | null;
  commitment: { monthly_rate: number; currency: string; tier: string | null; over_budget: boolean } | null;
  quotes: Array<{ quoted_at: string; monthly_rate: number; currency: string; seal: string }>;
  votes: Array<{
    approver_id: string;
    decision: 'approve' | 'reject';
    monthly_rate: number;
    currency: string;
    signature: Record<string, unknown> | null;
  }>;
}

export function createBuyEvidenceReads(sql: Sql): BuyEvidenceReads {
  return {
    buyEvidence: (workflowId) =>
      operation('buyEvidence', text(300), workflowId, async (id) => {
        const [row] = await sql<BuyEvidenceRow[]>`
          SELECT
            (SELECT row_to_json(t) FROM (SELECT fingerprint, fingerprint_key_id, claimed_run_id
                                         FROM tickets WHERE workflow_id = ${id}) t) AS ticket,
            (SELECT row_to_json(o) FROM (SELECT status, environment, requested_by, quote_monthly_rate, quote_currency,
                                                team
                                         FROM orders WHERE workflow_id = ${id}) o) AS "order",
            (SELECT row_to_json(c) FROM (SELECT monthly_rate, currency, tier, over_budget
                                         FROM budget_commitments WHERE workflow_id = ${id}) c) AS commitment,
            (SELECT coalesce(json_agg(q ORDER BY q.quoted_at), '[]') FROM (
               SELECT quoted_at, monthly_rate, currency, seal FROM worker_quotes WHERE workflow_id = ${id}) q) AS quotes,
            (SELECT coalesce(json_agg(a ORDER BY a.at), '[]') FROM (
               SELECT approver_id, decision, monthly_rate, currency, at, signature
               FROM approvals WHERE workflow_id = ${id}) a) AS votes`;
        return toBuyEvidence(row);
      }),

    orderState: (workflowId) =>
      operation('orderState', text(300), workflowId, async (id) => {
        const [row] = await sql<Array<{ status: string }>>`SELECT status FROM orders WHERE workflow_id = ${id}`;
        return row ? row.status : null;
      }),
  };
}

function toBuyEvidence({ ticket, order, commitment, quotes, votes }: BuyEvidenceRow): BuyEvidenceRecord {
  return {
    ticket: ticket
      ? {
          fingerprint: ticket.fingerprint,
          fingerprintKeyId: ticket.fingerprint_key_id,
          claimedRunId: ticket.claimed_run_id,
        }
      : null,
    order: order
      ? {
          status: order.status,
          environment: order.environment,
          requestedBy: order.requested_by,
          quote:
            order.quote_monthly_rate === null
              ? null
              : { monthlyRate: Number(order.quote_monthly_rate), currency: order.quote_currency },
          team: order.team,
        }
      : null,
    commitment: commitment
      ? {
          monthlyRate: Number(commitment.monthly_rate),
          currency: commitment.currency,
          tier: commitment.tier,
          overBudget: commitment.over_budget,
        }
      : null,
    workerQuotes: quotes.map((quote) => ({
      quotedAt: new Date(quote.quoted_at),
      monthlyRate: Number(quote.monthly_rate),
      currency: quote.currency,
      seal: quote.seal,
    })),
    votes: votes.map((vote) => ({
      approverId: vote.approver_id,
      decision: vote.decision,
      monthlyRate: Number(vote.monthly_rate),
      currency: vote.currency,
      signed: vote.signature ?? null,
    })),
  };
}
