import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseEnv } from '../../config/env.js';
import { describeDuration, durationSchema } from '../../domain/lifecycle/index.js';
import { AuthenticationError } from './auth/authentication-error.js';
import { ApiError } from './errors.js';

export const AUTH_FAILURES_VARIABLE = 'MVE_RATE_LIMIT_AUTH_FAILURES';
export const AUTH_WINDOW_VARIABLE = 'MVE_RATE_LIMIT_AUTH_WINDOW';
export const DEFAULT_AUTH_FAILURES = 20;
export const DEFAULT_AUTH_WINDOW_MS = 60_000;
const MAX_AUTH_WINDOW_MS = 24 * 3_600_000;
/** Sources remembered at once: an attacker with many addresses cannot make the server hold more. */
const MAX_SOURCES = 10_000;

export interface AuthFailureLimit {
  /** Failed authentications a source may make in a window before it is refused (0: no limit). */
  failures: number;
  windowMs: number;
}

const schema = z.object({
  [AUTH_FAILURES_VARIABLE]: z.coerce
    .number({ error: 'must be a whole number of failed authentications' })
    .int('must be a whole number of failed authentications')
    .min(0, 'must be 0 (no limit) or more')
    .default(DEFAULT_AUTH_FAILURES),
  [AUTH_WINDOW_VARIABLE]: durationSchema()
    .pipe(z.number().max(MAX_AUTH_WINDOW_MS, 'must be at most 24 hours'))
    .default(DEFAULT_AUTH_WINDOW_MS),
});

/** MVE_RATE_LIMIT_AUTH_FAILURES (default 20; 0: no limit) in MVE_RATE_LIMIT_AUTH_WINDOW (default 1 minute). */
export function authFailureLimitFromEnv(env: NodeJS.ProcessEnv): AuthFailureLimit {
  const parsed = parseEnv(schema, env);
  return { failures: parsed[AUTH_FAILURES_VARIABLE], windowMs: parsed[AUTH_WINDOW_VARIABLE] };
}

/**
 * Failed authentications per source address (the client's address as fastify gives it, `request.ip`, so behind a
 * trusted proxy the address it forwards), in this server's memory. A source that failed `failures` times in a window
 * is refused 429 until the window ends, before its credential is looked up: bad tokens cost one lookup each only up
 * to the limit. Only a credential presented and refused counts: a request with none costs no lookup (a Web UI not
 * signed in sends many). Successes neither count nor reset the count, so a valid token buys an attacker no more tries.
 */
export class FailedAuthentications {
  readonly #sources = new Map<string, { count: number; endsAt: number }>();

  constructor(
    readonly limit: AuthFailureLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The principal `authenticate` finds for the request's `credential`, unless the source is refused first (429); a
   * credential it refuses is counted against the source.
   */
  async authenticate<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    credential: () => Promise<string | undefined>,
    authenticate: (credential: string | undefined) => Promise<T>,
  ): Promise<T> {
    if (this.limit.failures > 0) this.#refuseIfOverLimit(request.ip, reply);
    const presented = await credential();
    try {
      return await authenticate(presented);
    } catch (error) {
      if (error instanceof AuthenticationError && presented !== undefined && this.limit.failures > 0)
        this.#count(request.ip);
      throw error;
    }
  }

  #refuseIfOverLimit(source: string, reply: FastifyReply): void {
    const entry = this.#sources.get(source);
    if (!entry || entry.count < this.limit.failures) return;
    const leftMs = entry.endsAt - this.now();
    if (leftMs <= 0) {
      this.#sources.delete(source);
      return;
    }
    const seconds = Math.ceil(leftMs / 1000);
    void reply.header('retry-after', String(seconds));
    throw new ApiError(
      429,
      'RATE_LIMITED',
      `too many failed authentications from this address: ${this.limit.failures} within ${describeDuration(this.limit.windowMs)}; every request from it is refused for ${seconds} s more, without looking at its credential`,
    );
  }

  #count(source: string): void {
    const now = this.now();
    const entry = this.#sources.get(source);
    if (entry && entry.endsAt > now) {
      entry.count += 1;
      return;
    }
    this.#sources.delete(source);
    this.#makeRoom(now);
    this.#sources.set(source, { count: 1, endsAt: now + this.limit.windowMs });
  }

  /** Forgets the sources whose window has ended, then, if still full, the oldest. */
  #makeRoom(now: number): void {
    if (this.#sources.size < MAX_SOURCES) return;
    for (const [source, entry] of this.#sources) if (entry.endsAt <= now) this.#sources.delete(source);
    const oldest = this.#sources.keys().next();
    if (this.#sources.size >= MAX_SOURCES && !oldest.done) this.#sources.delete(oldest.value);
  }
}
