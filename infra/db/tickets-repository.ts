import { z } from 'zod';
import type { Sql } from './connection.js';
import { identityKey } from '../../domain/approval/index.js';
import { runKey, text } from './schemas.js';
import { operation } from './validate.js';

/** A ticket as registered by the intake: the first submission of a ticket is the only one that starts an order. */
export interface TicketRecord {
  ticketId: string;
  workflowId: string;
  environment: 'staging' | 'production';
  requestedBy: string;
  submittedBy: string;
  fingerprint: string;
  fingerprintKeyId: string;
  registeredAt: string;
  /** The workflow run that claimed the ticket (its first run): the only chain of runs that may act on it. */
  claimedRunId: string | null;
  claimedAt: string | null;
  /** How Temporal ended the order's workflow when the order itself did not (terminated…), once something noticed. */
  closedInTemporal: ClosedInTemporal | null;
  /** When the order was cancelled before any worker started it (no run may claim the ticket after that). */
  cancelledBeforeStartAt: string | null;
}

export const CLOSED_IN_TEMPORAL = ['TERMINATED', 'TIMED_OUT', 'FAILED', 'CANCELED'] as const;
export type ClosedInTemporal = (typeof CLOSED_IN_TEMPORAL)[number];

/** A run the workers refused to act for (not started by the intake, or carrying state it could not vouch for). */
export interface RefusedRunRecord {
  workflowId: string;
  runId: string;
  reason: string;
  refusedAt: string;
}

const registerTicketInput = z.object({
  ticketId: text(255),
  workflowId: text(255),
  environment: z.enum(['staging', 'production']),
  requestedBy: text(255),
  submittedBy: text(255),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 HMAC in hex'),
  fingerprintKeyId: text(64),
});

export type RegisterTicketInput = z.input<typeof registerTicketInput>;

