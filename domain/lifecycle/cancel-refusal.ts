/**
 * Why an order cannot be cancelled, and what to do instead: the words of the API's `NOT_CANCELLABLE` refusal (and of
 * the workflow's, when a buy began meanwhile), which the console and the CLI show as they are.
 */
import { BOUGHT_STATES, type OrderState } from './order-states.js';

/** `product`: the bought product's UID, when the order knows it. */
export function cancelRefusal(state: OrderState, product?: string): string {
  const named = product ? `product ${product}` : 'its product';
  if (BOUGHT_STATES.has(state))
    return `the order is ${state}: the MVE is bought, and a bought order cannot be cancelled. To stop it and what it costs, decommission ${named} with the provider (in its portal); the order keeps the purchase on record`;
  if (state === 'BUYING')
    return `the order is BUYING: its buy request has been sent, so it can no longer be cancelled. Wait for the outcome; once it is bought, decommission its product with the provider (in its portal) to stop it`;
  if (state === 'BUY_UNCERTAIN')
    return `the order is BUY_UNCERTAIN: its buy may have happened, so it cannot be cancelled. Ops first settle the buy after checking the provider's portal (the order's page in the console, or mve-orders resolve-buy); a product that was created is then stopped by decommissioning it with the provider`;
  if (state === 'REJECTED' || state === 'EXPIRED' || state === 'FAILED')
    return `the order is ${state}: it ended without buying anything, so there is nothing to cancel`;
  return `the order is ${state}; it can be cancelled only before buying`;
}
