/**
 * The orders of the load bench: the two sizes it submits, the request body (the topology harness's, whose product name
 * carries the ticket, so the provider's products count per ticket), and every order as the API lists it.
 */
import { z } from 'zod';
import { topologyRequest } from '../../test/topology/cluster.js';
import type { RoundRobinClient } from '../../test/topology/round-robin.js';

/**
 * Sydney, 12 months, at the simulator's prices, under the default staging policy: MVE 16/64 is 3,236.40 AUD a month,
 * over the 3,000 AUD auto-approval line, so one finance approver decides; MVE 4/16 is 809.10 AUD, bought without a vote.
 */
export const ONE_APPROVAL_SIZE = 'MVE 16/64';
export const AUTO_APPROVED_SIZE = 'MVE 4/16';

export function orderRequest(ticketId: string, size: string): Record<string, unknown> {
  return topologyRequest(ticketId, { size });
}

const listedOrder = z.object({
  orderId: z.string(),
  ticketId: z.string(),
  state: z.string(),
  quote: z.object({ monthlyRate: z.number(), currency: z.string() }).nullable(),
});
export type ListedOrder = z.output<typeof listedOrder>;
const ordersPage = z.object({ orders: z.array(listedOrder), nextCursor: z.string().nullable() });

/** Every order `as` may see (`query`: the list's filters), page after page; patient with 429 and 503. */
export async function listAllOrders(client: RoundRobinClient, as: string, query = ''): Promise<ListedOrder[]> {
  const orders: ListedOrder[] = [];
  for (let cursor: string | null = null; ;) {
    const page = new URLSearchParams(query);
    page.set('limit', '500');
    if (cursor) page.set('cursor', cursor);
    const answer = await client.patient('GET', `/api/v1/orders?${page.toString()}`, { as });
    if (answer.status !== 200)
      throw new Error(`GET /api/v1/orders as ${as}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    const listed = ordersPage.parse(answer.body);
    orders.push(...listed.orders);
    cursor = listed.nextCursor;
    if (!cursor) return orders;
  }
}
