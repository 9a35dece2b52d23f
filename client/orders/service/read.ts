import type { TicketRecord } from '../../../infra/db/index.js';
import { orderIdOfWorkflow, orderWorkflowId } from '../../../domain/index.js';
import { allow, mayReadOrders, maySee, READ_NEEDS_ROLE } from '../access.js';
import { OrderNotFoundError, type OrderRef } from '../order-client.js';
import { orderFromRecords, orderFromWorkflow, type ApiOrder } from '../order-view.js';
import type { Principal } from '../principal.js';
import { NoSuchOrder, OrderConflict } from '../refusals.js';
import { unavailableDependency } from '../unavailable.js';
import type { OrderServiceParts } from './parts.js';

/**
 * How long a read of an order waits for Temporal before it answers from the records: left to itself, the Temporal
 * client retries a frontend that does not answer for about 20 s.
 */
export const READ_DEADLINE_MS = 5_000;

/** `read`: the caller looks; `act`: the caller is about to act on the order, which only its workflow can take. */
export type ReadPurpose = 'read' | 'act';

/**
 * The order as the caller may see it: live from its workflow, else from the records once Temporal has
 * forgotten it. `name` is the order id, or a ticket id (see `resolveOrder`). An order the caller may not see is
 * answered like one that does not exist; a caller with no role at all is refused before anything is looked up.
 * To `act`, Temporal down is not answered from the records: the error goes on.
 */
export async function readOrder(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  purpose: ReadPurpose = 'read',
): Promise<ApiOrder> {
  return (await readClaimedOrder(parts, principal, name, purpose)).order;
}

/**
 * `readOrder`, with the order as an action names it to the order client: its id and, when its ticket was found claimed,
 * the run that claimed it, so that the action does not read the ticket again.
 */
export async function readClaimedOrder(
  parts: OrderServiceParts,
  principal: Principal,
  name: string,
  purpose: ReadPurpose = 'read',
): Promise<{ order: ApiOrder; ref: OrderRef }> {
  allow(mayReadOrders(principal), READ_NEEDS_ROLE);
  const { orderId, ticket } = await resolveOrder(parts, name, principal);
  // No worker has started it (none serves its environment now): the records answer at once, and say so.
  const unstarted = ticket && !ticket.claimedRunId ? await parts.repository.getOrder(ticket.workflowId) : null;
  if (unstarted && ticket) {
    const order = orderFromRecords(unstarted);
    return {
      order: ticket.cancelledBeforeStartAt ? order : { ...order, waitingForWorkerSince: ticket.registeredAt },
      ref: orderId,
    };
  }
  const ref: OrderRef = ticket?.claimedRunId ? { orderId, firstRunId: ticket.claimedRunId } : orderId;
  let order: ApiOrder | undefined;
  try {
    order = await liveOrder(parts, ref, purpose);
  } catch (error) {
    // Temporal forgot the order, or does not answer now: the records answer (`source: records`), as they can.
    const temporalDown = purpose === 'read' && unavailableDependency(error) === 'Temporal';
    if (!(error instanceof OrderNotFoundError) && !temporalDown) throw error;
    order = await orderFromRecordsOf(parts, orderId);
  }
  if (!order || !maySee(principal, order)) throw new NoSuchOrder(name);
  return { order, ref };
}

/** The order from its workflow; from the records when this server is past its bound on reads at Temporal. */
async function liveOrder(parts: OrderServiceParts, ref: OrderRef, purpose: ReadPurpose): Promise<ApiOrder | undefined> {
  const orderId = typeof ref === 'string' ? ref : ref.orderId;
  const status = () => parts.orders.status(ref);
  const live =
    purpose === 'read'
      ? await parts.liveReads.within(() => parts.temporal.withDeadline(Date.now() + READ_DEADLINE_MS, status))
      : await status();
  // Past the server's bound on reads at Temporal: the records answer, and the workers keep to the orders' work.
  if (!live) return orderFromRecordsOf(parts, orderId);
  const order = orderFromWorkflow(live);
  if (order.submittedBy === null) {
    order.submittedBy = (await parts.repository.getTicketByWorkflow(orderWorkflowId(orderId)))?.submittedBy ?? null;
  }
  return order;
}

async function orderFromRecordsOf(parts: OrderServiceParts, orderId: string): Promise<ApiOrder | undefined> {
  const records = await parts.repository.getOrder(orderWorkflowId(orderId));
  return records ? orderFromRecords(records) : undefined;
}

/**
 * Which order a caller means by `name`: the order with that id when the caller may see it; else the one order
 * the caller may see whose ticket id is `name` (a ticket system names its orders by its own ticket ids, people by
 * the ticket id they were told). Two such orders (two submitters used the same ticket id) are refused as
 * ambiguous, naming only orders the caller may see. Nothing else is revealed: an unknown name is looked up as an
 * order id and ends in NoSuchOrder.
 */
async function resolveOrder(
  parts: OrderServiceParts,
  name: string,
  principal: Principal,
): Promise<{ orderId: string; ticket?: TicketRecord }> {
  const workflowId = orderWorkflowId(name);
  const visible = (await parts.repository.findTickets({ ticketId: name, workflowId })).filter((ticket) =>
    maySee(principal, ticket),
  );
  const exact = visible.find((ticket) => ticket.workflowId === workflowId);
  if (exact) return { orderId: name, ticket: exact };
  const named = visible.filter((ticket) => ticket.ticketId === name);
  if (named.length > 1) {
    const ids = named.map((ticket) => orderIdOfWorkflow(ticket.workflowId)).join(', ');
    throw new OrderConflict(
      'AMBIGUOUS_TICKET',
      `ticket id ${name} names ${named.length} orders from different submitters (${ids}); name the order by its order id`,
    );
  }
  const [only] = named;
  return only ? { orderId: orderIdOfWorkflow(only.workflowId), ticket: only } : { orderId: name };
}
