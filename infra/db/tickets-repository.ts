import { z } from 'zod';
import type { Sql } from './connection.js';
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
}

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);

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

export interface TicketsRepository {
  /**
   * Registers the ticket unless it already is: `registered: true` for the first submission, otherwise the
   * ticket as first registered (whose fingerprint the caller compares).
   */
  registerTicket(input: RegisterTicketInput): Promise<{ registered: boolean; ticket: TicketRecord }>;
  getTicket(ticketId: string): Promise<TicketRecord | null>;
}

export function createTicketsRepository(sql: Sql): TicketsRepository {
  return {
    registerTicket: (input) =>
      operation('registerTicket', registerTicketInput, input, async (ticket) => {
        const inserted = await sql`
          INSERT INTO tickets (ticket_id, workflow_id, environment, requested_by, submitted_by, fingerprint, fingerprint_key_id)
          VALUES (${ticket.ticketId}, ${ticket.workflowId}, ${ticket.environment}, ${ticket.requestedBy}, ${ticket.submittedBy},
                  ${ticket.fingerprint}, ${ticket.fingerprintKeyId})
          ON CONFLICT (ticket_id) DO NOTHING RETURNING *`;
        if (inserted.length > 0) return { registered: true, ticket: toTicket(inserted[0]!) };
        const [existing] = await sql`SELECT * FROM tickets WHERE ticket_id = ${ticket.ticketId}`;
        return { registered: false, ticket: toTicket(existing!) };
      }),

    getTicket: (ticketId) =>
      operation('getTicket', text(255), ticketId, async (id) => {
        const [row] = await sql`SELECT * FROM tickets WHERE ticket_id = ${id}`;
        return row ? toTicket(row) : null;
      }),
  };
}

function toTicket(row: Record<string, any>): TicketRecord {
  return {
    ticketId: row.ticket_id,
    workflowId: row.workflow_id,
    environment: row.environment,
    requestedBy: row.requested_by,
    submittedBy: row.submitted_by,
    fingerprint: row.fingerprint,
    fingerprintKeyId: row.fingerprint_key_id,
    registeredAt: row.registered_at.toISOString(),
  };
}
