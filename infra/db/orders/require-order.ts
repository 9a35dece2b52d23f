import type { Queryable } from '../connection.js';
import { RepositoryError } from '../errors.js';

/** Throws `not-found` (naming `op`) unless an order is recorded for the workflow. */
export async function requireOrder(sql: Queryable, op: string, workflowId: string): Promise<void> {
  const [row] = await sql`SELECT 1 FROM orders WHERE workflow_id = ${workflowId}`;
  if (!row) throw new RepositoryError('not-found', `${op}: no order recorded with workflow id ${workflowId}`);
}
