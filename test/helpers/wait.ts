import type { OrderClient } from '../../client/orders/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import { orderOf, TEST_SUBMITTER } from './orders.js';

/** Polls the status query of the order `submittedBy` (alice) submitted as `ticketId` until it reaches `state` (or fails the test after `timeoutMs`). */
export async function waitForState(
  orders: OrderClient,
  ticketId: string,
  state: OrderState,
  timeoutMs = 20_000,
  submittedBy = TEST_SUBMITTER,
): Promise<OrderStatusView> {
  const deadline = Date.now() + timeoutMs;
  let last: OrderStatusView | undefined;
  while (Date.now() < deadline) {
    try {
      last = await orders.status(orderOf(ticketId, submittedBy));
      if (last.state === state) return last;
    } catch {
      // the workflow may not have run its first task yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `order ${ticketId} did not reach ${state} within ${timeoutMs} ms (last: ${last?.state ?? 'no status'})`,
  );
}

/** Polls `probe` until it gives a value other than undefined (or fails the test after `timeoutMs`). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
