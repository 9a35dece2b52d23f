import { z } from 'zod';
import type { Sql } from '../connection.js';
import { runKey, text } from '../schemas.js';
import { operation } from '../validate.js';

/** A quote a worker obtained by validating the ticket's request, sealed with the action key. */
export interface WorkerQuoteRecord {
  runId: string;
  quotedAt: string;
  /** As PostgreSQL keeps it (numeric, as text). */
  monthlyRate: string;
  currency: string;
  seal: string;
}

/** The quotes the workers obtained themselves: evidence the buy checks. */
export interface WorkerQuotes {
  recordWorkerQuote(input: z.input<typeof workerQuoteInput>): Promise<void>;
  /** The order's worker-obtained quotes, oldest first. */
  listWorkerQuotes(workflowId: string): Promise<WorkerQuoteRecord[]>;
}

/** A `worker_quotes` row. */
interface WorkerQuoteRow {
  run_id: string;
  quoted_at: Date;
  monthly_rate: string;
  currency: string;
  seal: string;
}

const workerQuoteInput = runKey.extend({
  quotedAt: z.date(),
  monthlyRate: z.number().finite().nonnegative(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code'),
  seal: text(200),
});

export function createWorkerQuotes(sql: Sql): WorkerQuotes {
  return {
    recordWorkerQuote: (input) =>
      operation('recordWorkerQuote', workerQuoteInput, input, async (quote) => {
        await sql`
          INSERT INTO worker_quotes (workflow_id, run_id, quoted_at, monthly_rate, currency, seal)
          VALUES (${quote.workflowId}, ${quote.runId}, ${quote.quotedAt}, ${quote.monthlyRate}::numeric,
                  ${quote.currency}, ${quote.seal})
          ON CONFLICT DO NOTHING`;
      }),

    listWorkerQuotes: (workflowId) =>
      operation('listWorkerQuotes', text(300), workflowId, async (id) => {
        const rows = await sql<
          WorkerQuoteRow[]
        >`SELECT * FROM worker_quotes WHERE workflow_id = ${id} ORDER BY quoted_at`;
        return rows.map((row) => ({
          runId: row.run_id,
          quotedAt: row.quoted_at.toISOString(),
          monthlyRate: row.monthly_rate,
          currency: row.currency,
          seal: row.seal,
        }));
      }),
  };
}
