import type postgres from 'postgres';
import { z } from 'zod';
import type { Sql } from './connection.js';
import { operation } from './validate.js';

export const noteInput = z.object({
  workflowId: z.string().trim().min(1, 'must not be empty').max(255, 'at most 255 characters'),
  /** The workflow's sequence number: the idempotency key, shared with the order's events. */
  sequence: z.number().int('must be a whole number').min(1, 'must be at least 1'),
  actor: z.string().trim().min(1, 'must not be empty').max(255, 'at most 255 characters'),
  message: z.string().trim().min(1, 'must not be empty').max(4000, 'at most 4000 characters'),
  details: z.record(z.string(), z.unknown()).default({}),
  at: z.union([z.date(), z.iso.datetime({ offset: true })]).transform((value) => new Date(value).toISOString()),
});
export type NoteInput = z.input<typeof noteInput>;

export interface OrderNoteRecord {
  sequence: number;
  actor: string;
  message: string;
  details: Record<string, unknown>;
  at: string;
}

export interface NotesRepository {
  /** Records a note on the order (a reminder, a refused signal, a scheduled retry); a retried write is a no-op. */
  recordNote(input: NoteInput): Promise<{ recorded: boolean }>;
  /** The order's notes in sequence order. */
  listNotes(workflowId: string): Promise<OrderNoteRecord[]>;
}

export function createNotesRepository(sql: Sql): NotesRepository {
  return {
    recordNote: (input) =>
      operation('recordNote', noteInput, input, async (note) => {
        const rows = await sql`
          INSERT INTO order_notes (workflow_id, sequence, actor, message, details, at)
          VALUES (${note.workflowId}, ${note.sequence}, ${note.actor}, ${note.message},
                  ${sql.json(note.details as postgres.JSONValue)}, ${note.at})
          ON CONFLICT (workflow_id, sequence) DO NOTHING
          RETURNING sequence`;
        return { recorded: rows.length > 0 };
      }),
    async listNotes(workflowId) {
      const rows = await sql`
        SELECT sequence, actor, message, details, at FROM order_notes
        WHERE workflow_id = ${workflowId} ORDER BY sequence`;
      return rows.map((row) => ({
        sequence: row['sequence'] as number,
        actor: row['actor'] as string,
        message: row['message'] as string,
        details: row['details'] as Record<string, unknown>,
        at: (row['at'] as Date).toISOString(),
      }));
    },
  };
}
