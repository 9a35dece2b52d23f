import type postgres from 'postgres';
import type { z } from 'zod';
import type { Sql } from '../connection.js';
import { invalidInput, RepositoryError, translateDatabaseError } from '../errors.js';
import { jsonParameter } from '../json.js';
import type { OrderEventRow, OrderNoteRow } from '../records.js';
import {
  lastErrorInput,
  noteInput,
  transitionInput,
  type LastErrorInput,
  type NoteInput,
  type TransitionInput,
} from '../schemas.js';
import { operation } from '../validate.js';
import { requireOrder } from './require-order.js';

/** What happened to the order: its state changes (the events its status follows), its notes and its last error. */
export interface OrderJournal {
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
  /** Sets (or, with `error: null`, clears) the order's last error. The message must be redacted. */
  recordLastError(input: LastErrorInput): Promise<void>;
}

export type TransitionOutcome = { recorded: boolean } | { refused: RepositoryError };

type Transition = z.output<typeof transitionInput>;

export function createOrderJournal(sql: Sql): OrderJournal {
  return {
    recordTransition: async (input) => {
      const [outcome] = await recordTransitionsAs(sql, 'recordTransition', [input]);
      if ('refused' in outcome) throw outcome.refused;
      return outcome;
    },

    recordTransitions: (inputs) => recordTransitionsAs(sql, 'recordTransitions', inputs),

    recordNote: (input) =>
      operation('recordNote', noteInput, input, async (note) => {
        const rows = await sql`
          INSERT INTO order_notes (workflow_id, sequence, actor, message, details, at)
          VALUES (${note.workflowId}, ${note.sequence}, ${note.actor}, ${note.message}, ${jsonParameter(sql, note.details)}, ${note.at})
          ON CONFLICT (workflow_id, sequence) DO NOTHING
          RETURNING sequence`;
        if (rows.length > 0) return { recorded: true };
        // A retried write finds its own note; another note under the number is not the same write.
        const [existing] = await sql<Array<Pick<OrderNoteRow, 'actor' | 'message'>>>`
          SELECT actor, message FROM order_notes WHERE workflow_id = ${note.workflowId} AND sequence = ${note.sequence}`;
        if (existing && (existing.actor !== note.actor || existing.message !== note.message)) {
          throw new RepositoryError(
            'conflict',
            `recordNote: sequence ${note.sequence} of order ${note.workflowId} holds another note already`,
          );
        }
        return { recorded: false };
      }),

    recordLastError: (input) =>
      operation('recordLastError', lastErrorInput, input, async ({ workflowId, error, at }) => {
        const updated = await sql`
          UPDATE orders SET last_error = ${error},
                 last_error_at = CASE WHEN ${error}::text IS NULL THEN NULL
                                      ELSE coalesce(${at ?? null}::timestamptz, now()) END,
                 updated_at = now()
          WHERE workflow_id = ${workflowId} RETURNING 1`;
        if (updated.length === 0) await requireOrder(sql, 'recordLastError', workflowId);
      }),
  };
}

/** `recordTransition` and `recordTransitions`: one statement for any number of one order's changes (`name` in refusals). */
async function recordTransitionsAs(sql: Sql, name: string, inputs: TransitionInput[]): Promise<TransitionOutcome[]> {
  const outcomes: TransitionOutcome[] = [];
  const valid: Array<{ index: number; event: Transition }> = [];
  for (const [index, input] of inputs.entries()) {
    const parsed = transitionInput.safeParse(input);
    if (parsed.success) valid.push({ index, event: parsed.data });
    else outcomes[index] = { refused: invalidInput(name, parsed.error) };
  }
  const workflowId = valid[0]?.event.workflowId;
  if (workflowId === undefined) return outcomes;
  if (valid.some(({ event }) => event.workflowId !== workflowId))
    throw new Error(`${name}: the transitions of one order at a time`);
  let inserted: Set<number>;
  try {
    inserted = await insertTransitions(
      sql,
      workflowId,
      valid.map(({ event }) => event),
    );
  } catch (error) {
    const translated = translateDatabaseError(name, error);
    if (!(translated instanceof RepositoryError)) throw translated;
    for (const { index } of valid) outcomes[index] = { refused: translated };
    return outcomes;
  }
  const retried = valid.filter(({ event }) => !inserted.has(event.sequence));
  const existing = retried.length
    ? await sql<Array<Pick<OrderEventRow, 'sequence' | 'from_status' | 'to_status'>>>`
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

/** Inserts the order's events (a sequence recorded before is skipped) and moves the order's row: the sequences inserted. */
async function insertTransitions(sql: Sql, workflowId: string, events: Transition[]): Promise<Set<number>> {
  const rows = events.map((event) => ({
    sequence: event.sequence,
    from_status: event.from,
    to_status: event.to,
    actor: event.actor,
    reason: event.reason ?? null,
    details: event.details,
    at: event.at ?? null,
  }));
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
  return new Set(written.map((row) => row.sequence));
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
