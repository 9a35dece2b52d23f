/** What Temporal's visibility says of the bench's orders: how many wait for approval, listing them, and any that ended. */
import type { Client } from '@temporalio/client';
import { READY_PROBE_TYPE } from '../../tooling/temporal/cluster/register.js';

const WAITING_QUERY = `OrderStatus = 'AWAITING_APPROVAL'`;

export async function countWaiting(client: Client): Promise<number> {
  const { count } = await client.workflowService.countWorkflowExecutions({
    namespace: client.options.namespace,
    query: WAITING_QUERY,
  });
  return Number(count);
}

/** The waiting orders, a page of `pageSize` or every page; the time it took. */
export async function listWaiting(
  client: Client,
  pageSize: number,
  allPages: boolean,
): Promise<{ ms: number; listed: number }> {
  const t0 = performance.now();
  let listed = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: WAITING_QUERY,
      pageSize,
      nextPageToken,
    });
    listed += page.executions.length;
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (allPages && nextPageToken);
  return { ms: performance.now() - t0, listed };
}

/**
 * Every order the bench makes ends BOUGHT or waits: one that ended otherwise is a defect, and fails the bench. A
 * cluster's readiness probe (its search attributes set, then terminated) is not an order.
 */
export async function failOnEndedOrders(client: Client): Promise<void> {
  const ended: string[] = [];
  for await (const order of client.workflow.list({
    query: `ExecutionStatus != 'Running' AND OrderStatus != 'BOUGHT' AND WorkflowType != '${READY_PROBE_TYPE}'`,
  }))
    ended.push(`${order.workflowId} (${String(order.searchAttributes.OrderStatus?.[0] ?? order.status.name)})`);
  if (ended.length)
    throw new Error(`orders ended neither bought nor waiting for approval: ${ended.slice(0, 5).join(', ')}`);
}
