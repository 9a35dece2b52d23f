/**
 * Every answer of the load, tallied by route: requests sent, latency (2xx only), answers by status; an answer other
 * than 2xx and 429 is an error, kept with the first body seen for its status.
 */
import type { AutocannonRequest } from '../autocannon.js';
import { percentile } from '../stats.js';

export const ROUTES = [
  'POST /api/v1/orders',
  'GET /api/v1/orders/{orderId}',
  'GET /api/v1/orders',
  'GET /api/v1/approvals',
  'POST /api/v1/orders/{orderId}/approve',
] as const;
export type Route = (typeof ROUTES)[number];

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

/** A request of a connection's loop, with the route its answers are tallied under. */
export type Labelled<Context> = AutocannonRequest<Context> & { route: Route };

/** What one route met: requests sent, the 2xx answers' latencies, answers by status, the first body of each error. */
interface RouteTally {
  sent: number;
  latencies: number[];
  statuses: Record<string, number>;
  samples: Record<string, string>;
}

export const is2xx = (status: number) => status >= 200 && status < 300;

export class RouteTallies {
  readonly #tallies = new Map(
    ROUTES.map((route): [Route, RouteTally] => [route, { sent: 0, latencies: [], statuses: {}, samples: {} }]),
  );

  /** The request, counted under its route when sent, its answers tallied there (after its own `onResponse`). */
  labelled<Context>(
    route: Route,
    request: AutocannonRequest<Context> & Required<Pick<AutocannonRequest<Context>, 'setupRequest'>>,
  ): Labelled<Context> {
    return {
      ...request,
      route,
      setupRequest: (built, context) => {
        const sent = request.setupRequest(built, context);
        if (sent) this.#of(route).sent++;
        return sent;
      },
      onResponse: (status, body, context) => {
        this.#answer(route, status, body);
        request.onResponse?.(status, body, context);
      },
    };
  }

  /** An answer's time, from autocannon's per-response event: kept for 2xx answers only. */
  latency(route: Route, status: number, milliseconds: number): void {
    if (is2xx(status)) this.#of(route).latencies.push(milliseconds);
  }

  /** Each route's figures over a phase of `seconds`. */
  figures(seconds: number): RouteFigures[] {
    return ROUTES.map((route) => routeFigures(route, this.#of(route), seconds));
  }

  #of(route: Route): RouteTally {
    return this.#tallies.get(route)!;
  }

  #answer(route: Route, status: number, body: string): void {
    const entry = this.#of(route);
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    if (!is2xx(status) && status !== 429) entry.samples[status] ??= body.slice(0, 300);
  }
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
