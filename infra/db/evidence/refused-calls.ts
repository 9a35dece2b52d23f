import { z } from 'zod';
import type { Sql } from '../connection.js';
import { runKey, text } from '../schemas.js';
import { operation } from '../validate.js';

/** An activity call the workers refused, and why (one per run and activity). */
export interface RefusedCallRecord {
  workflowId: string;
  runId: string;
  activity: string;
  reason: string;
  refusedAt: string;
}

/** The activity calls the workers refused. */
export interface RefusedCalls {
  /** Keeps an activity call the workers refused (a repeat of the same refusal adds nothing). */
  recordRefusedCall(input: Omit<RefusedCallRecord, 'refusedAt'>): Promise<void>;
  /** Refused calls, newest first (of one workflow when `workflowId` is given). */
  listRefusedCalls(input?: { workflowId?: string; limit?: number }): Promise<RefusedCallRecord[]>;
}

/** A `refused_calls` row. */
interface RefusedCallRow {
  workflow_id: string;
  run_id: string;
  activity: string;
  reason: string;
  refused_at: Date;
}

const refusedCallInput = runKey.extend({ activity: text(100), reason: text(2000) });
const listRefusedCallsInput = z.object({
  workflowId: text(300).optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

export function createRefusedCalls(sql: Sql): RefusedCalls {
  return {
    recordRefusedCall: (input) =>
      operation('recordRefusedCall', refusedCallInput, input, async ({ workflowId, runId, activity, reason }) => {
        await sql`
          INSERT INTO refused_calls (workflow_id, run_id, activity, reason)
          VALUES (${workflowId}, ${runId}, ${activity}, ${reason}) ON CONFLICT DO NOTHING`;
      }),

    listRefusedCalls: (input = {}) =>
      operation('listRefusedCalls', listRefusedCallsInput, input, async ({ workflowId, limit }) => {
        const rows = workflowId
          ? await sql<RefusedCallRow[]>`
              SELECT * FROM refused_calls WHERE workflow_id = ${workflowId} ORDER BY refused_at DESC LIMIT ${limit}`
          : await sql<RefusedCallRow[]>`SELECT * FROM refused_calls ORDER BY refused_at DESC LIMIT ${limit}`;
        return rows.map((row) => ({
          workflowId: row.workflow_id,
          runId: row.run_id,
          activity: row.activity,
          reason: row.reason,
          refusedAt: row.refused_at.toISOString(),
        }));
      }),
  };
}
