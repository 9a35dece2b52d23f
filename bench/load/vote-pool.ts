/**
 * Orders waiting for one finance approval, submitted before the measured phase so that every vote of the load targets
 * an order of its own (a second vote on an order is 409, which would count as an error). The ticket systems submit
 * them in turn, so each also has orders to poll from the first request on (`ticketsOf`).
 */
import type { RoundRobinClient } from '../../test/topology/round-robin.js';
import { pool } from '../stats.js';
import { listAllOrders, ONE_APPROVAL_SIZE, orderRequest } from './orders.js';

export interface WaitingOrder {
  orderId: string;
  ticketId: string;
  monthlyRate: number;
  currency: string;
}

const SUBMIT_CONCURRENCY = 8;

export async function seedVotePool(options: {
  client: RoundRobinClient;
  /** The orders' ticket ids; the ticket systems submit them in turn. */
  ticketIds: string[];
  ticketSystems: string[];
  /** Who lists every order (ops). */
  ops: string;
  log: (line: string) => void;
}): Promise<{ waiting: WaitingOrder[]; ticketsOf: Map<string, string[]> }> {
  const { client, ticketIds, ticketSystems, ops, log } = options;
  const ticketsOf = new Map(ticketSystems.map((system) => [system, [] as string[]]));
  await pool(ticketIds.length, SUBMIT_CONCURRENCY, async (index) => {
    const ticketId = ticketIds[index];
    const as = ticketSystems[index % ticketSystems.length];
    const answer = await client.patient('POST', '/api/v1/orders', {
      as,
      body: orderRequest(ticketId, ONE_APPROVAL_SIZE),
    });
    if (answer.status !== 201)
      throw new Error(`submitting ${ticketId}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    ticketsOf.get(as)!.push(ticketId);
  });
  log(`${ticketIds.length} orders submitted for the votes; waiting until each awaits approval with its quote`);

  // A worker quotes about a dozen orders a second on a busy 2-core machine; a minute at least.
  const deadline = Date.now() + Math.max(60_000, ticketIds.length * 200);
  const wanted = new Set(ticketIds);
  for (;;) {
    const waiting = (await listAllOrders(client, ops, 'status=AWAITING_APPROVAL')).filter(
      (order) => wanted.has(order.ticketId) && order.quote,
    );
    if (waiting.length === wanted.size)
      return {
        waiting: waiting.map(({ orderId, ticketId, quote }) => ({ orderId, ticketId, ...quote! })),
        ticketsOf,
      };
    if (Date.now() > deadline)
      throw new Error(`only ${waiting.length} of ${wanted.size} orders awaited approval in time: the workers lag`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
