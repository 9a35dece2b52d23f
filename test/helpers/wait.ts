import type { OrderClient } from '../../client/orders/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import type { OrderState } from '../../workflows/order/states.js';

/** Polls the order's status query until it reaches `state` (or fails the test after `timeoutMs`). */
export async function waitForState(orders: OrderClient, ticketId: string, state: OrderState, timeoutMs = 20_000): Promise<OrderStatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: OrderStatusView | undefined;
  while (Date.now() < deadline) {
    try {
      last = await orders.status(ticketId);
      if (last.state === state) return last;
    } catch {
      // the workflow may not have run its first task yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`order ${ticketId} did not reach ${state} within ${timeoutMs} ms (last: ${last?.state ?? 'no status'})`);
}
