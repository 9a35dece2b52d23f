import { z } from 'zod';
import type postgres from 'postgres';
import type { Sql } from './connection.js';
import { invalidInput, RepositoryError, translateDatabaseError } from './errors.js';
import { unredactedSecretPath } from './secret-guard.js';
import {
  toBuyAttempt,
  toEvent,
  toNote,
  toOrder,
  toVote,
  type ApprovalVoteRecord,
  type AwaitingApprovalRecord,
  type BuyAttemptRecord,
  type OrderRecord,
  type OrderView,
} from './records.js';
import {
  approvalVoteInput,
  buyIntentInput,
  buyOutcomeInput,
  buyAttemptKey,
  unsentBuyInput,
  lastErrorInput,
  listOrdersInput,
  awaitingApprovalInput,
  policyInput,
  approvalPolicyInput,
  noteInput,
  orderReceivedInput,
  productInput,
  quoteInput,
  transitionInput,
  unstartedCancelInput,
  type ApprovalVoteInput,
  type BuyIntentInput,
  type BuyOutcomeInput,
  type BuyAttemptKey,
  type UnsentBuyInput,
  type LastErrorInput,
  type ListOrdersInput,
  type AwaitingApprovalInput,
  type PolicyInput,
  type ApprovalPolicyInput,
  type NoteInput,
  type OrderReceivedInput,
  type ProductInput,
  type QuoteInput,
  type TransitionInput,
} from './schemas.js';
import { operation } from './validate.js';

/**
 * What the order workflow records (through its activities) and what ops read.
 *
 * Every write is keyed by the workflow (workflow id + a number the workflow chose), so an activity retry
 * that repeats a committed write changes nothing. The repository never receives secrets: callers
 * redact requests, errors and details before they get here, and nothing here logs.
 */
export interface OrdersRepository {
  /** Records the order and its event 0 (→ RECEIVED). `created: false` when it was already recorded. */
  recordOrderReceived(input: OrderReceivedInput): Promise<{ created: boolean }>;
  /**
   * Notes the run that received an order the intake recorded (the first such run stays). Refused (`not-found`) when
   * the intake recorded no order for the workflow: only the intake creates orders.
   */
  recordOrderRun(input: { workflowId: string; runId: string }): Promise<void>;
  /**
   * Cancels an order no worker has started: in one transaction, its ticket is closed to every run (no claim can
   * follow) and the order recorded CANCELLED (event 1). `cancelled: false` when a run has claimed the ticket
   * meanwhile (the order is cancelled through its workflow then) or it was cancelled before.
   */
  cancelUnstartedOrder(input: { workflowId: string; actor: string; reason: string }): Promise<{ cancelled: boolean }>;
  /** Records a state change; the order's status follows its newest event. */
  recordTransition(input: TransitionInput): Promise<{ recorded: boolean }>;
  /**
   * Records several state changes of one order as `recordTransition` records each, in one statement (one update of
   * the order's row, not one per change): an outcome per input, in their order, a refusal as a RepositoryError. A
   * database that is down throws.
   */
  recordTransitions(inputs: TransitionInput[]): Promise<TransitionOutcome[]>;
  /** Records a note on the order (not a state change); a retried write is a no-op. */
  recordNote(input: NoteInput): Promise<{ recorded: boolean }>;
  /** Records the current quote; an older quote number arriving late is ignored (`recorded: false`). */
  recordQuote(input: QuoteInput): Promise<{ recorded: boolean }>;
  /** One vote per approver per quote: a second vote returns the first, unchanged. */
  recordApprovalVote(input: ApprovalVoteInput): Promise<{ recorded: boolean; vote: ApprovalVoteRecord }>;
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
  recordProduct(input: ProductInput): Promise<void>;
  /** Sets (or, with `error: null`, clears) the order's last error. The message must be redacted. */
  recordLastError(input: LastErrorInput): Promise<void>;
  /**
   * Stores an approval policy's rules under their hash, once: storing the same rules again is a no-op; other rules
   * under a stored hash are a conflict.
   */
  storeApprovalPolicy(input: ApprovalPolicyInput): Promise<void>;
  /**
   * The approval policy that governs the order, by version and hash; its rules are copied onto the order from the
   * stored policies (given `policy`, those rules are stored first). Written once (a retry with the same policy is a
   * no-op); a hash that is not stored is refused (`not-found`).
   */
  recordPolicy(input: PolicyInput): Promise<void>;
  /**
   * Runs `work` with this repository on one connection of the pool, reserved for it: the writes it starts together go
   * to PostgreSQL in one round trip and run there in the order they were started, each on its own as usual (an
   * operation that needs a transaction takes another connection for it).
   */
  withOneConnection<T>(work: (orders: OrdersRepository) => Promise<T>): Promise<T>;
  /** The order with its events, votes and buy attempts, read as one consistent snapshot; null if unknown. */
  getOrder(workflowId: string): Promise<OrderView | null>;
  /** The order a product (technicalServiceUid) was bought for, as recorded; null when no order has it. */
  orderOfProduct(technicalServiceUid: string): Promise<{ workflowId: string; ticketId: string } | null>;
  /** Newest first. */
  listOrders(filter?: ListOrdersInput): Promise<OrderRecord[]>;
  /** Orders awaiting a vote this approver may give (one of their roles, not their own order, not yet voted), oldest first. */
  listAwaitingApproval(input: AwaitingApprovalInput): Promise<AwaitingApprovalRecord[]>;
  /** Counts for the metrics endpoint: orders by state, approvals pending and the oldest one's age, buy attempts by outcome. */
  orderStatistics(): Promise<OrderStatistics>;
}

