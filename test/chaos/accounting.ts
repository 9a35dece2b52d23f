/**
 * The end of a campaign, the same for both: every order against the provider's products (double buys, lost orders,
 * orders left unsettled), then every ticket sent again with the same body, which must start and buy nothing.
 */
import { BOUGHT_STATES, FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import type { Simulator } from '../../tooling/sim/index.js';
import { productNameFor } from '../orders/fixtures/restart-env.js';
import type { ChaosOrder } from './orders.js';
import { sleep } from './random.js';
import type { ChaosTally } from './report.js';

/** What the engine says of an order at the end. */
export interface OrderFinding {
  /** Why the order is not there, when it is not (never accepted, no record). */
  missing?: string;
  state?: OrderState;
  /** The product the order names. */
  productUid?: string;
  /** What Temporal and the records each say, when they disagree. */
  disagreement?: string;
}

const describeRead = (order: ChaosOrder) =>
  `${order.status!.state}${order.status!.source ? ` (from the ${order.status!.source})` : ''}`;

/** The products the provider created for the ticket. */
export const productsOf = (sim: Simulator, ticketId: string) =>
  sim.state().products.filter((product) => product.serviceName?.startsWith(`${productNameFor(ticketId)} [`));

/** Checks every order (`find` says what the engine has of it) against the provider, counting into `tally`. */
export async function auditOrders(
  orders: readonly ChaosOrder[],
  sim: Simulator,
  find: (order: ChaosOrder) => Promise<OrderFinding>,
  tally: ChaosTally,
): Promise<void> {
  const { problems } = tally;
  const tickets = orders.map((order) => order.ticketId);
  for (const product of sim.state().products) {
    const owner = tickets.find((ticketId) => product.serviceName?.startsWith(`${productNameFor(ticketId)} [`));
    if (!owner) problems.push(`product ${product.technicalServiceUid} (${product.serviceName}) belongs to no order`);
  }
  for (const order of orders) {
    const bought = productsOf(sim, order.ticketId);
    if (bought.length > 1) {
      tally.doubleBuys += bought.length - 1;
      const when = bought.map((product) => `${product.technicalServiceUid} at ${product.createdAt}`).join(', ');
      problems.push(`${order.ticketId}: bought ${bought.length} times (${when})`);
    }
    const finding = await find(order);
    const { state } = finding;
    if (finding.missing || !state) {
      tally.lost++;
      problems.push(`${order.ticketId}: ${finding.missing ?? 'no state'}`);
      continue;
    }
    if (BOUGHT_STATES.has(state)) tally.bought++;
    if (FINAL_STATES.has(state)) tally.finalStates[state] = (tally.finalStates[state] ?? 0) + 1;
    if (finding.disagreement) problems.push(`${order.ticketId}: ${finding.disagreement}`);
    if (!FINAL_STATES.has(state)) {
      tally.unsettled++;
      const seen = order.status && order.status.state !== state ? `; the bots last read ${describeRead(order)}` : '';
      problems.push(`${order.ticketId}: left in ${state}${seen}`);
      continue;
    }
    if (BOUGHT_STATES.has(state)) {
      const uid = finding.productUid;
      if (!bought.some((product) => product.technicalServiceUid === uid)) {
        tally.lost++;
        problems.push(`${order.ticketId}: ${state} as ${uid ?? '?'}, which the provider does not have`);
      }
    } else if (bought.length) {
      tally.lost++;
      problems.push(
        `${order.ticketId}: ${state}, but the provider created ${bought.map((product) => product.technicalServiceUid).join(', ')}`,
      );
    }
  }
}

/**
 * Every accepted ticket sent again with the same body; `resend` resolves to whether it started an order. Nothing may
 * start, and nothing may be bought in the two seconds after.
 */
export async function resendTickets(
  orders: readonly ChaosOrder[],
  sim: Simulator,
  resend: (order: ChaosOrder) => Promise<boolean>,
  tally: ChaosTally,
): Promise<void> {
  const productCount = sim.state().products.length;
  for (const order of orders.filter((entry) => entry.submitted)) {
    tally.resent++;
    const started = await resend(order).catch((error: unknown) => {
      tally.problems.push(`${order.ticketId}: re-sent, refused: ${String(error)}`);
      return false;
    });
    if (started) {
      tally.startedAgain++;
      tally.problems.push(`${order.ticketId}: re-sent and started again`);
    }
  }
  await sleep(2_000);
  const extra = sim.state().products.length - productCount;
  if (extra > 0) {
    tally.doubleBuys += extra;
    tally.problems.push(`${extra} product(s) bought after the tickets were re-sent`);
  }
}