const refusedRunInput = runKey.extend({ reason: text(2000) });
const closedInTemporalInput = z.object({ workflowId: text(255), how: z.enum(CLOSED_IN_TEMPORAL) });
// A name from a URL may be as long as a ticket id; the workflow id it would make is longer still.
const workflowIdToFind = text(300);
const findTicketsInput = z.object({ ticketId: text(255), workflowId: workflowIdToFind });
const listRefusedRunsInput = z.object({
  workflowId: text(255).optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

export interface TicketsRepository {
  /**
   * Registers the ticket unless it already is: `registered: true` for the first submission, otherwise the
   * ticket as first registered (whose fingerprint the caller compares).
   */
  registerTicket(input: RegisterTicketInput): Promise<{ registered: boolean; ticket: TicketRecord }>;
  getTicketByWorkflow(workflowId: string): Promise<TicketRecord | null>;
  /**
   * The tickets a caller's name for an order may mean: the one registered for `workflowId`, and every ticket with the
   * id `ticketId` (one per submitter), at most 50. The caller picks among those it may see.
   */
  findTickets(input: { ticketId: string; workflowId: string }): Promise<TicketRecord[]>;
  /**
   * Claims the ticket of `workflowId` for the run `runId` (the first run of a workflow chain), unless another run
   * holds it: `claimed` is true when `runId` holds the claim now (also when it held it before). `ticket` is null
   * when no intake registered that workflow.
   */
  claimTicket(input: { workflowId: string; runId: string }): Promise<{ claimed: boolean; ticket: TicketRecord | null }>;
  /** Marks the ticket's order as ended by Temporal (`how`), once: the first mark stands. */
  markClosedInTemporal(input: { workflowId: string; how: ClosedInTemporal }): Promise<void>;
  /** Keeps what a refused run tried, once per run. */
  recordRefusedRun(input: { workflowId: string; runId: string; reason: string }): Promise<void>;
  /** Refused runs, newest first (of one workflow when `workflowId` is given). */
  listRefusedRuns(input?: { workflowId?: string; limit?: number }): Promise<RefusedRunRecord[]>;
}

export function createTicketsRepository(sql: Sql): TicketsRepository {
  return {
    registerTicket: (input) =>
      operation('registerTicket', registerTicketInput, input, async (ticket) => {
        // Ticket ids are unique within the submitter's namespace (migration 0014): every spelling of one identity.
        const submitterKey = identityKey(ticket.submittedBy);
        const inserted = await sql<TicketRow[]>`
          INSERT INTO tickets (ticket_id, submitter_key, workflow_id, environment, requested_by, submitted_by,
                               fingerprint, fingerprint_key_id)
          VALUES (${ticket.ticketId}, ${submitterKey}, ${ticket.workflowId}, ${ticket.environment}, ${ticket.requestedBy},
                  ${ticket.submittedBy}, ${ticket.fingerprint}, ${ticket.fingerprintKeyId})
          ON CONFLICT (submitter_key, ticket_id) DO NOTHING RETURNING *`;
        if (inserted.length > 0) return { registered: true, ticket: toTicket(inserted[0]) };
        const [existing] = await sql<TicketRow[]>`
          SELECT * FROM tickets WHERE submitter_key = ${submitterKey} AND ticket_id = ${ticket.ticketId}`;
        return { registered: false, ticket: toTicket(existing) };
      }),

    findTickets: (input) =>
      operation('findTickets', findTicketsInput, input, async ({ ticketId, workflowId }) => {
        const rows = await sql<TicketRow[]>`
          SELECT * FROM tickets WHERE workflow_id = ${workflowId} OR ticket_id = ${ticketId}
          ORDER BY registered_at LIMIT 50`;
        return rows.map(toTicket);
      }),

    getTicketByWorkflow: (workflowId) =>
      operation('getTicketByWorkflow', workflowIdToFind, workflowId, async (id) => {
        const [row] = await sql<TicketRow[]>`SELECT * FROM tickets WHERE workflow_id = ${id}`;
        return row ? toTicket(row) : null;
      }),

    claimTicket: (input) =>
      operation('claimTicket', runKey, input, async ({ workflowId, runId }) => {
        const [claimed] = await sql<TicketRow[]>`
          UPDATE tickets SET claimed_run_id = ${runId}, claimed_at = now()
          WHERE workflow_id = ${workflowId} AND claimed_run_id IS NULL AND cancelled_before_start_at IS NULL
          RETURNING *`;
        if (claimed) return { claimed: true, ticket: toTicket(claimed) };
        const [row] = await sql<TicketRow[]>`SELECT * FROM tickets WHERE workflow_id = ${workflowId}`;
        const ticket = row ? toTicket(row) : null;
        return { claimed: ticket?.claimedRunId === runId, ticket };
      }),

    markClosedInTemporal: (input) =>
      operation('markClosedInTemporal', closedInTemporalInput, input, async ({ workflowId, how }) => {
        await sql`
          UPDATE tickets SET closed_in_temporal = ${how}, closed_in_temporal_at = now()
          WHERE workflow_id = ${workflowId} AND closed_in_temporal IS NULL`;
      }),

    recordRefusedRun: (input) =>
      operation('recordRefusedRun', refusedRunInput, input, async ({ workflowId, runId, reason }) => {
        await sql`
          INSERT INTO refused_runs (workflow_id, run_id, reason) VALUES (${workflowId}, ${runId}, ${reason})
          ON CONFLICT (workflow_id, run_id) DO NOTHING`;
      }),

    listRefusedRuns: (input = {}) =>
      operation('listRefusedRuns', listRefusedRunsInput, input, async ({ workflowId, limit }) => {
        const rows = workflowId
          ? await sql<
              RefusedRunRow[]
            >`SELECT * FROM refused_runs WHERE workflow_id = ${workflowId} ORDER BY refused_at DESC LIMIT ${limit}`
          : await sql<RefusedRunRow[]>`SELECT * FROM refused_runs ORDER BY refused_at DESC LIMIT ${limit}`;
        return rows.map((row) => ({
          workflowId: row['workflow_id'],
          runId: row['run_id'],
          reason: row['reason'],
          refusedAt: row['refused_at'].toISOString(),
        }));
      }),
  };
}

/** A `tickets` row. */
interface TicketRow {
  ticket_id: string;
  workflow_id: string;
  environment: 'staging' | 'production';
  requested_by: string;
  submitted_by: string;
  fingerprint: string;
  fingerprint_key_id: string;
  registered_at: Date;
  claimed_run_id: string | null;
  claimed_at: Date | null;
  closed_in_temporal: ClosedInTemporal | null;
  cancelled_before_start_at: Date | null;
}

interface RefusedRunRow {
  workflow_id: string;
  run_id: string;
  reason: string;
  refused_at: Date;
}

function toTicket(row: TicketRow): TicketRecord {
  return {
    ticketId: row.ticket_id,
    workflowId: row.workflow_id,
    environment: row.environment,
    requestedBy: row.requested_by,
    submittedBy: row.submitted_by,
    fingerprint: row.fingerprint,
    fingerprintKeyId: row.fingerprint_key_id,
    registeredAt: row.registered_at.toISOString(),
    claimedRunId: row.claimed_run_id ?? null,
    claimedAt: row.claimed_at ? row.claimed_at.toISOString() : null,
    closedInTemporal: row.closed_in_temporal ?? null,
    cancelledBeforeStartAt: row.cancelled_before_start_at?.toISOString() ?? null,
  };
}
