import { unavailableDependency } from './unavailable.js';
import type { Client } from '@temporalio/client';
import type { Repository, TicketRecord } from '../../infra/db/index.js';
import type { Keyring } from '../../codec/index.js';
import {
  OrderNotFoundError,
  orderIdOfWorkflow,
  orderWorkflowId,
  type OrderClient,
  type OrderIntake,
} from '../orders/index.js';
import type { Authenticator } from './auth/authenticate.js';
import type { Principal } from './auth/principal.js';
import { allow, mayReadOrders, maySee, READ_NEEDS_ROLE } from './access.js';
import { ApiError, notFound } from './errors.js';
import type { LiveReads } from './live-reads.js';
import { orderFromRecords, orderFromWorkflow, type ApiOrder } from './order-view.js';

/** What the routes stand on, built once by whoever runs the server (`serve`, `dev`, tests). */
export interface ApiContext {
  orders: OrderClient;
  intake: OrderIntake;
  repository: Repository;
  authenticator: Authenticator;
  /** The Temporal client (with the encrypting codec) the order client uses: history and readiness. */
  temporal: Client;
  /** The payload codec keys, for the codec server and decoding history for ops. */
  codecKeys: Keyring;
  /** Origins allowed to call the codec server from a browser (the Temporal Web UI). */
  codecCorsOrigins: readonly string[];
  /** This server's bound on reads of orders at Temporal (MVE_LIVE_READS); past it, reads answer from the records. */
  liveReads: LiveReads;
  log: (line: string) => void;
}

/**
 * How long a read of an order waits for Temporal before it answers from the records: left to itself, the Temporal
 * client retries a frontend that does not answer for about 20 s.
 */
export const READ_DEADLINE_MS = 5_000;

/**
 * The order as the caller may see it: live from its workflow, else from the records once Temporal has
 * forgotten it. `name` is the order id, or a ticket id (see `resolveOrderId`). An order the caller may not see is
 * answered like one that does not exist; a caller with no role at all is refused (403) before anything is looked up.
 */
export async function loadOrder(
  context: ApiContext,
  name: string,
  principal: Principal,
  /** `act`: the caller is about to act on the order, which only its workflow can take: Temporal down is 503 then. */
  purpose: 'read' | 'act' = 'read',
): Promise<ApiOrder> {
  allow(mayReadOrders(principal), READ_NEEDS_ROLE);
  const { orderId, ticket } = await resolveOrder(context, name, principal);
  // No worker has started it (none serves its environment now): the records answer at once, and say so.
  const unstarted = ticket && !ticket.claimedRunId ? await context.repository.getOrder(ticket.workflowId) : null;
  if (unstarted && ticket) {
    const order = orderFromRecords(unstarted);
    return ticket.cancelledBeforeStartAt ? order : { ...order, waitingForWorkerSince: ticket.registeredAt };
  }
  let order: ApiOrder | undefined;
  try {
    const status = () => context.orders.status(orderId);
    const live =
      purpose === 'read'
        ? await context.liveReads.within(() => context.temporal.withDeadline(Date.now() + READ_DEADLINE_MS, status))
        : await status();
    // Past the server's bound on reads at Temporal: the records answer, and the workers keep to the orders' work.
    if (!live) order = await orderFromRecordsOf(context, orderId);
    else {
      order = orderFromWorkflow(live);
      if (order.submittedBy === null) {
        order.submittedBy =
          (await context.repository.getTicketByWorkflow(orderWorkflowId(orderId)))?.submittedBy ?? null;
      }
    }
  } catch (error) {
    // Temporal forgot the order, or does not answer now: the records answer (`source: records`), as they can.
    const temporalDown = purpose === 'read' && unavailableDependency(error) === 'Temporal';
    if (!(error instanceof OrderNotFoundError) && !temporalDown) throw error;
    order = await orderFromRecordsOf(context, orderId);
  }
  if (!order || !maySee(principal, order)) throw notFound(`no order ${name}`);
  return order;
}

async function orderFromRecordsOf(context: ApiContext, orderId: string): Promise<ApiOrder | undefined> {
  const records = await context.repository.getOrder(orderWorkflowId(orderId));
  return records ? orderFromRecords(records) : undefined;
}

/**
 * Which order a caller means by `name`: the order with that id when the caller may see it; else the one order
 * the caller may see whose ticket id is `name` (a ticket system names its orders by its own ticket ids, people by
 * the ticket id they were told). Two such orders (two submitters used the same ticket id) are refused as
 * ambiguous, naming only orders the caller may see. Nothing else is revealed: an unknown name is looked up as an
 * order id and ends in 404.
 */
async function resolveOrder(
  context: ApiContext,
  name: string,
  principal: Principal,
): Promise<{ orderId: string; ticket?: TicketRecord }> {
  const workflowId = orderWorkflowId(name);
  const visible = (await context.repository.findTickets({ ticketId: name, workflowId })).filter((ticket) =>
    maySee(principal, ticket),
  );
  const exact = visible.find((ticket) => ticket.workflowId === workflowId);
  if (exact) return { orderId: name, ticket: exact };
  const named = visible.filter((ticket) => ticket.ticketId === name);
  if (named.length > 1) {
    const ids = named.map((ticket) => orderIdOfWorkflow(ticket.workflowId)).join(', ');
    throw new ApiError(
      409,
      'AMBIGUOUS_TICKET',
      `ticket id ${name} names ${named.length} orders from different submitters (${ids}); name the order by its order id`,
    );
  }
  const [only] = named;
  return only ? { orderId: orderIdOfWorkflow(only.workflowId), ticket: only } : { orderId: name };
}
