import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseEnv } from '../../config/env.js';
import { durationSchema } from '../../domain/lifecycle/index.js';
import { withinTime } from '../../infra/within-time.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route known to take long (it reads a whole workflow history): it gets SLOW_ROUTE_FACTOR times the budget. */
    slow?: boolean;
  }
}

export const REQUEST_TIMEOUT_VARIABLE = 'MVE_REQUEST_TIMEOUT';
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** The order history reads and decodes its workflow's whole history: it may take this many times the budget. */
export const SLOW_ROUTE_FACTOR = 4;
/**
 * The share of a request's time its Temporal calls may take: a Temporal that does not answer is then named in the
 * 503 (SERVICE_UNAVAILABLE), rather than the time (TIMEOUT), and no call outlives its request for long. Half, as the
 * Temporal client may overrun a deadline by one of its retry pauses (up to 5 s).
 */
const TEMPORAL_SHARE = 0.5;
const MAX_REQUEST_TIMEOUT_MS = 10 * 60_000;

const schema = z.object({
  [REQUEST_TIMEOUT_VARIABLE]: durationSchema()
    .pipe(z.number().max(MAX_REQUEST_TIMEOUT_MS, 'must be at most 10 minutes'))
    .default(DEFAULT_REQUEST_TIMEOUT_MS),
});

/** How long a request may take (MVE_REQUEST_TIMEOUT, default 15 s): its answer or 503 TIMEOUT, never a hang. */
export function requestTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  return parseEnv(schema, env)[REQUEST_TIMEOUT_VARIABLE];
}

/** A route that did not answer within its time (`limitMs`): 503 TIMEOUT (errors.ts). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(readonly limitMs: number) {
    super(`no answer within ${limitMs} ms`);
  }
}

/**
 * Node's limits on receiving a request, for a budget of `budgetMs`: the whole request, headers and body, must arrive
 * within twice the budget, else Node answers 408 and closes the connection, so a client sending a byte at a time holds
 * no connection for long. Node checks every 2 s. (A body still arriving when the route's own time runs out is
 * answered 503 TIMEOUT before that: `installTimeLimits`.)
 */
export function receiveLimits(budgetMs: number): FastifyHttpOptions<Server> {
  const receiveMs = 2 * budgetMs;
  return {
    requestTimeout: receiveMs,
    http: { headersTimeout: receiveMs, requestTimeout: receiveMs, connectionsCheckingInterval: 2_000 },
  };
}

/** The handlers still running on each server, those answered 503 TIMEOUT included (their answer is dropped). */
const running = new WeakMap<FastifyInstance, Set<Promise<unknown>>>();

const limitOf = (budgetMs: number, config: { slow?: boolean } | undefined) =>
  config?.slow ? SLOW_ROUTE_FACTOR * budgetMs : budgetMs;

/**
 * Gives every route its time (the budget; routes marked `config: { slow: true }` SLOW_ROUTE_FACTOR times it), from the
 * moment its headers are in — its body, the hooks, the handler — else it is answered 503 TIMEOUT; and bounds each
 * handler's Temporal calls by a deadline within that time. Install first, before any hook or route.
 *
 * Fastify's own `handlerTimeout` would do the first, but in fastify 5.12 it stops counting once a request's body has
 * arrived (its timer is cleared on the request's 'close', which Node emits then): every POST would escape it.
 */
/** What bounds a handler's calls to Temporal by a deadline (epoch ms): the order service, or a Temporal client. */
export interface TemporalDeadlines {
  withDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T>;
}

export function installTimeLimits(app: FastifyInstance, budgetMs: number, temporal: TemporalDeadlines): void {
  const handlers = new Set<Promise<unknown>>();
  running.set(app, handlers);
  app.addHook('onRequest', async (request, reply) => {
    const limitMs = limitOf(budgetMs, request.routeOptions.config);
    const timer = setTimeout(() => {
      if (reply.sent) return;
      // An answer already begun cannot be replaced: the connection is closed instead.
      if (reply.raw.headersSent) reply.raw.destroy();
      else void reply.send(new RequestTimeoutError(limitMs));
    }, limitMs);
    // Cleared once the answer has gone, or the client has.
    reply.raw.once('close', () => clearTimeout(timer));
  });
  app.addHook('onRoute', (route) => {
    const limitMs = limitOf(budgetMs, route.config);
    const handler = route.handler;
    // Every route's handler is an async function, so running it inside one changes nothing of how it answers.
    route.handler = function (request, reply) {
      const work = temporal.withDeadline(
        Date.now() + Math.round(TEMPORAL_SHARE * limitMs),
        async () => await handler.call(this, request, reply),
      );
      handlers.add(work);
      const ended = () => handlers.delete(work);
      work.then(ended, ended);
      return work;
    };
  });
}

/**
 * Resolves true once every handler of `app` has ended (false if some still run after `withinMs`): a handler answered
 * TIMEOUT may still be waiting on PostgreSQL or Temporal, whose connections must not be closed under it.
 */
export async function handlersEnded(app: FastifyInstance, withinMs: number): Promise<boolean> {
  const handlers = [...(running.get(app) ?? [])];
  return withinTime(Promise.allSettled(handlers), withinMs).then(
    () => true,
    () => false,
  );
}
