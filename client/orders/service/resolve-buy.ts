import { orderIdOfWorkflow } from '../../../domain/index.js';
import type { OrderState } from '../../../domain/lifecycle/index.js';
import type { ResolveBuyInput } from '../../../workflows/order/messages.js';
import { allow, mayResolveBuys } from '../access.js';
import type { ApiOrder } from '../order-view.js';
import type { Principal } from '../principal.js';
import { OrderConflict } from '../refusals.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder } from './read.js';

/** Ops' answer for a BUY_UNCERTAIN order: created (with the product UID) or not created (with how they know). */
export type BuyResolution = DistributiveOmit<ResolveBuyInput, 'actor'>;

/**
 * Settles the order's uncertain buy as the caller (ops or admin). A product is accepted only when no other order's
 * records have it; the workers check it with the provider. `sending` is called right before it leaves.
 */
export async function resolveBuy(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  resolution: BuyResolution,
  sending: () => void,
): Promise<OrderState> {
  allow(mayResolveBuys(principal), 'resolving an uncertain buy needs the ops or admin role');
  const order = await readOrder(parts, principal, name, 'act');
  if (order.state !== 'BUY_UNCERTAIN') throw new OrderConflict('NOT_UNCERTAIN', notUncertain(order));
  if (resolution.attempt !== order.buyAttempts)
    throw new OrderConflict('NOT_UNCERTAIN', notThisAttempt(order, resolution));
  if (resolution.outcome === 'created') {
    // A product is one order's: settling this order with another's product would leave this buy unaccounted for.
    const owner = await parts.repository.orderOfProduct(resolution.technicalServiceUid);
    if (owner && owner.workflowId !== order.workflowId)
      throw new OrderConflict(
        'PRODUCT_TAKEN',
        `technicalServiceUid: ${resolution.technicalServiceUid} is the product of order ${orderIdOfWorkflow(owner.workflowId)}; a product belongs to one order (check the provider's portal for the product this buy created)`,
      );
  }
  // The workflow checks the attempt again: the order may have moved on since it was read.
  return parts.orders.resolveBuy(order.orderId, { ...resolution, actor: principal.id }, sending);
}

/** Why a resolution of another attempt than the uncertain one is refused: it settled, or never was, that attempt. */
function notThisAttempt(order: ApiOrder, resolution: BuyResolution): string {
  const uncertain = order.buyAttempts ?? 0;
  const asked =
    resolution.attempt < uncertain
      ? `buy attempt ${resolution.attempt} was settled already and the order bought again`
      : `the order has made ${uncertain} buy attempt(s), not ${resolution.attempt}`;
  return `attempt: ${asked}; its uncertain buy is attempt ${uncertain}: check that one at the provider before resolving it; nothing changed`;
}

/** Why an order not in BUY_UNCERTAIN takes no resolution, saying how its uncertain buy was settled if it had one. */
function notUncertain(order: ApiOrder): string {
  const timeline = order.timeline ?? [];
  const uncertain = timeline.findLastIndex((entry) => entry.state === 'BUY_UNCERTAIN');
  const settled = uncertain >= 0 ? timeline[uncertain + 1] : undefined;
  const how = settled
    ? `: its uncertain buy was already settled (${settled.state}, by ${settled.actor} at ${settled.at}); nothing changed`
    : '';
  return `the order is ${order.state}; only an order in BUY_UNCERTAIN can be resolved${how}`;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
