/**
 * The loops each autocannon connection runs, one per role. Each time a connection starts its loop again it takes the
 * next credential of its role, so every ticket system and approver sends its share; submits and votes come at a set
 * rate (as business brings them, and so that the vote pool, seeded beforehand, lasts): when the rate allows none, the
 * loop starts again.
 */
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import type { LoadPeople } from './people.js';
import { AUTO_APPROVED_SIZE, ONE_APPROVAL_SIZE, orderRequest } from './orders.js';
import { is2xx, type Labelled, type RouteTallies } from './tally.js';
import type { WaitingOrder } from './vote-pool.js';

/** Page size of the lists, as a screen or a sync job asks. */
const PAGE = 20;

/** What the loops are given: who calls, what they start with, and at what rate they write. */
export interface LoopPlan {
  people: LoadPeople;
  /** Each ticket system's tickets before the phase (the vote pool's, all open). */
  ticketsOf: ReadonlyMap<string, readonly string[]>;
  /** The orders the approvers vote on, in turn; at least `voteRate × (seconds + 2)` of them. */
  votePool: WaitingOrder[];
  submitRate: number;
  voteRate: number;
  /** The ticket id of the phase's nth new order. */
  newTicketId: (n: number) => string;
}

/** What the loops record as they go, for the checks after the phase. */
export interface PhaseRecord {
  /** Tickets sent during the phase, and those answered (2xx or not). */
  ticketsSent: string[];
  ticketsAnswered: Set<string>;
  /** Tickets answered 2xx, with the size and who submitted them. */
  ticketsCreated: Map<string, { size: string; by: string }>;
  /** Pool orders a vote was sent for, and those answered 2xx. */
  votesSent: string[];
  votesApproved: string[];
  /** Votes the rate allowed but the pool had no order left for (the pool was too small). */
  votesWithoutOrder: number;
}

export interface TicketContext {
  system?: string;
  /** The order polled first in the loop, and the one submitted. */
  polled?: string;
  ticketId?: string;
  size?: string;
  created?: boolean;
}
export interface ApproverContext {
  approver?: string;
  orderId?: string;
}