const workflowIdInput = z.string().min(1, 'must not be empty');
const orderRunInput = z.object({ workflowId: workflowIdInput, runId: z.string().min(1, 'must not be empty') });
const productUidInput = z.string().min(1, 'must not be empty').max(255, 'at most 255 characters');

export type TransitionOutcome = { recorded: boolean } | { refused: RepositoryError };

export interface OrderStatistics {
  ordersByState: Record<string, number>;
  approvalsPending: number;
  /** Since the oldest waiting order last changed (its round started, or a vote came in). */
  oldestApprovalPendingSeconds: number;
  /** `in-flight`: an intent with no outcome yet. */
  buyAttemptsByOutcome: Record<string, number>;
  /** Bought products by the provisioning status last recorded (the buy's answer, then the follow-up's reads). */
  productsByProvisioningStatus: Record<string, number>;
  /** Since the oldest order still in PROVISIONING was bought (0: none is). */
  oldestProvisioningSeconds: number;
  /** From the buy to LIVE, of the orders that went LIVE in the last 7 days (null: none did). */
  timeToLiveSeconds: { count: number; p50: number | null; p90: number | null; max: number | null };
}

/** Stores a policy's rules under their hash; the same rules again change nothing. */
async function storePolicy(
  sql: Sql | postgres.TransactionSql,
  { hash, policy }: { hash: string; policy: Record<string, unknown> },
): Promise<void> {
  const rules = sql.json(policy as postgres.JSONValue);
  const inserted = await sql`
    INSERT INTO approval_policies (hash, policy) VALUES (${hash}, ${rules}::jsonb)
    ON CONFLICT (hash) DO NOTHING RETURNING 1`;
  if (inserted.length > 0) return;
  const [same] = await sql`SELECT 1 FROM approval_policies WHERE hash = ${hash} AND policy = ${rules}::jsonb`;
  if (!same) throw new RepositoryError('conflict', `storeApprovalPolicy: other rules are stored under hash ${hash}`);
}

