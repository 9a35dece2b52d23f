import { z } from 'zod';
import type { Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import { jsonParameter } from '../json.js';
import type { OrderRow } from '../records.js';
import { orderReceivedInput, unstartedCancelInput, type OrderReceivedInput } from '../schemas.js';
import { unredactedSecretPath } from '../secret-guard.js';
import { operation } from '../validate.js';

/** The order's own row: created once from the intake, noted with the run that received it, or cancelled unstarted. */
export interface OrderIntake {
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
}

const orderRunInput = z.object({
  workflowId: z.string().min(1, 'must not be empty'),
  runId: z.string().min(1, 'must not be empty'),
});

export function createOrderIntake(sql: Sql): OrderIntake {
  return {
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
        const [inserted] = await sql<Array<{ created: boolean }>>`
          WITH created AS (
            INSERT INTO orders (workflow_id, ticket_id, environment, requested_by, request, run_id, team)
            VALUES (${order.workflowId}, ${order.ticketId}, ${order.environment}, ${order.requestedBy},
                    ${jsonParameter(sql, order.request)}, ${order.runId ?? null}, ${order.team ?? null})
            ON CONFLICT (workflow_id) DO NOTHING
            RETURNING workflow_id
          ), received AS (
            INSERT INTO order_events (workflow_id, sequence, from_status, to_status, actor, reason, at)
            SELECT workflow_id, 0, NULL, 'RECEIVED', ${order.requestedBy}, 'order received',
                   coalesce(${order.at ?? null}::timestamptz, now())
            FROM created
          )
          SELECT EXISTS (SELECT 1 FROM created) AS created`;
        if (inserted.created) return { created: true };
        // Recorded first by the intake (no run yet): the run that received it is noted now.
        if (order.runId)
          await sql`UPDATE orders SET run_id = ${order.runId} WHERE workflow_id = ${order.workflowId} AND run_id IS NULL`;
        const [existing] = await sql<Array<Pick<OrderRow, 'ticket_id' | 'environment'>>>`
          SELECT ticket_id, environment FROM orders WHERE workflow_id = ${order.workflowId}`;
        if (existing.ticket_id !== order.ticketId || existing.environment !== order.environment) {
          throw new RepositoryError(
            'conflict',
            `recordOrderReceived: order ${order.workflowId} is already recorded for ticket ` +
              `${existing.ticket_id} in ${existing.environment}`,
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
  };
}
