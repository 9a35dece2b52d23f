/**
 * After the load, nothing lost and nothing bought twice. The workers are given time to catch up (bounded); then, as
 * ops lists every order through the API:
 *
 * - every order a ticket system was answered 2xx for is there, and has gone where its size takes it: the auto-approved
 *   size bought, the one-approval size waiting for a vote; a ticket refused (429) is not an order;
 * - every order a vote approved (2xx) was bought; the vote pool's orders not voted on still wait;
 * - the provider (the simulator) has exactly one product for each bought order's ticket, none for a waiting one, and
 *   never two for any ticket.
 *
 * Tickets sent but not answered (cut at the phase's end) may or may not have become orders: they are counted, not held
 * against the run.
 */
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import type { RoundRobinClient } from '../../test/topology/round-robin.js';
import { AUTO_APPROVED_SIZE, listAllOrders, type ListedOrder } from './orders.js';
import type { LoadOutcome } from './traffic.js';

/** States of an order whose product was bought: the workers follow it from BOUGHT to LIVE. */
const BOUGHT_STATES = new Set(['BOUGHT', 'PROVISIONING', 'LIVE']);
const WAITING = 'AWAITING_APPROVAL';
/** Where a ticket must end; undefined: either (a vote sent whose answer never came). */
type Want = 'bought' | 'waiting' | undefined;
/** How long the workers may take to catch up after the phase. */
export const CATCH_UP_LIMIT_S = 120;
/** Tickets named in a failure line, at most. */
const NAMED = 5;

export interface Checks {
  /** Orders answered 2xx during the phase, and how many of them the API lists. */
  created: number;
  listed: number;
  /** Tickets sent whose answer never came, and how many of them became orders. */
  unanswered: number;
  unansweredListed: number;
  /** Orders that had to be bought (auto-approved, or approved by a vote), and those bought once. */
  toBuy: number;
  boughtOnce: number;
  /** Tickets with more than one product. */
  boughtTwice: number;
  /** Seconds the workers took to bring every order where it belongs (or the limit). */
  catchUpSeconds: number;
  /** What went wrong, a line each; none when the run passes. */
  failures: string[];
}

export async function checkOrders(options: {
  client: RoundRobinClient;
  ops: string;
  /** The vote pool's tickets (all waiting before the phase). */
  poolTickets: readonly string[];
  /** The pool's order ids by ticket. */
  poolOrderIds: ReadonlyMap<string, string>;
  outcome: LoadOutcome;
  productsFor: (ticketId: string) => readonly unknown[];
  log: (line: string) => void;
}): Promise<Checks> {
  const { client, ops, outcome, productsFor, log } = options;
  const expected = expectedEnds(options.poolTickets, options.poolOrderIds, outcome);
  const { byTicket, behind, catchUpSeconds } = await waitForWorkers(client, ops, expected, log);

  const failures: string[] = [];
  const fail = (what: string, tickets: string[]) => {
    if (tickets.length)
      failures.push(
        `${tickets.length} ${what}: ${tickets.slice(0, NAMED).join(', ')}${tickets.length > NAMED ? ', …' : ''}`,
      );
  };
  const created = [...outcome.ticketsCreated.keys()];
  fail(
    'orders answered 2xx are not listed (lost)',
    created.filter((ticketId) => !byTicket.has(ticketId)),
  );
  fail(
    `orders are not where they belong after ${catchUpSeconds} s`,
    behind
      .filter((ticketId) => byTicket.has(ticketId))
      .map((ticketId) => `${ticketId} ${byTicket.get(ticketId)!.state}`),
  );

  const products = new Map(
    [...options.poolTickets, ...outcome.ticketsSent].map((ticketId) => [ticketId, productsFor(ticketId).length]),
  );
  const boughtTwice = [...products].filter(([, count]) => count > 1).map(([ticketId]) => ticketId);
  fail('tickets bought more than once', boughtTwice);
  const toBuy = [...expected].filter(([, want]) => want === 'bought').map(([ticketId]) => ticketId);
  fail(
    'bought orders without exactly one product',
    toBuy.filter((ticketId) => BOUGHT_STATES.has(byTicket.get(ticketId)?.state ?? '') && products.get(ticketId) !== 1),
  );
  fail(
    'waiting orders with a product',
    [...expected]
      .filter(([ticketId, want]) => want === 'waiting' && products.get(ticketId))
      .map(([ticketId]) => ticketId),
  );

  const unanswered = outcome.ticketsSent.filter((ticketId) => !outcome.ticketsAnswered.has(ticketId));
  return {
    created: created.length,
    listed: created.filter((ticketId) => byTicket.has(ticketId)).length,
    unanswered: unanswered.length,
    unansweredListed: unanswered.filter((ticketId) => byTicket.has(ticketId)).length,
    toBuy: toBuy.length,
    boughtOnce: toBuy.filter((ticketId) => products.get(ticketId) === 1).length,
    boughtTwice: boughtTwice.length,
    catchUpSeconds,
    failures,
  };
}

/** Where each ticket must end: the pool's by the votes, the phase's by their size. */
function expectedEnds(
  poolTickets: readonly string[],
  poolOrderIds: ReadonlyMap<string, string>,
  outcome: LoadOutcome,
): Map<string, Want> {
  const approved = new Set(outcome.votesApproved);
  const voteSent = new Set(outcome.votesSent);
  const expected = new Map<string, Want>();
  for (const ticketId of poolTickets) {
    const orderId = poolOrderIds.get(ticketId)!;
    expected.set(ticketId, approved.has(orderId) ? 'bought' : voteSent.has(orderId) ? undefined : 'waiting');
  }
  for (const [ticketId, { size }] of outcome.ticketsCreated)
    expected.set(ticketId, size === AUTO_APPROVED_SIZE ? 'bought' : 'waiting');
  return expected;
}

function settled(order: ListedOrder | undefined, want: Want): boolean {
  return (
    order !== undefined &&
    (want === 'bought'
      ? BOUGHT_STATES.has(order.state)
      : want === 'waiting'
        ? order.state === WAITING
        : BOUGHT_STATES.has(order.state) || order.state === WAITING)
  );
}

/**
 * Lists every order until each is where it belongs, or those not there have ended elsewhere, or the limit passes:
 * the last listing, the tickets still behind and the seconds it took.
 */
async function waitForWorkers(
  client: RoundRobinClient,
  ops: string,
  expected: ReadonlyMap<string, Want>,
  log: (line: string) => void,
): Promise<{ byTicket: Map<string, ListedOrder>; behind: string[]; catchUpSeconds: number }> {
  const started = performance.now();
  let byTicket = new Map<string, ListedOrder>();
  let behind: string[] = [];
  for (;;) {
    byTicket = new Map((await listAllOrders(client, ops)).map((order) => [order.ticketId, order]));
    behind = [...expected].filter(([ticketId, want]) => !settled(byTicket.get(ticketId), want)).map(([id]) => id);
    // an order that ended elsewhere (failed, rejected…) will not come: no use waiting for it
    const ended = behind.filter((ticketId) => FINAL_STATES.has(byTicket.get(ticketId)?.state as OrderState));
    if (behind.length === ended.length) break;
    if (performance.now() - started > CATCH_UP_LIMIT_S * 1000) break;
    log(`waiting for the workers: ${behind.length} orders not yet where they belong`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return { byTicket, behind, catchUpSeconds: Math.round((performance.now() - started) / 100) / 10 };
}
