/**
 * The measured phase: autocannon connections, half to each API server, in two roles that loop for `seconds`:
 *
 * - ticket systems: poll one of their open orders (one seen in a final state is polled no more, as a ticket system
 *   stops once its order is done), list their orders, submit a new order (a new ticket each time, auto-approved and
 *   one-approval sizes in turn) and poll it;
 * - approvers: list their inbox, read an order still waiting for a vote, and approve the next order of the vote pool
 *   with its quoted price (each vote a different order).
 *
 * Each time a connection starts its loop again it takes the next credential of its role, so every ticket system and
 * approver sends its share. Each connection sends at most `connectionRate` requests a second (0: as fast as it is
 * answered); submits and votes come at a set rate besides (as business brings them, and so that the vote pool, seeded
 * beforehand, lasts): when the rate allows none, the loop starts again.
 * Every answer is tallied by route: latency (2xx only), status; an answer other than 2xx and 429 is an error, kept with
 * the first body seen for its status. autocannon counts timeouts and connection errors per role.
 */
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import { autocannon, type AutocannonRequest, type AutocannonResult } from '../autocannon.js';
import { percentile } from '../stats.js';
import type { LoadPeople } from './people.js';
import { AUTO_APPROVED_SIZE, ONE_APPROVAL_SIZE, orderRequest } from './orders.js';
import type { WaitingOrder } from './vote-pool.js';

export const ROUTES = [
  'POST /api/v1/orders',
  'GET /api/v1/orders/{orderId}',
  'GET /api/v1/orders',
  'GET /api/v1/approvals',
  'POST /api/v1/orders/{orderId}/approve',
] as const;
export type Route = (typeof ROUTES)[number];

/** An answer later than this is a timeout: an error, as a refused connection is. */
export const REQUEST_TIMEOUT_S = 10;
/** Share of the connections that are ticket systems; the rest are approvers. */
const TICKET_SYSTEM_SHARE = 0.6;
/** Page size of the lists, as a screen or a sync job asks. */
const PAGE = 20;

export interface LoadPlan {
  /** The API servers' base URLs: connection i goes to the (i mod n)th. */
  urls: string[];
  seconds: number;
  connections: number;
  people: LoadPeople;
  /** Each ticket system's tickets before the phase (the vote pool's, all open). */
  ticketsOf: ReadonlyMap<string, readonly string[]>;
  /** The orders the approvers vote on, in turn; at least `voteRate × (seconds + 2)` of them. */
  votePool: WaitingOrder[];
  submitRate: number;
  voteRate: number;
  /** Requests a second each connection sends at most (a client polling every 1/n s); 0: as fast as it is answered. */
  connectionRate: number;
  /** The ticket id of the phase's nth new order. */
  newTicketId: (n: number) => string;
}

export interface RouteFigures {
  route: Route;
  /** Answers received. */
  requests: number;
  /** Requests sent that were not answered: still in flight when the phase ended (or timed out, or failed). */
  unanswered: number;
  perSecond: number;
  /** Latency of the 2xx answers, ms; null without any. */
  p50Ms: number | null;
  p99Ms: number | null;
  ok: number;
  /** 429 RATE_LIMITED: documented, not an error. */
  rateLimited: number;
  /** Other answers, by status: errors. */
  errors: Record<string, number>;
  /** The first body of each error status. */
  errorSamples: Record<string, string>;
}

export interface RoleFigures {
  role: 'ticket systems' | 'approvers';
  connections: number;
  credentials: number;
  timeouts: number;
  connectionErrors: number;
}

