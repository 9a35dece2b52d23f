import type { Client } from '@temporalio/client';
import type { Repository } from '../../infra/db/index.js';
import type { Keyring } from '../../codec/index.js';
import { OrderNotFoundError, orderWorkflowId, type OrderClient, type OrderIntake } from '../orders/index.js';
import type { Authenticator } from './auth/authenticate.js';
import type { Principal } from './auth/principal.js';
import { allow, mayReadOrders, maySee, READ_NEEDS_ROLE } from './access.js';
import { notFound } from './errors.js';
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
  log: (line: string) => void;
}

/**
 * The order as the caller may see it: live from its workflow, else from the records once Temporal has
 * forgotten it. An order the caller may not see is answered like one that does not exist; a caller with no role
 * at all is refused (403) before anything is looked up.
 */
export async function loadOrder(context: ApiContext, ticketId: string, principal: Principal): Promise<ApiOrder> {
  allow(mayReadOrders(principal), READ_NEEDS_ROLE);
  let order: ApiOrder | undefined;
  try {
    order = orderFromWorkflow(await context.orders.status(ticketId));
    if (order.submittedBy === null) {
      order.submittedBy = (await context.repository.getTicket(ticketId))?.submittedBy ?? null;
    }
  } catch (error) {
    if (!(error instanceof OrderNotFoundError)) throw error;
    const records = await context.repository.getOrder(orderWorkflowId(ticketId));
    if (records) order = orderFromRecords(records);
  }
  if (!order || !maySee(principal, order)) throw notFound(`no order for ticket ${ticketId}`);
  return order;
}
