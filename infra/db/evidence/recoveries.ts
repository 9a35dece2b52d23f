import { z } from 'zod';
import type { Sql } from '../connection.js';
import { text } from '../schemas.js';
import { operation } from '../validate.js';

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

/** Ops' recoveries of orders, and the admitted run each hands on to the run its reset made. */
export interface RunRecoveries {
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
}

/** A `run_recoveries` row (`reset_event_id` is a bigint: the driver gives it as text). */
interface RunRecoveryRow {
  workflow_id: string;
  from_run_id: string;
  reset_event_id: string;
  actor: string;
  reason: string;
  requested_at: Date;
  to_run_id: string | null;
}

const recoveryInput = z.object({
  workflowId: text(255),
  fromRunId: text(255),
  resetEventId: z.number().int().positive(),
  actor: text(255),
  reason: text(2000),
});
const adoptInput = z.object({ workflowId: text(255), fromRunId: text(255), toRunId: text(255) });

export function createRunRecoveries(sql: Sql): RunRecoveries {
  return {
    requestRecovery: (input) =>
      operation('requestRecovery', recoveryInput, input, async (recovery) => {
        await sql`
          INSERT INTO run_recoveries (workflow_id, from_run_id, reset_event_id, actor, reason)
          VALUES (${recovery.workflowId}, ${recovery.fromRunId}, ${recovery.resetEventId}, ${recovery.actor},
                  ${recovery.reason})`;
      }),

    pendingRecovery: (workflowId) =>
      operation('pendingRecovery', text(300), workflowId, async (id) => {
        const [row] = await sql<RunRecoveryRow[]>`
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
        const rows = await sql<RunRecoveryRow[]>`
          SELECT * FROM run_recoveries WHERE workflow_id = ${id} ORDER BY requested_at DESC`;
        return rows.map(toRecovery);
      }),
  };
}

function toRecovery(row: RunRecoveryRow): RunRecoveryRecord {
  return {
    workflowId: row.workflow_id,
    fromRunId: row.from_run_id,
    resetEventId: Number(row.reset_event_id),
    actor: row.actor,
    reason: row.reason,
    requestedAt: row.requested_at.toISOString(),
    toRunId: row.to_run_id ?? null,
  };
}