export interface LoadOutcome {
  /** Seconds the phase ran (autocannon's own measure, the longer role). */
  seconds: number;
  routes: RouteFigures[];
  roles: RoleFigures[];
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

type Labelled<Context> = AutocannonRequest<Context> & { route: Route };
/** What one route met: requests sent, the 2xx answers' latencies, answers by status, the first body of each error. */
interface RouteTally {
  sent: number;
  latencies: number[];
  statuses: Record<string, number>;
  samples: Record<string, string>;
}
interface TicketContext {
  system?: string;
  /** The order polled first in the loop, and the one submitted. */
  polled?: string;
  ticketId?: string;
  size?: string;
  created?: boolean;
}
interface ApproverContext {
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

const is2xx = (status: number) => status >= 200 && status < 300;
/** An order's state from its answer; undefined when the body is not whole JSON (a chunk split a character). */
const stateOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { state?: string }).state;
  } catch {
    return undefined;
  }
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
/** Turn by turn through `items`. */
const rotation = <T>(items: readonly T[]) => {
  let next = 0;
  return () => items[next++ % items.length]!;
};

export async function runLoad(plan: LoadPlan): Promise<LoadOutcome> {
  const { people, votePool } = plan;
  const tallies = new Map(
    ROUTES.map((route): [Route, RouteTally] => [route, { sent: 0, latencies: [], statuses: {}, samples: {} }]),
  );
  const tally = (route: Route, status: number, body: string) => {
    const entry = tallies.get(route)!;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    if (!is2xx(status) && status !== 429) entry.samples[status] ??= body.slice(0, 300);
  };
  /** The request, counted under its route when sent, its answers tallied there (after its own `onResponse`). */
  const labelled = <Context>(
    route: Route,
    request: AutocannonRequest<Context> & Required<Pick<AutocannonRequest<Context>, 'setupRequest'>>,
  ): Labelled<Context> => ({
    ...request,
    route,
    setupRequest: (built, context) => {
      const sent = request.setupRequest(built, context);
      if (sent) tallies.get(route)!.sent++;
      return sent;
    },
    onResponse: (status, body, context) => {
      tally(route, status, body);
      request.onResponse?.(status, body, context);
    },
  });
  const headers = (name: string, json = false): Record<string, string> => ({
    authorization: `Bearer ${people.tokens[name]}`,
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

  const outcome: Omit<LoadOutcome, 'seconds' | 'routes' | 'roles'> = {
    ticketsSent: [],
    ticketsAnswered: new Set(),
    ticketsCreated: new Map(),
    votesSent: [],
    votesApproved: [],
    votesWithoutOrder: 0,
  };
  /** Each ticket system's orders, open (polled) and done (polled only when none is open). */
  const books = new Map(
    [...plan.ticketsOf].map(([system, tickets]) => [system, { open: [...tickets], done: [] as string[] }]),
  );
  const submits = new RateBudget(plan.submitRate);
  const votes = new RateBudget(plan.voteRate);
  const nextSystem = rotation(people.ticketSystems);
  const nextApprover = rotation(people.approvers);
  /** A pool order no vote was sent for yet (any, once every one has had its vote). */
  const stillWaiting = () => {
    const voted = outcome.votesSent.length;
    return voted < votePool.length
      ? votePool[voted + Math.floor(Math.random() * (votePool.length - voted))]!
      : pick(votePool);
  };

  const ticketSystemLoop: Array<Labelled<TicketContext>> = [
    labelled('GET /api/v1/orders/{orderId}', {
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
    labelled('GET /api/v1/orders', {
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/v1/orders?limit=${PAGE}`,
        headers: headers(context.system!),
      }),
    }),
    labelled('POST /api/v1/orders', {
      method: 'POST',
      setupRequest: (request, context) => {
        if (!submits.take()) return null;
        const n = outcome.ticketsSent.length;
        const ticketId = (context.ticketId = plan.newTicketId(n));
        const size = (context.size = n % 2 ? ONE_APPROVAL_SIZE : AUTO_APPROVED_SIZE);
        outcome.ticketsSent.push(ticketId);
        return {
          ...request,
          path: '/api/v1/orders',
          headers: headers(context.system!, true),
          body: JSON.stringify(orderRequest(ticketId, size)),
        };
      },
      onResponse: (status, _body, context) => {
        outcome.ticketsAnswered.add(context.ticketId!);
        if (!is2xx(status)) return;
        outcome.ticketsCreated.set(context.ticketId!, { size: context.size!, by: context.system! });
        books.get(context.system!)!.open.push(context.ticketId!);
        context.created = true;
      },
    }),
    labelled('GET /api/v1/orders/{orderId}', {
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

  const approverLoop: Array<Labelled<ApproverContext>> = [
    labelled('GET /api/v1/approvals', {
      setupRequest: (request, context) => {
        const approver = (context.approver = nextApprover());
        return { ...request, path: `/api/v1/approvals?limit=${PAGE}`, headers: headers(approver) };
      },
    }),
    labelled('GET /api/v1/orders/{orderId}', {
      setupRequest: (request, context) => ({
        ...request,
        path: `/api/v1/orders/${encodeURIComponent(stillWaiting().orderId)}`,
        headers: headers(context.approver!),
      }),
    }),
    labelled('POST /api/v1/orders/{orderId}/approve', {
      method: 'POST',
      setupRequest: (request, context) => {
        if (!votes.take()) return null;
        const order = votePool[outcome.votesSent.length];
        if (!order) {
          outcome.votesWithoutOrder++;
          return null;
        }
        outcome.votesSent.push((context.orderId = order.orderId));
        return {
          ...request,
          path: `/api/v1/orders/${encodeURIComponent(order.orderId)}/approve`,
          headers: headers(context.approver!, true),
          body: JSON.stringify({ monthlyRate: order.monthlyRate, currency: order.currency }),
        };
      },
      onResponse: (status, _body, context) => {
        if (is2xx(status)) outcome.votesApproved.push(context.orderId!);
      },
    }),
  ];

  const run = <Context>(connections: number, requests: Array<Labelled<Context>>) => {
    const running = autocannon<Context>({
      url: plan.urls,
      connections,
      duration: plan.seconds,
      timeout: REQUEST_TIMEOUT_S,
      requests,
      ...(plan.connectionRate ? { connectionRate: plan.connectionRate } : {}),
    });
    running.on('response', (client, status, _bytes, milliseconds) => {
      const { route } = client.requestIterator.currentRequest as Labelled<Context>;
      if (is2xx(status)) tallies.get(route)!.latencies.push(milliseconds);
    });
    return running;
  };
  // Even, so that each role has as many connections on each server.
  const ticketConnections = 2 * Math.round((plan.connections * TICKET_SYSTEM_SHARE) / 2);
  const approverConnections = plan.connections - ticketConnections;
  const [tickets, approvals] = await Promise.all([
    run(ticketConnections, ticketSystemLoop),
    run(approverConnections, approverLoop),
  ]);
  const seconds = Math.max(tickets.duration, approvals.duration);

  const role = (
    name: RoleFigures['role'],
    connections: number,
    credentials: number,
    result: AutocannonResult,
  ): RoleFigures => ({
    role: name,
    connections,
    credentials,
    timeouts: result.timeouts,
    connectionErrors: result.errors - result.timeouts,
  });
  return {
    ...outcome,
    seconds,
    routes: ROUTES.map((route) => routeFigures(route, tallies.get(route)!, seconds)),
    roles: [
      role('ticket systems', ticketConnections, people.ticketSystems.length, tickets),
      role('approvers', approverConnections, people.approvers.length, approvals),
    ],
  };
}

function routeFigures(route: Route, tally: RouteTally, seconds: number): RouteFigures {
  const count = (keep: (status: number) => boolean) =>
    Object.entries(tally.statuses)
      .filter(([status]) => keep(Number(status)))
      .reduce((sum, [, n]) => sum + n, 0);
  const latencies = [...tally.latencies].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const requests = count(() => true);
  return {
    route,
    requests,
    unanswered: tally.sent - requests,
    perSecond: Math.round((requests / seconds) * 10) / 10,
    p50Ms: latencies.length ? round(percentile(latencies, 50)) : null,
    p99Ms: latencies.length ? round(percentile(latencies, 99)) : null,
    ok: count(is2xx),
    rateLimited: count((status) => status === 429),
    errors: Object.fromEntries(
      Object.entries(tally.statuses).filter(([status]) => !is2xx(Number(status)) && Number(status) !== 429),
    ),
    errorSamples: tally.samples,
  };
}
