/**
 * Orders of an earlier dev, which ran its own Temporal-compatible server (retired since). That server kept its state in
 * a schema of its own in dev's database; no server reads it any more, so the orders it ran do not go on. dev finds them
 * at start-up and says how to finish them or end them; with `--drop-earlier-orders` it ends them in the records and
 * drops the schema. The schema is read with plain SQL: the server's code is gone.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { connectionOptions, type TemporalConfig } from '../../config/temporal.js';
import { canTransition, hasEnded, ORDER_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import { createRepository, openDatabase, type Sql } from '../../infra/db/index.js';
import { LAST_EMBEDDED_COMMIT, RETIRED_TABLES } from './retired-server.js';

/** How the retired server wrote a running workflow run in `executions.status` (Temporal's ExecutionStatus). */
const RUNNING = 1;
const ACTOR = 'mve-orders dev --drop-earlier-orders';
/** States whose buy may have reached the ordering API: whoever orders again must look for the product first. */
const BUY_MAY_HAVE_LEFT: ReadonlySet<OrderState> = new Set(['BUYING', 'BUY_UNCERTAIN']);

export interface StrandedOrder {
  workflowId: string;
  ticketId: string;
  status: OrderState;
}

export interface EarlierOrders {
  /** The schema of dev's database that holds the retired server's state. */
  schema: string;
  /** Workflow runs open in the retired server's state. */
  openRuns: number;
  /** Orders of the records that have not ended and whose workflow the Temporal dev runs on does not know. */
  stranded: StrandedOrder[];
  /** True when `--drop-earlier-orders` ended the stranded orders in the records and dropped the schema. */
  dropped: boolean;
}

/** The retired server's state in dev's database and the orders it strands; undefined when there is none. */
export async function earlierOrders(options: {
  databaseUrl: string;
  temporal: { address: string; config: TemporalConfig };
  drop: boolean;
}): Promise<EarlierOrders | undefined> {
  const sql = await openDatabase(options.databaseUrl, { maxConnections: 1 });
  try {
    const schema = await retiredSchema(sql);
    if (schema === undefined) return undefined;
    const [runs] = await sql<Array<{ open: number }>>`
      SELECT count(*)::int AS open FROM ${sql(`${schema}.executions`)} WHERE status = ${RUNNING}`;
    const stranded = await unknownTo(options.temporal, await openOrders(sql));
    if (options.drop) {
      await endInRecords(sql, stranded);
      await sql`DROP SCHEMA ${sql(schema)} CASCADE`;
    }
    return { schema, openRuns: runs.open, stranded, dropped: options.drop };
  } finally {
    await sql.end();
  }
}

/** The schema holding every table of the retired server's state (the first by name, were there two). */
async function retiredSchema(sql: Sql): Promise<string | undefined> {
  const [found] = await sql<Array<{ schema: string }>>`
    SELECT table_schema AS schema FROM information_schema.tables
     WHERE table_name IN ${sql(RETIRED_TABLES)}
     GROUP BY table_schema HAVING count(DISTINCT table_name) = ${RETIRED_TABLES.length}
     ORDER BY table_schema LIMIT 1`;
  return found?.schema;
}

/** The orders of the records that have not ended, oldest first. */
export async function openOrders(sql: Sql): Promise<StrandedOrder[]> {
  const ended = ORDER_STATES.filter(hasEnded);
  const rows = await sql<Array<{ workflow_id: string; ticket_id: string; status: OrderState }>>`
    SELECT workflow_id, ticket_id, status FROM orders WHERE status NOT IN ${sql(ended)} ORDER BY created_at`;
  return rows.map((row) => ({ workflowId: row.workflow_id, ticketId: row.ticket_id, status: row.status }));
}

/** Those of `orders` whose workflow the Temporal server does not know. */
export async function unknownTo(
  temporal: { address: string; config: TemporalConfig },
  orders: StrandedOrder[],
): Promise<StrandedOrder[]> {
  if (orders.length === 0) return [];
  const connection = await Connection.connect(connectionOptions(temporal.config, temporal.address));
  try {
    const client = new Client({ connection, namespace: temporal.config.namespace });
    const unknown: StrandedOrder[] = [];
    for (const order of orders) {
      const known = await client.workflow
        .getHandle(order.workflowId)
        .describe()
        .then(
          () => true,
          (error: unknown) => {
            if (error instanceof WorkflowNotFoundError) return false;
            throw error;
          },
        );
      if (!known) unknown.push(order);
    }
    return unknown;
  } finally {
    await connection.close();
  }
}

/**
 * Each order ended by a last event saying why: FAILED, or PROVISIONING_STALLED for one bought already (its product
 * exists; only its provisioning is no longer followed).
 */
async function endInRecords(sql: Sql, orders: StrandedOrder[]): Promise<void> {
  const records = createRepository(sql);
  for (const order of orders) {
    const to: OrderState = canTransition(order.status, 'FAILED') ? 'FAILED' : 'PROVISIONING_STALLED';
    // The order's workflow numbered its events and notes; this one comes after all of them.
    const [last] = await sql<Array<{ sequence: number }>>`
      SELECT greatest(
        (SELECT coalesce(max(sequence), 0) FROM order_events WHERE workflow_id = ${order.workflowId}),
        (SELECT coalesce(max(sequence), 0) FROM order_notes WHERE workflow_id = ${order.workflowId})
      )::int AS sequence`;
    await records.recordTransition({
      workflowId: order.workflowId,
      sequence: last.sequence + 1,
      from: order.status,
      to,
      actor: ACTOR,
      reason:
        `its workflow ran on the Temporal server embedded in dev up to ${LAST_EMBEDDED_COMMIT}, retired since` +
        (BUY_MAY_HAVE_LEFT.has(order.status)
          ? '; its buy may have reached the ordering API: look for its product there before ordering it again'
          : to === 'PROVISIONING_STALLED'
            ? '; it was bought, and its provisioning is no longer followed'
            : ''),
    });
  }
}