/** `pool`: where transactions run (a connection reserved for pipelined writes cannot hold one of its own). */
export function createOrdersRepository(sql: Sql, pool: Sql = sql): OrdersRepository {
  const json = (value: Record<string, unknown>) => sql.json(value as postgres.JSONValue);

  async function requireOrder(op: string, workflowId: string): Promise<void> {
    const [row] = await sql`SELECT 1 FROM orders WHERE workflow_id = ${workflowId}`;
    if (!row) throw new RepositoryError('not-found', `${op}: no order recorded with workflow id ${workflowId}`);
  }

  /** `recordTransition` and `recordTransitions`: one statement for any number of one order's changes (`name` in refusals). */
  async function recordTransitionsAs(name: string, inputs: TransitionInput[]): Promise<TransitionOutcome[]> {
    const outcomes: TransitionOutcome[] = [];
    const valid: Array<{ index: number; event: z.output<typeof transitionInput> }> = [];
    for (const [index, input] of inputs.entries()) {
      const parsed = transitionInput.safeParse(input);
      if (parsed.success) valid.push({ index, event: parsed.data });
      else outcomes[index] = { refused: invalidInput(name, parsed.error) };
    }
    const workflowId = valid[0]?.event.workflowId;
    if (workflowId === undefined) return outcomes;
    if (valid.some(({ event }) => event.workflowId !== workflowId))
      throw new Error(`${name}: the transitions of one order at a time`);
    const rows = valid.map(({ event }) => ({
      sequence: event.sequence,
      from_status: event.from,
      to_status: event.to,
      actor: event.actor,
      reason: event.reason ?? null,
      details: event.details,
      at: event.at ?? null,
    }));
    let inserted: Set<number>;
    try {
      // The order's row follows the newest event inserted, as it would after each one; a round opened by one of
      // them is kept on the row when that event is newer than the row's.
      const written = await sql<Array<{ sequence: number }>>`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${sql.json(rows as unknown as postgres.JSONValue)}::jsonb)
            AS t(sequence integer, from_status order_status, to_status order_status, actor text, reason text, details jsonb, at timestamptz)
        ), inserted AS (
          INSERT INTO order_events (workflow_id, sequence, from_status, to_status, actor, reason, details, at)
          SELECT ${workflowId}, sequence, from_status, to_status, actor, reason, details, coalesce(at, now()) FROM input ORDER BY sequence
          ON CONFLICT (workflow_id, sequence) DO NOTHING
          RETURNING sequence, to_status, details, at
        ), newest AS (
          SELECT sequence, to_status FROM inserted ORDER BY sequence DESC LIMIT 1
        ), round AS (
          SELECT sequence, details, at FROM inserted WHERE to_status = 'AWAITING_APPROVAL' ORDER BY sequence DESC LIMIT 1
        ), moved AS (
          UPDATE orders o SET status = newest.to_status, last_event_sequence = newest.sequence, updated_at = now(),
                 awaiting_since = CASE WHEN round.sequence > o.last_event_sequence THEN round.at ELSE o.awaiting_since END,
                 approval_round = CASE WHEN round.sequence > o.last_event_sequence THEN round.details ELSE o.approval_round END
          FROM newest LEFT JOIN round ON true
          WHERE o.workflow_id = ${workflowId} AND o.last_event_sequence < newest.sequence
          RETURNING 1
        )
        SELECT sequence FROM inserted`;
      inserted = new Set(written.map((row) => row.sequence));
    } catch (error) {
      const translated = translateDatabaseError(name, error);
      if (!(translated instanceof RepositoryError)) throw translated;
      for (const { index } of valid) outcomes[index] = { refused: translated };
      return outcomes;
    }
    const retried = valid.filter(({ event }) => !inserted.has(event.sequence));
    const existing = retried.length
      ? await sql<Array<{ sequence: number; from_status: string | null; to_status: string }>>`
          SELECT sequence, from_status, to_status FROM order_events
          WHERE workflow_id = ${workflowId} AND sequence IN ${sql(retried.map(({ event }) => event.sequence))}`
      : [];
    for (const { index, event } of valid) {
      if (inserted.has(event.sequence)) {
        outcomes[index] = { recorded: true };
        continue;
      }
      const found = existing.find((row) => row.sequence === event.sequence);
      outcomes[index] =
        found && found.from_status === event.from && found.to_status === event.to
          ? { recorded: false }
          : { refused: transitionConflict(name, event, found) };
    }
    return outcomes;
  }

  return {
    withOneConnection: async (work) => {
      // A pool of one connection sends everything on it, in order, already.
      if (sql.options.max <= 1) return work(createOrdersRepository(sql));
      const reserved = await sql.reserve();
      try {
        return await work(createOrdersRepository(reserved, sql));
      } finally {
        reserved.release();
      }
    },

    recordOrderReceived: (input) =>
      operation('recordOrderReceived', orderReceivedInput, input, async (order) => {
        const leaked = unredactedSecretPath(order.request, 'request');
        if (leaked) {
          throw new RepositoryError(
            'invalid-input',
            `recordOrderReceived: ${leaked} is not redacted; redact the request before recording it`,
          );
        }
        // One statement (the order and its event 0 together, or neither): a round trip, not four.
        const [inserted] = await sql`
          WITH created AS (
            INSERT INTO orders (workflow_id, ticket_id, environment, requested_by, request, run_id)
            VALUES (${order.workflowId}, ${order.ticketId}, ${order.environment}, ${order.requestedBy},
                    ${json(order.request)}, ${order.runId ?? null})
            ON CONFLICT (workflow_id) DO NOTHING
            RETURNING workflow_id
          ), received AS (
            INSERT INTO order_events (workflow_id, sequence, from_status, to_status, actor, reason, at)
            SELECT workflow_id, 0, NULL, 'RECEIVED', ${order.requestedBy}, 'order received',
                   coalesce(${order.at ?? null}::timestamptz, now())
            FROM created
          )
          SELECT EXISTS (SELECT 1 FROM created) AS created`;
        if (inserted!.created) return { created: true };
        // Recorded first by the intake (no run yet): the run that received it is noted now.
        if (order.runId)
          await sql`UPDATE orders SET run_id = ${order.runId} WHERE workflow_id = ${order.workflowId} AND run_id IS NULL`;
        const [existing] = await sql`SELECT ticket_id, environment FROM orders WHERE workflow_id = ${order.workflowId}`;
        if (existing!.ticket_id !== order.ticketId || existing!.environment !== order.environment) {
          throw new RepositoryError(
            'conflict',
            `recordOrderReceived: order ${order.workflowId} is already recorded for ticket ` +
              `${existing!.ticket_id} in ${existing!.environment}`,
          );
        }
        return { created: false };
      }),

    recordOrderRun: (input) =>
      operation('recordOrderRun', orderRunInput, input, async ({ workflowId, runId }) => {
        const [row] = await sql`
          UPDATE orders SET run_id = coalesce(run_id, ${runId}) WHERE workflow_id = ${workflowId} RETURNING 1`;
        if (!row) {
          throw new RepositoryError(
            'not-found',
            `recordOrderRun: the order API recorded no order for workflow ${workflowId}; only its intake creates orders`,
          );
        }
      }),

    cancelUnstartedOrder: (input) =>
      operation('cancelUnstartedOrder', unstartedCancelInput, input, async ({ workflowId, actor, reason }) =>
        sql.begin(async (tx) => {
          const [closed] = await tx`
            UPDATE tickets SET cancelled_before_start_at = now()
            WHERE workflow_id = ${workflowId} AND claimed_run_id IS NULL AND cancelled_before_start_at IS NULL
            RETURNING workflow_id`;
          if (!closed) return { cancelled: false };
          // The intake records every order it registers; one registered before it did has no row to record on.
          await tx`
            INSERT INTO order_events (workflow_id, sequence, from_status, to_status, actor, reason, at)
            SELECT workflow_id, 1, 'RECEIVED', 'CANCELLED', ${actor}, ${reason}, now()
            FROM orders WHERE workflow_id = ${workflowId}`;
          await tx`
            UPDATE orders SET status = 'CANCELLED', last_event_sequence = 1, updated_at = now()
            WHERE workflow_id = ${workflowId}`;
          return { cancelled: true };
        }),
      ),

    recordTransition: async (input) => {
      const [outcome] = await recordTransitionsAs('recordTransition', [input]);
      if ('refused' in outcome!) throw outcome.refused;
      return outcome!;
    },

    recordTransitions: (inputs) => recordTransitionsAs('recordTransitions', inputs),

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
        await requireOrder('recordQuote', quote.workflowId);
        // An older quote arriving late is ignored; the current number with another price is not the same write.
        const [current] = await sql`SELECT quote_number FROM orders WHERE workflow_id = ${quote.workflowId}`;
        if (current!['quote_number'] === quote.quoteNumber) {
          throw new RepositoryError(
            'conflict',
            `recordQuote: quote ${quote.quoteNumber} of order ${quote.workflowId} is recorded with another price`,
          );
        }
        return { recorded: false };
      }),

    recordApprovalVote: (input) =>
      operation('recordApprovalVote', approvalVoteInput, input, async (vote) => {
        const inserted = await sql`
          INSERT INTO approvals (workflow_id, quote_number, approver_id, decision, monthly_rate, currency, reason, at,
                                 signature)
          VALUES (${vote.workflowId}, ${vote.quoteNumber}, ${vote.approverId}, ${vote.decision},
                  ${vote.monthlyRate}::numeric, ${vote.currency}, ${vote.reason ?? null},
                  coalesce(${vote.at ?? null}::timestamptz, now()), ${vote.signature ? json(vote.signature) : null})
          ON CONFLICT (workflow_id, quote_number, approver_id) DO NOTHING
          RETURNING *`;
        if (inserted.length > 0) return { recorded: true, vote: toVote(inserted[0]!) };
        const [existing] = await sql`
          SELECT * FROM approvals WHERE workflow_id = ${vote.workflowId}
            AND quote_number = ${vote.quoteNumber} AND approver_id = ${vote.approverId}`;
        const first = toVote(existing!);
        if (first.decision !== vote.decision || Number(first.monthlyRate) !== Number(vote.monthlyRate)) {
          throw new RepositoryError(
            'conflict',
            `recordApprovalVote: ${vote.approverId} already voted ${first.decision} at ${first.monthlyRate} on quote ` +
              `${vote.quoteNumber} of order ${vote.workflowId}; a vote is not changed`,
          );
        }
        return { recorded: false, vote: first };
      }),

    recordBuyIntent: (input) =>
      operation('recordBuyIntent', buyIntentInput, input, async (intent) => {
        const inserted = await sql`
          INSERT INTO buy_attempts (workflow_id, attempt, intent_at, run_id)
          VALUES (${intent.workflowId}, ${intent.attempt}, coalesce(${intent.at ?? null}::timestamptz, now()), ${intent.runId ?? null})
          ON CONFLICT (workflow_id, attempt) DO NOTHING
          RETURNING *`;
        if (inserted.length > 0) return { recorded: true, attempt: toBuyAttempt(inserted[0]!) };
        const [existing] = await sql`
          SELECT * FROM buy_attempts WHERE workflow_id = ${intent.workflowId} AND attempt = ${intent.attempt}`;
        return { recorded: false, attempt: toBuyAttempt(existing!) };
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
        const [row] = await sql`
          SELECT outcome, sent_at FROM buy_attempts WHERE workflow_id = ${unsent.workflowId} AND attempt = ${unsent.attempt}`;
        return { closed: row?.['outcome'] === 'not-created' && row['sent_at'] === null };
      }),

    recordBuyOutcome: (input) =>
      operation('recordBuyOutcome', buyOutcomeInput, input, async (result) => {
        const uid = result.technicalServiceUid ?? null;
        // One statement in the usual case: an open attempt ends, or an uncertain one is resolved. The UPDATE takes the
        // row's lock, so it is ordered against a claim or a close of the same attempt as the transaction it replaces was.
        const [updated] = await sql`
          UPDATE buy_attempts SET outcome = ${result.outcome}, technical_service_uid = ${uid},
                 error_class = ${result.errorClass ?? null}, error_message = ${result.errorMessage ?? null},
                 resolved_by = ${result.resolvedBy ?? null},
                 finished_at = coalesce(${result.at ?? null}::timestamptz, now())
          WHERE workflow_id = ${result.workflowId} AND attempt = ${result.attempt}
            AND (outcome IS NULL OR (outcome = 'uncertain' AND ${result.outcome} <> 'uncertain'))
          RETURNING *`;
        if (updated) return toBuyAttempt(updated);
        const [row] =
          await sql`SELECT * FROM buy_attempts WHERE workflow_id = ${result.workflowId} AND attempt = ${result.attempt}`;
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
      }),

    recordProduct: (input) =>
      operation('recordProduct', productInput, input, async (product) => {
        const updated = await sql`
          UPDATE orders SET product_technical_service_uid = ${product.technicalServiceUid},
                 product_provisioning_status = ${product.provisioningStatus}, updated_at = now()
          WHERE workflow_id = ${product.workflowId}
            AND coalesce(product_technical_service_uid, ${product.technicalServiceUid}) = ${product.technicalServiceUid}
          RETURNING 1`;
        if (updated.length > 0) return;
        await requireOrder('recordProduct', product.workflowId);
        // Its status follows the provider; the product an order was bought with is never replaced.
        throw new RepositoryError(
          'conflict',
          `recordProduct: order ${product.workflowId} was bought with another product; it is not replaced by ${product.technicalServiceUid}`,
        );
      }),

    recordLastError: (input) =>
      operation('recordLastError', lastErrorInput, input, async ({ workflowId, error, at }) => {
        const updated = await sql`
          UPDATE orders SET last_error = ${error},
                 last_error_at = CASE WHEN ${error}::text IS NULL THEN NULL
                                      ELSE coalesce(${at ?? null}::timestamptz, now()) END,
                 updated_at = now()
          WHERE workflow_id = ${workflowId} RETURNING 1`;
        if (updated.length === 0) await requireOrder('recordLastError', workflowId);
      }),

    storeApprovalPolicy: (input) =>
      operation('storeApprovalPolicy', approvalPolicyInput, input, (policy) => storePolicy(sql, policy)),

    recordPolicy: (input) =>
      operation('recordPolicy', policyInput, input, ({ workflowId, version, hash, policy }) => {
        const govern = async (db: Sql | postgres.TransactionSql) => {
          const updated = await db`
            UPDATE orders o SET policy_version = ${version}, policy_hash = p.hash, policy = p.policy, updated_at = now()
            FROM approval_policies p
            WHERE p.hash = ${hash} AND o.workflow_id = ${workflowId} AND (o.policy_hash IS NULL OR o.policy_hash = ${hash})
            RETURNING 1`;
          if (updated.length > 0) return;
          const [order] = await db`SELECT 1 FROM orders WHERE workflow_id = ${workflowId}`;
          if (!order)
            throw new RepositoryError('not-found', `recordPolicy: no order recorded with workflow id ${workflowId}`);
          const [known] = await db`SELECT 1 FROM approval_policies WHERE hash = ${hash}`;
          if (!known)
            throw new RepositoryError('not-found', `recordPolicy: no approval policy is stored with hash ${hash}`);
          throw new RepositoryError(
            'conflict',
            `recordPolicy: order ${workflowId} is already governed by another policy`,
          );
        };
        // Named by hash only (the common case: the rules are stored), one statement; with rules, stored first, together.
        if (!policy) return govern(sql);
        return pool.begin(async (tx) => {
          await storePolicy(tx, { hash, policy });
          await govern(tx);
        });
      }),

    recordNote: (input) =>
      operation('recordNote', noteInput, input, async (note) => {
        const rows = await sql`
          INSERT INTO order_notes (workflow_id, sequence, actor, message, details, at)
          VALUES (${note.workflowId}, ${note.sequence}, ${note.actor}, ${note.message}, ${json(note.details)}, ${note.at})
          ON CONFLICT (workflow_id, sequence) DO NOTHING
          RETURNING sequence`;
        if (rows.length > 0) return { recorded: true };
        // A retried write finds its own note; another note under the number is not the same write.
        const [existing] = await sql`
          SELECT actor, message FROM order_notes WHERE workflow_id = ${note.workflowId} AND sequence = ${note.sequence}`;
        if (existing && (existing['actor'] !== note.actor || existing['message'] !== note.message)) {
          throw new RepositoryError(
            'conflict',
            `recordNote: sequence ${note.sequence} of order ${note.workflowId} holds another note already`,
          );
        }
        return { recorded: false };
      }),

    orderOfProduct: (technicalServiceUid) =>
      operation('orderOfProduct', productUidInput, technicalServiceUid, async (uid) => {
        const [row] = await sql`
          SELECT o.workflow_id, o.ticket_id FROM orders o
          WHERE o.product_technical_service_uid = ${uid}
             OR EXISTS (SELECT 1 FROM buy_attempts b WHERE b.workflow_id = o.workflow_id
                        AND b.outcome = 'created' AND b.technical_service_uid = ${uid})
          LIMIT 1`;
        return row ? { workflowId: row['workflow_id'], ticketId: row['ticket_id'] } : null;
      }),

    getOrder: (workflowId) =>
      operation('getOrder', workflowIdInput, workflowId, (id) =>
        pool.begin('isolation level repeatable read read only', async (tx) => {
          const [order] = await tx`
            SELECT o.*, t.submitted_by FROM orders o LEFT JOIN tickets t ON t.workflow_id = o.workflow_id
            WHERE o.workflow_id = ${id}`;
          if (!order) return null;
          const events = await tx`SELECT * FROM order_events WHERE workflow_id = ${id} ORDER BY sequence`;
          const notes = await tx`SELECT * FROM order_notes WHERE workflow_id = ${id} ORDER BY sequence`;
          const approvals = await tx`
            SELECT * FROM approvals WHERE workflow_id = ${id} ORDER BY quote_number, at, approver_id`;
          const attempts = await tx`SELECT * FROM buy_attempts WHERE workflow_id = ${id} ORDER BY attempt`;
          return {
            order: toOrder(order),
            events: events.map(toEvent),
            notes: notes.map(toNote),
            approvals: approvals.map(toVote),
            buyAttempts: attempts.map(toBuyAttempt),
          };
        }),
      ),

    listOrders: (filter = {}) =>
      operation(
        'listOrders',
        listOrdersInput,
        filter,
        async ({ status, environment, ticketId, requestedBy, submittedBy, after, limit }) => {
          const rows = await sql`
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

    orderStatistics: async () => {
      const byState = await sql`SELECT status, count(*)::int AS n FROM orders GROUP BY status`;
      const [pending] = await sql`
        SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(updated_at)), 0)::float8 AS oldest
        FROM orders WHERE status = 'AWAITING_APPROVAL'`;
      const buys =
        await sql`SELECT coalesce(outcome, 'in-flight') AS outcome, count(*)::int AS n FROM buy_attempts GROUP BY 1`;
      const products = await sql`
        SELECT product_provisioning_status AS status, count(*)::int AS n FROM orders
        WHERE product_technical_service_uid IS NOT NULL GROUP BY 1`;
      // A follow-up starts at the order's move to BOUGHT (its event), and ends at the move to LIVE.
      const [provisioning] = await sql`
        SELECT coalesce(extract(epoch FROM now() - min(b.at)), 0)::float8 AS oldest
        FROM orders o JOIN order_events b ON b.workflow_id = o.workflow_id AND b.to_status = 'BOUGHT'
          AND b.from_status IS DISTINCT FROM 'BOUGHT'
        WHERE o.status = 'PROVISIONING'`;
      const [toLive] = await sql`
        SELECT count(*)::int AS n,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::float8 AS p50,
               percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds)::float8 AS p90,
               max(seconds)::float8 AS max
        FROM (SELECT extract(epoch FROM l.at - b.at) AS seconds
              FROM order_events l JOIN order_events b ON b.workflow_id = l.workflow_id AND b.to_status = 'BOUGHT'
                AND b.from_status IS DISTINCT FROM 'BOUGHT'
              WHERE l.to_status = 'LIVE' AND l.from_status IS DISTINCT FROM 'LIVE'
                AND l.at > now() - interval '7 days') AS live`;
      return {
        ordersByState: Object.fromEntries(byState.map((row) => [row.status, row.n])),
        approvalsPending: pending!.n,
        oldestApprovalPendingSeconds: pending!.oldest,
        buyAttemptsByOutcome: Object.fromEntries(buys.map((row) => [row.outcome, row.n])),
        productsByProvisioningStatus: Object.fromEntries(products.map((row) => [row.status, row.n])),
        oldestProvisioningSeconds: provisioning!.oldest,
        timeToLiveSeconds: { count: toLive!.n, p50: toLive!.p50, p90: toLive!.p90, max: toLive!.max },
      };
    },

    listAwaitingApproval: (input) =>
      operation('listAwaitingApproval', awaitingApprovalInput, input, async ({ approverId, roles, limit }) => {
        // The round (its tier, roles, deadline) and when it began are kept on the order (migrations/0008); votes
        // count for the current quote, and are counted for the page only (a count in the inner SELECT would be
        // made for every waiting order before the sort and the limit).
        const rows = await sql`
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
        return rows.map((row) => ({
          order: toOrder(row),
          tier: String(row.round_details.tier ?? ''),
          roles: Array.isArray(row.round_details.roles) ? row.round_details.roles.map(String) : [],
          approvalsNeeded: Number(row.round_details.approvals ?? 1),
          approvalsGiven: row.approvals_given,
          deadline: typeof row.round_details.deadline === 'string' ? row.round_details.deadline : null,
          waitingSince: row.round_at.toISOString(),
        }));
      }),
  };
}

/** Event `sequence` of the order is recorded already, as another change than `event` (or, in a race, not at all). */
function transitionConflict(
  operation: string,
  event: { workflowId: string; sequence: number; from: string | null; to: string },
  existing: { from_status: string | null; to_status: string } | undefined,
): RepositoryError {
  const recorded = existing ? `${existing.from_status ?? '(none)'} -> ${existing.to_status}` : 'something else';
  return new RepositoryError(
    'conflict',
    `${operation}: event ${event.sequence} of order ${event.workflowId} is already recorded as ${recorded}, not ${event.from ?? '(none)'} -> ${event.to}`,
  );
}
