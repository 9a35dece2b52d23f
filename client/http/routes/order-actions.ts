import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { OrderService } from '../../orders/index.js';
import { actionGate } from '../action-outcome.js';
import {
  approveBody,
  cancelBody,
  orderParams,
  orderRefusals,
  rejectBody,
  resolveBuyBody,
  stateResponse,
  voteResponse,
} from '../schemas.js';

/** The signed human actions on an order: approve, reject, cancel, resolve-buy. */
export function registerOrderActionRoutes(app: FastifyInstance, service: OrderService): void {
  registerVoteRoutes(app, service);
  registerCancelRoute(app, service);
  registerResolveBuyRoute(app, service);
}

function registerVoteRoutes(app: FastifyInstance, service: OrderService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/api/v1/orders/:orderId/approve',
    {
      schema: {
        summary: 'Approve the quote named (the approver is you, as authenticated)',
        params: orderParams,
        body: approveBody,
        response: { 200: voteResponse, ...orderRefusals },
      },
      config: { action: 'approve' },
    },
    async (request) => {
      const { monthlyRate, currency, comment } = request.body;
      const named = { monthlyRate, currency, ...(comment ? { comment } : {}) };
      return service.vote(request.principal!, request.params.orderId, 'approve', named, actionGate(request));
    },
  );

  api.post(
    '/api/v1/orders/:orderId/reject',
    {
      schema: {
        summary: 'Reject the quote named, saying why',
        params: orderParams,
        body: rejectBody,
        response: { 200: voteResponse, ...orderRefusals },
      },
      config: { action: 'reject' },
    },
    async (request) => {
      const { monthlyRate, currency, reason } = request.body;
      const named = { monthlyRate, currency, comment: reason };
      return service.vote(request.principal!, request.params.orderId, 'reject', named, actionGate(request));
    },
  );
}

function registerCancelRoute(app: FastifyInstance, service: OrderService): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/orders/:orderId/cancel',
    {
      schema: {
        summary: 'Cancel an order that is not yet buying',
        params: orderParams,
        body: cancelBody,
        response: { 200: stateResponse, ...orderRefusals },
      },
      config: { action: 'cancel' },
    },
    async (request) =>
      service.cancel(request.principal!, request.params.orderId, request.body.reason, actionGate(request)),
  );
}

function registerResolveBuyRoute(app: FastifyInstance, service: OrderService): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/v1/orders/:orderId/resolve-buy',
    {
      schema: {
        summary: 'Settle a BUY_UNCERTAIN order: created (with the product UID) or not created (with how you know)',
        description:
          "Created is accepted only with a product the provider shows under this order's name, read by the workers first: " +
          '409 PRODUCT_TAKEN (the records give it to another order) or PRODUCT_OF_ANOTHER_ORDER (the provider names it after ' +
          'another order), 422 PRODUCT_NOT_FOUND (the provider does not have it), 503 PRODUCT_NOT_CHECKED (the provider did ' +
          'not answer; Retry-After). A refused resolution leaves the order BUY_UNCERTAIN, with a note naming it.',
        params: orderParams,
        body: resolveBuyBody,
        response: { 200: stateResponse, ...orderRefusals },
      },
      config: { action: 'resolve-buy' },
    },
    async (request) => {
      const sending = actionGate(request);
      return { state: await service.resolveBuy(request.principal!, request.params.orderId, request.body, sending) };
    },
  );
}
