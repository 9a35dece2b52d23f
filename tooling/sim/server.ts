import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleAdmin } from './admin.js';
import { bearerToken, SIM_ENVIRONMENTS, type SimEnvironment } from './auth.js';
import { handleApiCall } from './endpoints.js';
import type { SimState } from './state.js';
import type { SimEndpoint } from './faults.js';
import { apiError, BodyTooLargeError, readBody, send, type SimResponse } from './http.js';
import { echoedRefusal } from './orders.js';

interface Route {
  endpoint: SimEndpoint;
  method: 'GET' | 'POST';
  productUid?: string;
}

/** Paths of one environment (spec section 4), each under /<environment>. */
const ROUTES: Record<string, Route> = {
  '/oauth2/token': { endpoint: 'token', method: 'POST' },
  '/v3/locations': { endpoint: 'locations', method: 'GET' },
  '/v4/product/mve/images': { endpoint: 'images', method: 'GET' },
  '/v3/product/mve/variants': { endpoint: 'variants', method: 'GET' },
  '/v3/networkdesign/validate': { endpoint: 'validate', method: 'POST' },
  '/v4/networkdesign/buy': { endpoint: 'buy', method: 'POST' },
};
/** The provider's product read, beyond the spec: the follow-up of a bought product. */
const PRODUCT_PATH = /^\/v2\/product\/([^/]+)$/;

function routeOf(path: string): Route | undefined {
  const productUid = PRODUCT_PATH.exec(path)?.[1];
  return productUid === undefined ? ROUTES[path] : { endpoint: 'product', method: 'GET', productUid };
}

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
  const route = routeOf(rest ?? '');
  if (!route) return send(res, noSuchPath(environment, rest));
  if (req.method !== route.method) return send(res, methodNotAllowed(rest, req.method, [route.method]));
  state.calls[route.endpoint] += 1;

  const fault = state.faults.take(route.endpoint);
  if (fault?.kind === 'latency') await sleep(fault.ms);
  if (fault?.kind === 'drop') return void req.socket.destroy();
  if (fault?.kind === 'error') return send(res, apiError(fault.status, 'Simulated server failure'));
  if (fault?.kind === 'rate-limit') {
    return send(res, apiError(429, 'Too many requests', null, { 'retry-after': String(fault.retryAfterSeconds) }));
  }
  if (fault?.kind === 'echo') return send(res, echoedRefusal(body, fault.field));
  if (route.endpoint === 'product' && state.productRead !== 'offered') {
    // An API without the product read: answered as a path it does not have, or a method it does not take there.
    return send(
      res,
      state.productRead === 'not-found' ? noSuchPath(environment, rest) : methodNotAllowed(rest, req.method, []),
    );
  }
  const bearer = bearerToken(req.headers.authorization);
  if (fault?.kind === 'expire-token' && bearer) state.authority.expire(bearer);

  const response: SimResponse = handleApiCall(state, {
    endpoint: route.endpoint,
    environment,
    authorization: req.headers.authorization,
    contentType: req.headers['content-type'],
    body,
    ...(route.productUid === undefined ? {} : { productUid: route.productUid }),
  });
  if (fault?.kind === 'apply-then-drop') return void req.socket.destroy();
  send(res, response);
}

function noSuchPath(environment: SimEnvironment, path: string | undefined): SimResponse {
  return apiError(404, `No such path ${path ?? '/'} in the ${environment} API`);
}

/** 405 with the Allow header it requires (empty when the path takes no method at all). */
function methodNotAllowed(
  path: string | undefined,
  method: string | undefined,
  allowed: readonly string[],
): SimResponse {
  const message =
    allowed.length > 0 ? `${path} accepts ${allowed.join(', ')}, not ${method}` : `${path} does not accept ${method}`;
  return apiError(405, message, null, { allow: allowed.join(', ') });
}

function isEnvironment(value: string | undefined): value is SimEnvironment {
  return (SIM_ENVIRONMENTS as readonly string[]).includes(value ?? '');
}
