import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleAdmin } from './admin.js';
import { bearerToken, SIM_ENVIRONMENTS, type SimEnvironment } from './auth.js';
import { handleApiCall } from './endpoints.js';
import type { SimState } from './state.js';
import type { SimEndpoint } from './faults.js';
import { apiError, BodyTooLargeError, readBody, send, type SimResponse } from './http.js';

/** Paths of one environment (spec section 4), each under /<environment>. */
const ROUTES: Record<string, { endpoint: SimEndpoint; method: 'GET' | 'POST' }> = {
  '/oauth2/token': { endpoint: 'token', method: 'POST' },
  '/v3/locations': { endpoint: 'locations', method: 'GET' },
  '/v4/product/mve/images': { endpoint: 'images', method: 'GET' },
  '/v3/product/mve/variants': { endpoint: 'variants', method: 'GET' },
  '/v3/networkdesign/validate': { endpoint: 'validate', method: 'POST' },
  '/v4/networkdesign/buy': { endpoint: 'buy', method: 'POST' },
};

export const ADMIN_PREFIX = '/_sim';

export function createSimServer(state: SimState, log?: (line: string) => void): Server {
  return createServer((req, res) => {
    const started = performance.now();
    res.on('close', () =>
      log?.(
        `${req.method} ${req.url} ${res.headersSent ? res.statusCode : 'dropped'} ${Math.round(performance.now() - started)}ms`,
      ),
    );
    serve(state, req, res).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof BodyTooLargeError) send(res, apiError(413, error.message));
      else send(res, apiError(500, `Simulator failure: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
}

async function serve(state: SimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://sim').pathname;
  const body = await readBody(req);
  if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
    send(res, handleAdmin(state, req.method ?? 'GET', path.slice(ADMIN_PREFIX.length), body));
    return;
  }
  const [, environment, rest] = /^\/([^/]+)(\/.*)?$/.exec(path) ?? [];
  if (!isEnvironment(environment)) {
    send(
      res,
      apiError(404, `No such path ${path}: the API of each environment is under /${SIM_ENVIRONMENTS.join(' or /')}`),
    );
    return;
  }
  const route = ROUTES[rest ?? ''];
  if (!route) {
    send(res, apiError(404, `No such path ${rest ?? '/'} in the ${environment} API`));
    return;
  }
  if (req.method !== route.method) {
    send(res, apiError(405, `${rest} accepts ${route.method}, not ${req.method}`, null, { allow: route.method }));
    return;
  }
  state.calls[route.endpoint] += 1;

  const fault = state.faults.take(route.endpoint);
  if (fault?.kind === 'latency') await sleep(fault.ms);
  if (fault?.kind === 'drop') return void req.socket.destroy();
  if (fault?.kind === 'error') return send(res, apiError(fault.status, 'Simulated server failure'));
  if (fault?.kind === 'rate-limit') {
    return send(res, apiError(429, 'Too many requests', null, { 'retry-after': String(fault.retryAfterSeconds) }));
  }
  const bearer = bearerToken(req.headers.authorization);
  if (fault?.kind === 'expire-token' && bearer) state.authority.expire(bearer);

  const response: SimResponse = handleApiCall(state, {
    endpoint: route.endpoint,
    environment,
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'],
    body,
  });
  if (fault?.kind === 'apply-then-drop') return void req.socket.destroy();
  send(res, response);
}

function isEnvironment(value: string | undefined): value is SimEnvironment {
  return (SIM_ENVIRONMENTS as readonly string[]).includes(value ?? '');
}
