import type { z } from 'zod';
import type { Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import { toBuyAttempt, type BuyAttemptRecord, type BuyAttemptRow } from '../records.js';
import {
  buyAttemptKey,
  buyIntentInput,
  buyOutcomeInput,
  unsentBuyInput,
  type BuyAttemptKey,
  type BuyIntentInput,
  type BuyOutcomeInput,
  type UnsentBuyInput,
} from '../schemas.js';
import { operation } from '../validate.js';

/** The order's buy attempts: the intent written ahead of the call, the claim to send it, and how it ended. */
export interface BuyAttempts {
  /** The write-ahead record, BEFORE the buy call. `recorded: false` means this attempt was begun before. */
  recordBuyIntent(input: BuyIntentInput): Promise<{ recorded: boolean; attempt: BuyAttemptRecord }>;
  /** The buy's outcome, AFTER the call. Only an `uncertain` outcome may later be resolved. */
  recordBuyOutcome(input: BuyOutcomeInput): Promise<BuyAttemptRecord>;
  /**
   * The buy activity claims its attempt just before the request leaves: `claimed: false` (the attempt has no intent,
   * already ended, or was closed as never sent, or another attempt of the order created a product or was sent and not
   * settled) means it must not send. Exclusive with `closeUnsentBuy`.
   */
  claimBuyForSending(input: BuyAttemptKey): Promise<{ claimed: boolean }>;
  /**
   * Ends an attempt nobody claimed for sending as not created (`errorClass`, `errorMessage`): `closed: true` when
   * it was never sent (closed now or before), so it can be retried; false when it was claimed (it may have been sent)
   * or has another outcome.
   */
  closeUnsentBuy(input: UnsentBuyInput): Promise<{ closed: boolean }>;
}

export function createBuyAttempts(sql: Sql): BuyAttempts {
  return {
    recordBuyIntent: (input) =>
      operation('recordBuyIntent', buyIntentInput, input, async (intent) => {
        const inserted = await sql<BuyAttemptRow[]>`
          INSERT INTO buy_attempts (workflow_id, attempt, intent_at, run_id)
          VALUES (${intent.workflowId}, ${intent.attempt}, coalesce(${intent.at ?? null}::timestamptz, now()), ${intent.runId ?? null})
          ON CONFLICT (workflow_id, attempt) DO NOTHING
          RETURNING *`;
        if (inserted.length > 0) return { recorded: true, attempt: toBuyAttempt(inserted[0]) };
        const [existing] = await sql<BuyAttemptRow[]>`
          SELECT * FROM buy_attempts WHERE workflow_id = ${intent.workflowId} AND attempt = ${intent.attempt}`;
        return { recorded: false, attempt: toBuyAttempt(existing) };
      }),

    claimBuyForSending: (input) =>
      operation('claimBuyForSending', buyAttemptKey, input, async (key) => {
        // Bought once per ticket, whatever run asks: no attempt is sent while another of the order created a product
        // or was sent and not settled (open or uncertain). The order row's lock, taken first, orders concurrent claims,
        // and the claim's own statement then sees what the one before it committed.
        const claimed = await sql.begin(async (tx) => {
          await tx`SELECT 1 FROM orders WHERE workflow_id = ${key.workflowId} FOR UPDATE`;
          return tx`
            UPDATE buy_attempts SET sent_at = now()
            WHERE workflow_id = ${key.workflowId} AND attempt = ${key.attempt} AND outcome IS NULL AND sent_at IS NULL
              AND NOT EXISTS (
                SELECT 1 FROM buy_attempts other
                WHERE other.workflow_id = ${key.workflowId} AND other.attempt <> ${key.attempt}
                  AND (other.outcome = 'created'
                       OR (other.sent_at IS NOT NULL AND (other.outcome IS NULL OR other.outcome = 'uncertain'))))
            RETURNING attempt`;
        });
        return { claimed: claimed.length > 0 };
      }),

    closeUnsentBuy: (input) =>
      operation('closeUnsentBuy', unsentBuyInput, input, async (unsent) => {
        // Row locks order this against a claim: whichever commits first wins, and the other matches no row.
        await sql`
          UPDATE buy_attempts SET outcome = 'not-created', error_class = ${unsent.errorClass},
                 error_message = ${unsent.errorMessage}, finished_at = now()
          WHERE workflow_id = ${unsent.workflowId} AND attempt = ${unsent.attempt} AND outcome IS NULL AND sent_at IS NULL`;
        const [row] = await sql<Array<Pick<BuyAttemptRow, 'outcome' | 'sent_at'>>>`
          SELECT outcome, sent_at FROM buy_attempts WHERE workflow_id = ${unsent.workflowId} AND attempt = ${unsent.attempt}`;
        return { closed: row?.outcome === 'not-created' && row.sent_at === null };
      }),

    recordBuyOutcome: (input) =>
      operation('recordBuyOutcome', buyOutcomeInput, input, (result) => endAttempt(sql, result)),
  };
}

/** `recordBuyOutcome`, its input checked. */
async function endAttempt(sql: Sql, result: z.output<typeof buyOutcomeInput>): Promise<BuyAttemptRecord> {
  const uid = result.technicalServiceUid ?? null;
  // One statement in the usual case: an open attempt ends, or an uncertain one is resolved. The UPDATE takes the
  // row's lock, so it is ordered against a claim or a close of the same attempt as the transaction it replaces was.
  const [updated] = await sql<BuyAttemptRow[]>`
    UPDATE buy_attempts SET outcome = ${result.outcome}, technical_service_uid = ${uid},
           error_class = ${result.errorClass ?? null}, error_message = ${result.errorMessage ?? null},
           resolved_by = ${result.resolvedBy ?? null},
           finished_at = coalesce(${result.at ?? null}::timestamptz, now())
    WHERE workflow_id = ${result.workflowId} AND attempt = ${result.attempt}
      AND (outcome IS NULL OR (outcome = 'uncertain' AND ${result.outcome} <> 'uncertain'))
    RETURNING *`;
  if (updated) return toBuyAttempt(updated);
  const [row] = await sql<
    BuyAttemptRow[]
  >`SELECT * FROM buy_attempts WHERE workflow_id = ${result.workflowId} AND attempt = ${result.attempt}`;
  if (!row) {
    throw new RepositoryError(
      'not-found',
      `recordBuyOutcome: no buy intent recorded for attempt ${result.attempt} of order ` +
        `${result.workflowId}; the intent must be recorded before the buy call`,
    );
  }
  const current = toBuyAttempt(row);
  // The same outcome again (a retried write) is no change; anything else would overwrite how the attempt ended.
  if (current.outcome === result.outcome && current.technicalServiceUid === uid) return current;
  throw new RepositoryError(
    'conflict',
    `recordBuyOutcome: attempt ${result.attempt} of order ${result.workflowId} already ended as ` +
      `${current.outcome}${current.technicalServiceUid ? ` (${current.technicalServiceUid})` : ''}; ` +
      `refusing to record ${result.outcome}`,
  );
}
