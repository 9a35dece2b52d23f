import { OrderService, type OrderServiceParts } from '../orders/index.js';
import type { Authenticator } from './auth/authenticate.js';

/**
 * What a server is built on, by whoever runs it (`serve`, `dev`, tests): the order service's parts, and what HTTP
 * needs of its own. The routes reach orders only through the service built from it (`orderServiceOf`); the web
 * console, mounted beside the API, is handed the same context.
 */
export interface ApiContext extends OrderServiceParts {
  authenticator: Authenticator;
  /** Origins allowed to call the codec server from a browser (the Temporal Web UI). */
  codecCorsOrigins: readonly string[];
}

const services = new WeakMap<ApiContext, OrderService>();

/**
 * The order service over a context's parts, built once per context on first use: every route group registered on the
 * same context shares it.
 */
export function orderServiceOf(context: ApiContext): OrderService {
  let service = services.get(context);
  if (!service) services.set(context, (service = new OrderService(context)));
  return service;
}
