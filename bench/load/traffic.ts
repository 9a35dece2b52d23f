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
 * approver sends its share (./loops.ts). Each connection sends at most `connectionRate` requests a second (0: as fast
 * as it is answered); submits and votes come at a set rate besides (as business brings them, and so that the vote
 * pool, seeded beforehand, lasts): when the rate allows none, the loop starts again.
 * Every answer is tallied by route (./tally.ts): latency (2xx only), status; an answer other than 2xx and 429 is an
 * error, kept with the first body seen for its status. autocannon counts timeouts and connection errors per role.
 */
import { autocannon, type AutocannonResult } from '../autocannon.js';
import { approverLoop, ticketSystemLoop, type LoopPlan, type PhaseRecord } from './loops.js';
import { RouteTallies, type Labelled, type RouteFigures } from './tally.js';

/** An answer later than this is a timeout: an error, as a refused connection is. */
export const REQUEST_TIMEOUT_S = 10;
/** Share of the connections that are ticket systems; the rest are approvers. */
const TICKET_SYSTEM_SHARE = 0.6;

export interface LoadPlan extends LoopPlan {
  /** The API servers' base URLs: connection i goes to the (i mod n)th. */
  urls: string[];
  seconds: number;
  connections: number;
  /** Requests a second each connection sends at most (a client polling every 1/n s); 0: as fast as it is answered. */
  connectionRate: number;
}

export interface RoleFigures {
  role: 'ticket systems' | 'approvers';
  connections: number;
  credentials: number;
  timeouts: number;
  connectionErrors: number;
}

export interface LoadOutcome extends PhaseRecord {
  /** Seconds the phase ran (autocannon's own measure, the longer role). */
  seconds: number;
  routes: RouteFigures[];
  roles: RoleFigures[];
}

export async function runLoad(plan: LoadPlan): Promise<LoadOutcome> {
  const tallies = new RouteTallies();
  const record: PhaseRecord = {
    ticketsSent: [],
    ticketsAnswered: new Set(),
    ticketsCreated: new Map(),
    votesSent: [],
    votesApproved: [],
    votesWithoutOrder: 0,
  };
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
      tallies.latency(route, status, milliseconds);
    });
    return running;
  };
  // Even, so that each role has as many connections on each server.
  const ticketConnections = 2 * Math.round((plan.connections * TICKET_SYSTEM_SHARE) / 2);
  const approverConnections = plan.connections - ticketConnections;
  const [tickets, approvals] = await Promise.all([
    run(ticketConnections, ticketSystemLoop(tallies, plan, record)),
    run(approverConnections, approverLoop(tallies, plan, record)),
  ]);
  const seconds = Math.max(tickets.duration, approvals.duration);
  return {
    ...record,
    seconds,
    routes: tallies.figures(seconds),
    roles: [
      roleFigures('ticket systems', ticketConnections, plan.people.ticketSystems.length, tickets),
      roleFigures('approvers', approverConnections, plan.people.approvers.length, approvals),
    ],
  };
}

function roleFigures(
  role: RoleFigures['role'],
  connections: number,
  credentials: number,
  result: AutocannonResult,
): RoleFigures {
  return {
    role,
    connections,
    credentials,
    timeouts: result.timeouts,
    connectionErrors: result.errors - result.timeouts,
  };
}
