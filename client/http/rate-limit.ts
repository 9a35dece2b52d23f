import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseEnv } from '../../config/env.js';
import { ApiError } from './errors.js';

export const RATE_LIMIT_VARIABLE = 'MVE_RATE_LIMIT';
export const DEFAULT_REQUESTS_PER_MINUTE = 600;

const schema = z.object({
  [RATE_LIMIT_VARIABLE]: z.coerce
    .number({ error: 'must be a whole number of requests a minute' })
    .int('must be a whole number of requests a minute')
    .min(0, 'must be 0 (no limit) or more')
    .default(DEFAULT_REQUESTS_PER_MINUTE),
});

/** Requests a minute each credential may make of /api/ and /codec/ (MVE_RATE_LIMIT, default 600; 0: no limit). */
export function requestsPerMinuteFromEnv(env: NodeJS.ProcessEnv): number {
  return parseEnv(schema, env)[RATE_LIMIT_VARIABLE];
}

/**
 * Each credential gets its own budget of requests a minute on the API and the codec server, so one noisy ticket system
 * is answered 429 with `Retry-After` while approvers and ops go on. The budget is counted after authentication, by who
 * the caller is (an API token's owner, an OIDC person), in this server's memory: behind a load balancer each server
 * counts its own share. Health, readiness, metrics and the console's pages are not counted (the console's calls to the
 * API are, as its user's).
 */
export async function installRateLimit(app: FastifyInstance, requestsPerMinute: number): Promise<void> {
  if (requestsPerMinute === 0) return;
  await app.register(fastifyRateLimit, {
    max: requestsPerMinute,
    timeWindow: 60_000,
    // Asked for every request, counted only for one authenticated (the key is made first, then the list asked).
    keyGenerator: (request) => request.principal?.qualifiedId ?? '',
    allowList: (request) => !request.principal,
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'RATE_LIMITED',
        `too many requests from this credential: at most ${context.max} a minute; try again in ${context.after}`,
      ),
  });
}
