import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { orderSummary, type OrderService } from '../../orders/index.js';
import type { ApiContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import {
  historyQuery,
  historyResponse,
  listOrdersQuery,
  listOrdersResponse,
  orderBody,
  orderParams,
  orderRefusals,
  submitResponse,
} from '../schemas.js';
import { registerOrderActionRoutes } from './order-actions.js';

/** Orders: intake, reading, and the signed human actions (./order-actions.ts). */
export function registerOrderRoutes(app: FastifyInstance, context: ApiContext): void {
  const { service } = context;
  registerIntakeRoute(app, service);
  registerReadRoutes(app, service);
  registerOrderActionRoutes(app, service);
}

function registerIntakeRoute(app: FastifyInstance, service: OrderService): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/orders',
    {
      schema: {
        summary: 'Submit an order: one ticket is one order, forever',
        description:
          'The body is an order request (docs/order-request.md). A requester submits for themselves; a ticket system names the requester in `requestedBy`. ' +
          'The same ticket with the same body answers the existing order (200); a different body is refused (409). ' +
          "When the environment's approval policy lists teams, the order is charged to one: `costCentre`, else the requester's team in the approver directory; an order whose team is unknown is refused (422 TEAM_UNKNOWN, detail on `costCentre`) and nothing is registered.",
        body: z
          .looseObject({
            // Checked by the intake with every other field of the request (docs/order-request.md): described here only.
            costCentre: z
              .unknown()
              .optional()
              .describe(
                "a string: the team (cost centre) the order is charged to, one of the teams of its environment's approval policy; without it, the requester's team in the approver directory",
              ),
          })
          .describe('the order request (docs/order-request.md)'),
        response: { 200: submitResponse, 201: submitResponse, ...orderRefusals },
      },
    },
    async (request, reply) => {
      const { created, orderId, order, warnings } = await service.submit(request.principal!, request.body);
      return reply
        .code(created ? 201 : 200)
        .header('location', `/api/v1/orders/${encodeURIComponent(orderId)}`)
        .send({ created, order, warnings: warnings.map(({ path, message }) => ({ path, message })) });
    },
  );
}

function registerReadRoutes(app: FastifyInstance, service: OrderService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/api/v1/orders',
    {
      schema: {
        summary: 'List orders, newest first (filters: status, environment, requester; cursor paging)',
        querystring: listOrdersQuery,
        response: { 200: listOrdersResponse, ...orderRefusals },
      },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      // Decoded by the service once the caller may list: a caller who may not is refused for that first.
      const after = cursor ? () => decodeCursor(cursor) : undefined;
      // One row more than the page: whether there is a next page.
      const rows = await service.list(request.principal!, filters, { limit: limit + 1, ...(after ? { after } : {}) });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { orders: page.map(orderSummary), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
    },
  );

  api.get(
    '/api/v1/orders/:orderId',
    {
      schema: {
        summary: 'One order: state, quote, approvals, policy, product, last error, timeline',
        params: orderParams,
        response: { 200: orderBody, ...orderRefusals },
      },
    },
    async (request) => service.read(request.principal!, request.params.orderId),
  );

  api.get(
    '/api/v1/orders/:orderId/history',
    {
      schema: {
        summary:
          "The order's timeline and its workflow's history events (payloads decoded, secrets redacted, for ops and admins)",
        params: orderParams,
        querystring: historyQuery,
        response: { 200: historyResponse, ...orderRefusals },
      },
      // It reads and decodes the workflow's whole history: it gets longer than other routes before 503 TIMEOUT.
      config: { slow: true },
    },
    async (request) => service.history(request.principal!, request.params.orderId, request.query.events === 'true'),
  );
}