/** Writes at `perSecond`, spread over the phase: no burst at the start. */
class RateBudget {
  readonly #started = performance.now();
  #taken = 0;
  constructor(readonly perSecond: number) {}
  take(): boolean {
    if (this.#taken >= Math.floor(((performance.now() - this.#started) / 1000) * this.perSecond)) return false;
    this.#taken++;
    return true;
  }
}

/** An order's state from its answer; undefined when the body is not whole JSON (a chunk split a character). */
const stateOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { state?: string }).state;
  } catch {
    return undefined;
  }
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
/** Turn by turn through `items`. */
const rotation = <T>(items: readonly T[]) => {
  let next = 0;
  return () => items[next++ % items.length];
};
const headersOf =
  (people: LoadPeople) =>
  (name: string, json = false): Record<string, string> => ({
    authorization: `Bearer ${people.tokens[name]}`,
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

/**
 * Poll one of its open orders (one seen in a final state is polled no more, as a ticket system stops once its order
 * is done), list its orders, submit a new order (a new ticket each time, auto-approved and one-approval sizes in turn)
 * and poll it.
 */
export function ticketSystemLoop(
  tallies: RouteTallies,
  plan: LoopPlan,
  record: PhaseRecord,
): Array<Labelled<TicketContext>> {
  const headers = headersOf(plan.people);
  /** Each ticket system's orders, open (polled) and done (polled only when none is open). */
  const books = new Map(
    [...plan.ticketsOf].map(([system, tickets]) => [system, { open: [...tickets], done: [] as string[] }]),
  );
  const submits = new RateBudget(plan.submitRate);
  const nextSystem = rotation(plan.people.ticketSystems);
  return [
    tallies.labelled('GET /api/v1/orders/{orderId}', {
      setupRequest: (request, context) => {
        const system = (context.system = nextSystem());
        const { open, done } = books.get(system)!;
        const ticketId = (context.polled = pick(open.length ? open : done));
        return { ...request, path: `/api/v1/orders/${encodeURIComponent(ticketId)}`, headers: headers(system) };
      },
      onResponse: (status, body, context) => {
        const state = is2xx(status) ? stateOf(body) : undefined;
        if (!state || !FINAL_STATES.has(state as OrderState)) return;
        const { open, done } = books.get(context.system!)!;
        const at = open.indexOf(context.polled!);
        if (at >= 0) done.push(...open.splice(at, 1));
      },
    }),
    tallies.labelled('GET /api/v1/orders', {
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/v1/orders?limit=${PAGE}`,
        headers: headers(context.system!),
      }),
    }),
    tallies.labelled('POST /api/v1/orders', {
      method: 'POST',
      setupRequest: (request, context) => {
        if (!submits.take()) return null;
        const n = record.ticketsSent.length;
        const ticketId = (context.ticketId = plan.newTicketId(n));
        const size = (context.size = n % 2 ? ONE_APPROVAL_SIZE : AUTO_APPROVED_SIZE);
        record.ticketsSent.push(ticketId);
        return {
          ...request,
          path: '/api/v1/orders',
          headers: headers(context.system!, true),
          body: JSON.stringify(orderRequest(ticketId, size)),
        };
      },
      onResponse: (status, _body, context) => {
        record.ticketsAnswered.add(context.ticketId!);
        if (!is2xx(status)) return;
        record.ticketsCreated.set(context.ticketId!, { size: context.size!, by: context.system! });
        books.get(context.system!)!.open.push(context.ticketId!);
        context.created = true;
      },
    }),
    tallies.labelled('GET /api/v1/orders/{orderId}', {
      setupRequest: (request, context) =>
        context.created
          ? {
              ...request,
              path: `/api/v1/orders/${encodeURIComponent(context.ticketId!)}`,
              headers: headers(context.system!),
            }
          : null,
    }),
  ];
}

/**
 * List its inbox, read an order still waiting for a vote, and approve the next order of the vote pool with its quoted
 * price (each vote a different order).
 */
export function approverLoop(
  tallies: RouteTallies,
  plan: LoopPlan,
  record: PhaseRecord,
): Array<Labelled<ApproverContext>> {
  const { votePool } = plan;
  const headers = headersOf(plan.people);
  const votes = new RateBudget(plan.voteRate);
  const nextApprover = rotation(plan.people.approvers);
  /** A pool order no vote was sent for yet (any, once every one has had its vote). */
  const stillWaiting = () => {
    const voted = record.votesSent.length;
    return voted < votePool.length
      ? votePool[voted + Math.floor(Math.random() * (votePool.length - voted))]
      : pick(votePool);
  };
  return [
    tallies.labelled('GET /api/v1/approvals', {
      setupRequest: (request, context) => {
        const approver = (context.approver = nextApprover());
        return { ...request, path: `/api/v1/approvals?limit=${PAGE}`, headers: headers(approver) };
      },
    }),
    tallies.labelled('GET /api/v1/orders/{orderId}', {
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/v1/orders/${encodeURIComponent(stillWaiting().orderId)}`,
        headers: headers(context.approver!),
      }),
    }),
    tallies.labelled('POST /api/v1/orders/{orderId}/approve', {
      method: 'POST',
      setupRequest: (request, context) => {
        if (!votes.take()) return null;
        const order = votePool[record.votesSent.length];
        if (!order) {
          record.votesWithoutOrder++;
          return null;
        }
        record.votesSent.push((context.orderId = order.orderId));
        return {
          ...request,
          path: `/api/v1/orders/${encodeURIComponent(order.orderId)}/approve`,
          headers: headers(context.approver!, true),
          body: JSON.stringify({ monthlyRate: order.monthlyRate, currency: order.currency }),
        };
      },
      onResponse: (status, _body, context) => {
        if (is2xx(status)) record.votesApproved.push(context.orderId!);
      },
    }),
  ];
}
