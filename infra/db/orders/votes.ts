import type { Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import { jsonParameter } from '../json.js';
import { toVote, type ApprovalVoteRecord, type ApprovalVoteRow, type OrderRow } from '../records.js';
import {
  approvalVoteInput,
  quoteInput,
  voteFiguresInput,
  type ApprovalVoteInput,
  type QuoteInput,
  type VoteFiguresInput,
} from '../schemas.js';
import { operation } from '../validate.js';
import { requireOrder } from './require-order.js';

/** The quote approvers vote on (kept on the order's row) and their votes. */
export interface QuotesAndVotes {
  /** Records the current quote; an older quote number arriving late is ignored (`recorded: false`). */
  recordQuote(input: QuoteInput): Promise<{ recorded: boolean }>;
  /** One vote per approver per quote: a second vote returns the first, unchanged. */
  recordApprovalVote(input: ApprovalVoteInput): Promise<{ recorded: boolean; vote: ApprovalVoteRecord }>;
  /**
   * Keeps the figures shown to an approver with the vote they are casting; figures kept for a vote already recorded
   * are not changed (`kept: false`). Reads of the vote give them as its `figures`.
   */
  recordVoteFigures(input: VoteFiguresInput): Promise<{ kept: boolean }>;
}

export function createQuotesAndVotes(sql: Sql): QuotesAndVotes {
  return {
    recordQuote: (input) =>
      operation('recordQuote', quoteInput, input, async (quote) => {
        const updated = await sql`
          UPDATE orders SET quote_number = ${quote.quoteNumber}, quote_monthly_rate = ${quote.monthlyRate}::numeric,
                 quote_currency = ${quote.currency}, quoted_at = ${quote.quotedAt}::timestamptz, updated_at = now()
          WHERE workflow_id = ${quote.workflowId}
            AND (quote_number IS NULL OR quote_number < ${quote.quoteNumber}
                 OR (quote_number = ${quote.quoteNumber} AND quote_monthly_rate = ${quote.monthlyRate}::numeric
                     AND quote_currency = ${quote.currency}))
          RETURNING 1`;
        if (updated.length > 0) return { recorded: true };
        await requireOrder(sql, 'recordQuote', quote.workflowId);
        // An older quote arriving late is ignored; the current number with another price is not the same write.
        const [current] = await sql<Array<Pick<OrderRow, 'quote_number'>>>`
          SELECT quote_number FROM orders WHERE workflow_id = ${quote.workflowId}`;
        if (current.quote_number === quote.quoteNumber) {
          throw new RepositoryError(
            'conflict',
            `recordQuote: quote ${quote.quoteNumber} of order ${quote.workflowId} is recorded with another price`,
          );
        }
        return { recorded: false };
      }),

    recordApprovalVote: (input) =>
      operation('recordApprovalVote', approvalVoteInput, input, async (vote) => {
        const inserted = await sql<ApprovalVoteRow[]>`
          INSERT INTO approvals (workflow_id, quote_number, approver_id, decision, monthly_rate, currency, reason, at,
                                 signature)
          VALUES (${vote.workflowId}, ${vote.quoteNumber}, ${vote.approverId}, ${vote.decision},
                  ${vote.monthlyRate}::numeric, ${vote.currency}, ${vote.reason ?? null},
                  coalesce(${vote.at ?? null}::timestamptz, now()),
                  ${vote.signature ? jsonParameter(sql, vote.signature) : null})
          ON CONFLICT (workflow_id, quote_number, approver_id) DO NOTHING
          RETURNING *`;
        if (inserted.length > 0) return { recorded: true, vote: toVote(inserted[0]) };
        const [existing] = await sql<ApprovalVoteRow[]>`
          SELECT * FROM approvals WHERE workflow_id = ${vote.workflowId}
            AND quote_number = ${vote.quoteNumber} AND approver_id = ${vote.approverId}`;
        const first = toVote(existing);
        if (first.decision !== vote.decision || Number(first.monthlyRate) !== Number(vote.monthlyRate)) {
          throw new RepositoryError(
            'conflict',
            `recordApprovalVote: ${vote.approverId} already voted ${first.decision} at ${first.monthlyRate} on quote ` +
              `${vote.quoteNumber} of order ${vote.workflowId}; a vote is not changed`,
          );
        }
        return { recorded: false, vote: first };
      }),

    recordVoteFigures: (input) =>
      operation(
        'recordVoteFigures',
        voteFiguresInput,
        input,
        async ({ workflowId, quoteNumber, approverId, figures }) => {
          // A vote that was refused leaves its figures to be replaced by the next; a recorded vote's figures stay.
          const kept = await sql`
          INSERT INTO vote_figures AS f (workflow_id, quote_number, approver_id, figures)
          VALUES (${workflowId}, ${quoteNumber}, ${approverId}, ${jsonParameter(sql, figures)})
          ON CONFLICT (workflow_id, quote_number, approver_id) DO UPDATE
            SET figures = excluded.figures, computed_at = excluded.computed_at
            WHERE NOT EXISTS (SELECT 1 FROM approvals a WHERE a.workflow_id = f.workflow_id
                              AND a.quote_number = f.quote_number AND a.approver_id = f.approver_id)
          RETURNING 1`;
          return { kept: kept.length > 0 };
        },
      ),
  };
}
