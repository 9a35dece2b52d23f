import { z } from 'zod';
import type { Sql } from './connection.js';
import { RepositoryError } from './errors.js';
import { operation } from './validate.js';

/**
 * What the workers' activities check before they act (docs/security.md, "Every activity is an entry point"): which
 * runs were admitted for a ticket, the quotes the workers obtained themselves, and what they refused to do.
 */

/** A run the workers admitted: the chain's first run, or the one run that continued from an admitted run. */
export interface AdmittedRun {
  workflowId: string;
  runId: string;
  firstRunId: string;
  continuedFromRunId: string | null;
}

/** An activity call the workers refused, and why (one per run and activity). */
export interface RefusedCallRecord {
  workflowId: string;
  runId: string;
  activity: string;
  reason: string;
  refusedAt: string;
}

/** A quote a worker obtained by validating the ticket's request, sealed with the action key. */
export interface WorkerQuoteRecord {
  runId: string;
  quotedAt: string;
  /** As PostgreSQL keeps it (numeric, as text). */
  monthlyRate: string;
  currency: string;
  seal: string;
}

/** What the buy checks before it spends (activities/order/buy-evidence.ts), read at once. */
export interface BuyEvidenceRecord {
  ticket: { fingerprint: string; fingerprintKeyId: string; claimedRunId: string | null } | null;
  order: {
    status: string;
    environment: 'staging' | 'production';
    requestedBy: string;
    quote: { monthlyRate: number; currency: string } | null;
  } | null;
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

/** Ops' recovery of an order: its latest admitted run reset (to `resetEventId`), and the run that reset made. */
export interface RunRecoveryRecord {
  workflowId: string;
  fromRunId: string;
  resetEventId: number;
  actor: string;
  reason: string;
  requestedAt: string;
  /** The run the reset made, once it took `fromRunId`'s place (null: not yet). */
  toRunId: string | null;
}

export type AdmitRunOutcome =
  | { admitted: true }
  /** Another run is admitted in this run's place: the run after `continuedFromRunId` (or the first) already is. */
  | { admitted: false; holder: string };

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);
const runKey = z.object({ workflowId: text(255), runId: text(255) });
const admittedRunInput = runKey.extend({ firstRunId: text(255), continuedFromRunId: text(255).nullable() });
const refusedCallInput = runKey.extend({ activity: text(100), reason: text(2000) });
const workerQuoteInput = runKey.extend({
  quotedAt: z.date(),
  monthlyRate: z.number().finite().nonnegative(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code'),
  seal: text(200),
});
const recoveryInput = z.object({
  workflowId: text(255),
  fromRunId: text(255),
  resetEventId: z.number().int().positive(),
  actor: text(255),
  reason: text(2000),
});
const adoptInput = z.object({ workflowId: text(255), fromRunId: text(255), toRunId: text(255) });
const listRefusedCallsInput = z.object({
  workflowId: text(300).optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

export interface EvidenceRepository {
  /**
   * Admits a run into its chain's one line of runs, once: `admitted: false` names the run already admitted in its
   * place. Admitting an admitted run again is a no-op.
   */
  admitRun(input: AdmittedRun): Promise<AdmitRunOutcome>;
  /** The admitted run, or null when the workers never admitted it. */
  getAdmittedRun(input: { workflowId: string; runId: string }): Promise<AdmittedRun | null>;
  /** Keeps an activity call the workers refused (a repeat of the same refusal adds nothing). */
  recordRefusedCall(input: Omit<RefusedCallRecord, 'refusedAt'>): Promise<void>;
  /** Refused calls, newest first (of one workflow when `workflowId` is given). */
  listRefusedCalls(input?: { workflowId?: string; limit?: number }): Promise<RefusedCallRecord[]>;
  recordWorkerQuote(input: z.input<typeof workerQuoteInput>): Promise<void>;
  /** The order's worker-obtained quotes, oldest first. */
  listWorkerQuotes(workflowId: string): Promise<WorkerQuoteRecord[]>;
  /** The chain's latest admitted run (the one no admitted run continued from), or null when none was admitted. */
  latestAdmittedRun(workflowId: string): Promise<AdmittedRun | null>;
  /** Records ops' recovery of the order's run `fromRunId`, before the reset is made. */
  requestRecovery(input: z.input<typeof recoveryInput>): Promise<void>;
  /** The order's latest recovery not yet completed, asked for in the last 10 minutes; null when there is none. */
  pendingRecovery(workflowId: string): Promise<RunRecoveryRecord | null>;
  /**
   * The run a recovery's reset made takes the recovered run's place in the line, and the recovery is completed, in one
   * transaction; a second adoption of the same run changes nothing. False when `fromRunId` is no longer admitted.
   */
  adoptRecoveredRun(input: z.input<typeof adoptInput>): Promise<boolean>;
  /** The order's recoveries, newest first. */
  listRecoveries(workflowId: string): Promise<RunRecoveryRecord[]>;
  /** The ticket, the order, its worker-obtained quotes and its votes, as one snapshot: one round trip. */
  buyEvidence(workflowId: string): Promise<BuyEvidenceRecord>;
  /** When the workers began to admit runs here (migration 0018 applied); null before it. */
  admissionsSince(): Promise<Date | null>;
  /** The order's state as the records say, or null when no order is recorded for the workflow. */
  orderState(workflowId: string): Promise<string | null>;
}

export function createEvidenceRepository(sql: Sql): EvidenceRepository {
  return {
    admitRun: (input) =>
      operation('admitRun', admittedRunInput, input, async (run) => {
        const [inserted] = await sql`
          INSERT INTO admitted_runs (workflow_id, run_id, first_run_id, continued_from_run_id)
          VALUES (${run.workflowId}, ${run.runId}, ${run.firstRunId}, ${run.continuedFromRunId})
          ON CONFLICT DO NOTHING RETURNING 1`;
        if (inserted) return { admitted: true };
        const [holder] = await sql`
          SELECT run_id FROM admitted_runs WHERE workflow_id = ${run.workflowId}
            AND (run_id = ${run.runId} OR coalesce(continued_from_run_id, '') = ${run.continuedFromRunId ?? ''})
          ORDER BY run_id = ${run.runId} DESC LIMIT 1`;
        if (!holder) throw new RepositoryError('conflict', `admitRun: run ${run.runId} could not be admitted`);
        return holder['run_id'] === run.runId ? { admitted: true } : { admitted: false, holder: holder['run_id'] };
      }),

    getAdmittedRun: (input) =>
      operation('getAdmittedRun', runKey, input, async ({ workflowId, runId }) => {
        const [row] = await sql`SELECT * FROM admitted_runs WHERE workflow_id = ${workflowId} AND run_id = ${runId}`;
        return row ? toAdmittedRun(row) : null;
      }),

    recordRefusedCall: (input) =>
      operation('recordRefusedCall', refusedCallInput, input, async ({ workflowId, runId, activity, reason }) => {
        await sql`
          INSERT INTO refused_calls (workflow_id, run_id, activity, reason)
          VALUES (${workflowId}, ${runId}, ${activity}, ${reason}) ON CONFLICT DO NOTHING`;
      }),

    listRefusedCalls: (input = {}) =>
      operation('listRefusedCalls', listRefusedCallsInput, input, async ({ workflowId, limit }) => {
        const rows = workflowId
          ? await sql`SELECT * FROM refused_calls WHERE workflow_id = ${workflowId} ORDER BY refused_at DESC LIMIT ${limit}`
          : await sql`SELECT * FROM refused_calls ORDER BY refused_at DESC LIMIT ${limit}`;
        return rows.map((row) => ({
          workflowId: row['workflow_id'],
          runId: row['run_id'],
          activity: row['activity'],
          reason: row['reason'],
          refusedAt: row['refused_at'].toISOString(),
        }));
      }),

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
        const rows = await sql`SELECT * FROM worker_quotes WHERE workflow_id = ${id} ORDER BY quoted_at`;
        return rows.map((row) => ({
          runId: row['run_id'],
          quotedAt: row['quoted_at'].toISOString(),
          monthlyRate: row['monthly_rate'],
          currency: row['currency'],
          seal: row['seal'],
        }));
      }),

    buyEvidence: (workflowId) =>
      operation('buyEvidence', text(300), workflowId, async (id) => {
        const [row] = await sql`
          SELECT
            (SELECT row_to_json(t) FROM (SELECT fingerprint, fingerprint_key_id, claimed_run_id
                                         FROM tickets WHERE workflow_id = ${id}) t) AS ticket,
            (SELECT row_to_json(o) FROM (SELECT status, environment, requested_by, quote_monthly_rate, quote_currency
                                         FROM orders WHERE workflow_id = ${id}) o) AS "order",
            (SELECT coalesce(json_agg(q ORDER BY q.quoted_at), '[]') FROM (
               SELECT quoted_at, monthly_rate, currency, seal FROM worker_quotes WHERE workflow_id = ${id}) q) AS quotes,
            (SELECT coalesce(json_agg(a ORDER BY a.at), '[]') FROM (
               SELECT approver_id, decision, monthly_rate, currency, at, signature
               FROM approvals WHERE workflow_id = ${id}) a) AS votes`;
        return toBuyEvidence(row!);
      }),

    latestAdmittedRun: (workflowId) =>
      operation('latestAdmittedRun', text(300), workflowId, async (id) => {
        const [row] = await sql`
          SELECT * FROM admitted_runs a WHERE a.workflow_id = ${id}
            AND NOT EXISTS (SELECT 1 FROM admitted_runs b WHERE b.workflow_id = a.workflow_id
                                                           AND b.continued_from_run_id = a.run_id)`;
        return row ? toAdmittedRun(row) : null;
      }),

    requestRecovery: (input) =>
      operation('requestRecovery', recoveryInput, input, async (recovery) => {
        await sql`
          INSERT INTO run_recoveries (workflow_id, from_run_id, reset_event_id, actor, reason)
          VALUES (${recovery.workflowId}, ${recovery.fromRunId}, ${recovery.resetEventId}, ${recovery.actor},
                  ${recovery.reason})`;
      }),

    pendingRecovery: (workflowId) =>
      operation('pendingRecovery', text(300), workflowId, async (id) => {
        const [row] = await sql`
          SELECT * FROM run_recoveries WHERE workflow_id = ${id} AND to_run_id IS NULL
            AND requested_at > now() - interval '10 minutes'
          ORDER BY requested_at DESC LIMIT 1`;
        return row ? toRecovery(row) : null;
      }),

    adoptRecoveredRun: (input) =>
      operation('adoptRecoveredRun', adoptInput, input, ({ workflowId, fromRunId, toRunId }) =>
        sql.begin(async (tx) => {
          const [adopted] =
            await tx`SELECT 1 FROM admitted_runs WHERE workflow_id = ${workflowId} AND run_id = ${toRunId}`;
          if (adopted) return true;
          const [moved] = await tx`
            UPDATE admitted_runs SET run_id = ${toRunId}, admitted_at = now()
            WHERE workflow_id = ${workflowId} AND run_id = ${fromRunId} RETURNING 1`;
          if (!moved) return false;
          await tx`
            UPDATE run_recoveries SET to_run_id = ${toRunId}, completed_at = now()
            WHERE workflow_id = ${workflowId} AND from_run_id = ${fromRunId} AND to_run_id IS NULL`;
          return true;
        }),
      ),

    listRecoveries: (workflowId) =>
      operation('listRecoveries', text(300), workflowId, async (id) => {
        const rows = await sql`SELECT * FROM run_recoveries WHERE workflow_id = ${id} ORDER BY requested_at DESC`;
        return rows.map(toRecovery);
      }),

    admissionsSince: async () => {
      const [row] = await sql`
        SELECT applied_at FROM schema_migrations WHERE name = '0018_activity_evidence.sql'`;
      return row ? (row['applied_at'] as Date) : null;
    },

    orderState: (workflowId) =>
      operation('orderState', text(300), workflowId, async (id) => {
        const [row] = await sql`SELECT status FROM orders WHERE workflow_id = ${id}`;
        return row ? (row['status'] as string) : null;
      }),
  };
}

function toBuyEvidence(row: Record<string, any>): BuyEvidenceRecord {
  const { ticket, order } = row;
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
        }
      : null,
    workerQuotes: (row['quotes'] as Array<Record<string, any>>).map((quote) => ({
      quotedAt: new Date(quote['quoted_at']),
      monthlyRate: Number(quote['monthly_rate']),
      currency: quote['currency'],
      seal: quote['seal'],
    })),
    votes: (row['votes'] as Array<Record<string, any>>).map((vote) => ({
      approverId: vote['approver_id'],
      decision: vote['decision'],
      monthlyRate: Number(vote['monthly_rate']),
      currency: vote['currency'],
      signed: vote['signature'] ?? null,
    })),
  };
}

function toAdmittedRun(row: Record<string, any>): AdmittedRun {
  return {
    workflowId: row['workflow_id'],
    runId: row['run_id'],
    firstRunId: row['first_run_id'],
    continuedFromRunId: row['continued_from_run_id'] ?? null,
  };
}

function toRecovery(row: Record<string, any>): RunRecoveryRecord {
  return {
    workflowId: row['workflow_id'],
    fromRunId: row['from_run_id'],
    resetEventId: Number(row['reset_event_id']),
    actor: row['actor'],
    reason: row['reason'],
    requestedAt: row['requested_at'].toISOString(),
    toRunId: row['to_run_id'] ?? null,
  };
}
