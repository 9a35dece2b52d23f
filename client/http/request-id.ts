import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/**
 * A request id as proxies make them (a UUID, a hex or base64 token): nothing that could break a log line, and never
 * the shape of a credential (an API token has `_`, a JWT has `.`), so a caller's token put here is not logged.
 */
const PLAIN_ID = /^[A-Za-z0-9:+/=-]{1,128}$/;

/**
 * The request's id: the one a proxy in front gave it (X-Request-Id), so that its log lines and ours join up, when it is
 * a plain token of at most 128 characters; else a new UUID, unique across servers and restarts.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && PLAIN_ID.test(given) ? given : randomUUID();
}

/** Every answer names its request (X-Request-Id), so a caller reporting a problem can point at its log line. */
export function installRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
  });
}
