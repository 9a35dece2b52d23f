import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  mayReadOrders,
  mayReadPayloads,
  mayResolveBuys,
  maySubmit,
  mayVote,
  orderedOf,
  orderIdOfWorkflow,
  seesAllOrders,
  type Principal,
} from '../../orders/index.js';
import type { ApiContext } from '../context.js';
import { approvalsResponse, errorBody, meResponse } from '../schemas.js';

/** The caller's own views: the orders awaiting their decision, and who they are to this API. */
export function registerApprovalRoutes(app: FastifyInstance, context: ApiContext): void {
  const { service } = context;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/v1/approvals',
    {
      schema: {
        summary: 'Orders awaiting your decision (your approver roles, not your own order, not yet voted), oldest first',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
        response: {
          200: approvalsResponse,
          400: errorBody,
          401: errorBody,
          403: errorBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request) => {
      const waiting = await service.awaitingApproval(request.principal!, request.query.limit);
      return {
        approvals: waiting.map((item) => ({
          orderId: orderIdOfWorkflow(item.order.workflowId),
          ticketId: item.order.ticketId,
          requestedBy: item.order.requestedBy,
          environment: item.order.environment,
          ordered: orderedOf(item.order.request),
          monthlyRate: item.order.quote ? Number(item.order.quote.monthlyRate) : null,
          currency: item.order.quote?.currency ?? null,
          team: item.order.team,
          budget: item.budget,
          tier: item.tier,
          approvalsNeeded: item.approvalsNeeded,
          approvalsGiven: item.approvalsGiven,
          stillNeeded: Math.max(0, item.approvalsNeeded - item.approvalsGiven),
          deadline: item.deadline,
          waitingSince: item.waitingSince,
        })),
      };
    },
  );

  api.get(
    '/api/v1/me',
    {
      schema: {
        summary: 'Who you are to this API, and what you may do',
        response: { 200: meResponse, 401: errorBody, 429: errorBody, 503: errorBody },
      },
    },
    // A promise, as every handler's answer is (time-limits.ts runs each inside its time limit).
    (request) => Promise.resolve(whoIs(request.principal!)),
  );
}

/** The caller as this API knows them, and what the access rules let them do. */
function whoIs(principal: Principal) {
  return {
    id: principal.id,
    qualifiedId: principal.qualifiedId,
    roles: [...principal.roles],
    via: principal.via.kind,
    can: {
      readOrders: mayReadOrders(principal),
      submit: maySubmit(principal),
      approve: mayVote(principal),
      seeAllOrders: seesAllOrders(principal),
      resolveBuys: mayResolveBuys(principal),
      readHistoryPayloads: mayReadPayloads(principal),
    },
  };
}
