import { CANCELLABLE_STATES, cancelRefusal, type OrderState } from '../../../domain/lifecycle/index.js';
import { allow, mayCancel } from '../access.js';
import type { ApiOrder } from '../order-view.js';
import { sameIdentity, type Principal } from '../principal.js';
import { OrderConflict } from '../refusals.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder } from './read.js';

/** The order's state after the cancel; `alreadyDone` when it repeats the caller's own cancel (nothing changed). */
export interface CancelOutcome {
  state: OrderState;
  alreadyDone?: string;
}

/**
 * Cancels an order that is not yet buying, as the caller, saying why. `sending` is called right before the cancel
 * leaves (to the records for an order no worker has started, else to its workflow).
 */
export async function cancelOrder(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  reason: string,
  sending: () => void,
): Promise<CancelOutcome> {
  let order = await readOrder(parts, principal, name, 'act');
  allow(
    mayCancel(principal, order),
    'cancelling needs the ops or admin role, or your own order (requester) or submission (ticket system)',
  );
  if (order.waitingForWorkerSince) {
    if (await cancelUnstarted(parts, order, principal.id, reason, sending)) return { state: 'CANCELLED' };
    // A worker started it meanwhile: it is cancelled through its workflow, as any other.
    order = await readOrder(parts, principal, order.orderId, 'act');
  }
  if (order.state === 'CANCELLED') return alreadyCancelled(order, principal);
  // An order that has ended (or that Temporal has forgotten) or has started buying is refused here, with the
  // workflow's own code: a closed workflow would answer "not found", which is no reason to give the caller. The
  // refusal names what to do instead (a bought MVE is stopped with the provider).
  if (order.source === 'records' || !CANCELLABLE_STATES.has(order.state)) {
    throw new OrderConflict('NOT_CANCELLABLE', cancelRefusal(order.state, order.product?.technicalServiceUid));
  }
  const state = await parts.orders.cancel(order.orderId, { actor: principal.id, reason }, sending);
  return { state };
}

/**
 * Cancels an order no worker has started: recorded CANCELLED and its ticket closed to every run in one step, then its
 * workflow ended so that no worker picks it up later (one that does is refused by the ticket). False: a worker
 * claimed it meanwhile.
 */
async function cancelUnstarted(
  parts: OrderServiceParts,
  order: ApiOrder,
  actor: string,
  reason: string,
  sending: () => void,
): Promise<boolean> {
  sending();
  const { cancelled } = await parts.repository.cancelUnstartedOrder({ workflowId: order.workflowId, actor, reason });
  if (!cancelled) return false;
  await parts.temporal.workflow
    .getHandle(order.workflowId)
    .terminate(`cancelled by ${actor} before a worker started it`)
    .catch((error: unknown) =>
      parts.log(`${order.orderId}: cancelled, but its workflow could not be ended (${(error as Error).message})`),
    );
  return true;
}

/** A cancel of an order already CANCELLED: the caller's own cancel repeated is answered with the state, and says so. */
function alreadyCancelled(order: ApiOrder, principal: Principal): CancelOutcome {
  const cancel = order.timeline?.find((entry) => entry.state === 'CANCELLED');
  if (cancel && sameIdentity(cancel.actor, principal.id)) {
    return {
      state: 'CANCELLED',
      alreadyDone: `already cancelled by you at ${cancel.at} (${cancel.reason}): this repeats a cancel that took effect; nothing changed`,
    };
  }
  const by = cancel ? ` by ${cancel.actor} at ${cancel.at}` : '';
  throw new OrderConflict('NOT_CANCELLABLE', `the order was already cancelled${by}; nothing changed`);
}
