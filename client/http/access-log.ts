import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../infra/log.js';

/** What a load balancer and Prometheus call every few seconds: at debug, so they do not fill the log. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One line per answered request: its id, method, route, status, time taken, the order id where the route has one,
 * and who called. The route is the template (`/api/v1/orders/:orderId`), or the path of a request no route matched;
 * never the query string, a header (Authorization, Cookie), a body or a credential. At info in json, where a
 * collector wants every request; at debug in text, where a person at a terminal does not.
 */
export function installAccessLog(app: FastifyInstance, logger: Logger): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? request.url.split('?')[0].slice(0, 200);
    const orderId = (request.params as Record<string, unknown> | undefined)?.['orderId'];
    const quiet = logger.format === 'text' || PROBES.has(route);
    const fields = {
      requestId: request.id,
      method: request.method,
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      orderId: typeof orderId === 'string' ? orderId : undefined,
      caller: request.principal?.id,
    };
    if (quiet) logger.debug(`${request.method} ${route}`, fields);
    else logger.info(`${request.method} ${route}`, fields);
  });
}
