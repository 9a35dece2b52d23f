import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  EnvironmentNotServedError,
  OrderRequestError,
  TicketConflictError,
  orderIdOfWorkflow,
} from '../../orders/index.js';
import { CANCELLABLE_STATES } from '../../../domain/lifecycle/index.js';
import { findPerson, formatQuote, notDecidable, quotedName, quoteRefusal } from '../../../domain/approval/index.js';
import {
  allow,
  mayCancel,
  mayReadOrders,
  mayResolveBuys,
  maySubmit,
  mayVote,
  READ_NEEDS_ROLE,
  seesAllOrders,
  VOTE_NEEDS_ROLE,
} from '../access.js';
import { hasRole, sameIdentity, type Principal } from '../auth/principal.js';
import { loadOrder, type ApiContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { ApiError } from '../errors.js';
import { orderHistory } from '../history.js';
import { orderSummary, type ApiOrder } from '../order-view.js';
import { actionGate } from '../action-outcome.js';
import { asApiRefusal } from '../refusals.js';
import {
  approveBody,
  cancelBody,
  errorBody,
  historyQuery,
  historyResponse,
  listOrdersQuery,
  listOrdersResponse,
  orderBody,
  rejectBody,
  resolveBuyBody,
  stateResponse,
  submitResponse,
  orderParams,
  voteResponse,
} from '../schemas.js';

const refusals = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
  503: errorBody,
};

/** Orders: intake, reading, and the signed human actions (approve, reject, cancel, resolve-buy). */
export function registerOrderRoutes(app: FastifyInstance, context: ApiContext): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/v1/orders',
    {
      schema: {
        summary: 'Submit an order: one ticket is one order, forever',
        description:
          'The body is an order request (docs/order-request.md). A requester submits for themselves; a ticket system names the requester in `requestedBy`. ' +
          'The same ticket with the same body answers the existing order (200); a different body is refused (409).',
        body: z.record(z.string(), z.unknown()).describe('the order request'),
        response: { 200: submitResponse, 201: submitResponse, ...refusals },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      allow(maySubmit(principal), 'submitting orders needs the requester or ticket-system role');
      const requestedBy = await requesterFor(context, principal, request.body['requestedBy']);
      try {
        const result = await context.intake.submit({ ...request.body, requestedBy }, principal.qualifiedId);
        const order = result.created
          ? {
              orderId: result.orderId,
              ticketId: result.ticket.ticketId,
              workflowId: result.ticket.workflowId,
              environment: result.ticket.environment,
              requestedBy,
              submittedBy: principal.qualifiedId,
              state: 'RECEIVED' as const,
              policy: null,
              quote: null,
              source: 'workflow' as const,
            }
          : await loadOrder(context, result.orderId, principal);
        const warnings = result.warnings.map(({ path, message }) => ({ path, message }));
        return reply
          .code(result.created ? 201 : 200)
          .header('location', `/api/v1/orders/${encodeURIComponent(result.orderId)}`)
          .send({ created: result.created, order, warnings });
      } catch (error) {
        if (error instanceof OrderRequestError) {
          const details = error.issues.map(({ path, message }) => ({ path, message }));
          throw new ApiError(
            400,
            'INVALID_REQUEST',
            `the order request is invalid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
            details,
          );
        }
        if (error instanceof TicketConflictError) throw new ApiError(409, 'TICKET_CONFLICT', error.message);
        if (error instanceof EnvironmentNotServedError)
          throw new ApiError(422, 'ENVIRONMENT_NOT_SERVED', error.message, [
            { path: 'environment', message: `must be one of ${error.served.join(', ')} here` },
          ]);
        throw error;
      }
    },
  );

  api.get(
    '/api/v1/orders',
    {
      schema: {
        summary: 'List orders, newest first (filters: status, environment, requester; cursor paging)',
        querystring: listOrdersQuery,
        response: { 200: listOrdersResponse, ...refusals },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { status, environment, requester, limit, cursor } = request.query;
      const scope = scopeOf(principal, requester);
      const rows = await context.repository.listOrders({
        ...(status ? { status } : {}),
        ...(environment ? { environment } : {}),
        ...scope,
        ...(cursor ? { after: decodeCursor(cursor) } : {}),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        orders: page.map(orderSummary),
        nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
      };
    },
  );

  api.get(
    '/api/v1/orders/:orderId',
    {
      schema: {
        summary: 'One order: state, quote, approvals, policy, product, last error, timeline',
        params: orderParams,
        response: { 200: orderBody, ...refusals },
      },
    },
    async (request) => loadOrder(context, request.params.orderId, request.principal!),
  );

  api.get(
    '/api/v1/orders/:orderId/history',
    {
      schema: {
        summary:
          "The order's timeline and its workflow's history events (payloads decoded, secrets redacted, for ops and admins)",
        params: orderParams,
        querystring: historyQuery,
        response: { 200: historyResponse, ...refusals },
      },
      // It reads and decodes the workflow's whole history: it gets longer than other routes before 503 TIMEOUT.
      config: { slow: true },
    },
    async (request) => {
      const order = await loadOrder(context, request.params.orderId, request.principal!);
      return orderHistory(context, order, request.principal!, request.query.events === 'true');
    },
  );

  api.post(
    '/api/v1/orders/:orderId/approve',
    {
      schema: {
        summary: 'Approve the quote named (the approver is you, as authenticated)',
        params: orderParams,
        body: approveBody,
        response: { 200: voteResponse, ...refusals },
      },
      config: { action: 'approve' },
    },
    async (request) => {
      const { monthlyRate, currency, comment } = request.body;
      const named = { monthlyRate, currency, ...(comment ? { comment } : {}) };
      return vote(context, request.principal!, request.params.orderId, 'approve', named, actionGate(request));
    },
  );

  api.post(
    '/api/v1/orders/:orderId/reject',
    {
      schema: {
        summary: 'Reject the quote named, saying why',
        params: orderParams,
        body: rejectBody,
        response: { 200: voteResponse, ...refusals },
      },
      config: { action: 'reject' },
    },
    async (request) => {
      const { monthlyRate, currency, reason } = request.body;
      const named = { monthlyRate, currency, comment: reason };
      return vote(context, request.principal!, request.params.orderId, 'reject', named, actionGate(request));
    },
  );

  api.post(
    '/api/v1/orders/:orderId/cancel',
    {
      schema: {
        summary: 'Cancel an order that is not yet buying',
        params: orderParams,
        body: cancelBody,
        response: { 200: stateResponse, ...refusals },
      },
      config: { action: 'cancel' },
    },
    async (request) => {
      const principal = request.principal!;
      const sending = actionGate(request);
      let order = await loadOrder(context, request.params.orderId, principal, 'act');
      allow(
        mayCancel(principal, order),
        'cancelling needs the ops or admin role, or your own order (requester) or submission (ticket system)',
      );
      if (order.waitingForWorkerSince) {
        if (await cancelUnstarted(context, order, principal.id, request.body.reason, sending))
          return { state: 'CANCELLED' as const };
        // A worker started it meanwhile: it is cancelled through its workflow, as any other.
        order = await loadOrder(context, order.orderId, principal, 'act');
      }
      if (order.state === 'CANCELLED') return alreadyCancelled(order, principal);
      // An order that has ended (or that Temporal has forgotten) or has started buying is refused here, with the
      // workflow's own code: a closed workflow would answer "not found", which is no reason to give the caller.
      if (order.source === 'records' || !CANCELLABLE_STATES.has(order.state)) {
        throw new ApiError(
          409,
          'NOT_CANCELLABLE',
          `the order is ${order.state}; it can be cancelled only before buying`,
        );
      }
      const state = await asApiRefusal(() =>
        context.orders.cancel(order.orderId, { actor: principal.id, reason: request.body.reason }, sending),
      );
      return { state };
    },
  );

  api.post(
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
        response: { 200: stateResponse, ...refusals },
      },
      config: { action: 'resolve-buy' },
    },
    async (request) => {
      const principal = request.principal!;
      const sending = actionGate(request);
      allow(mayResolveBuys(principal), 'resolving an uncertain buy needs the ops or admin role');
      const order = await loadOrder(context, request.params.orderId, principal, 'act');
      if (order.state !== 'BUY_UNCERTAIN') throw new ApiError(409, 'NOT_UNCERTAIN', notUncertain(order));
      if (request.body.outcome === 'created') {
        // A product is one order's: settling this order with another's product would leave this buy unaccounted for.
        const owner = await context.repository.orderOfProduct(request.body.technicalServiceUid);
        if (owner && owner.workflowId !== order.workflowId)
          throw new ApiError(
            409,
            'PRODUCT_TAKEN',
            `technicalServiceUid: ${request.body.technicalServiceUid} is the product of order ${orderIdOfWorkflow(owner.workflowId)}; a product belongs to one order (check the provider's portal for the product this buy created)`,
          );
      }
      const attempt = order.buyAttempts;
      const state = await asApiRefusal(() =>
        context.orders.resolveBuy(
          order.orderId,
          { ...request.body, actor: principal.id, ...(attempt !== undefined ? { attempt } : {}) },
          sending,
        ),
      );
      return { state };
    },
  );
}

/**
 * Cancels an order no worker has started: recorded CANCELLED and its ticket closed to every run in one step, then its
 * workflow ended so that no worker picks it up later (one that does is refused by the ticket). False: a worker
 * claimed it meanwhile.
 */
async function cancelUnstarted(
  context: ApiContext,
  order: ApiOrder,
  actor: string,
  reason: string,
  sending: () => void,
): Promise<boolean> {
  sending();
  const { cancelled } = await context.repository.cancelUnstartedOrder({ workflowId: order.workflowId, actor, reason });
  if (!cancelled) return false;
  await context.temporal.workflow
    .getHandle(order.workflowId)
    .terminate(`cancelled by ${actor} before a worker started it`)
    .catch((error: unknown) =>
      context.log(`${order.orderId}: cancelled, but its workflow could not be ended (${(error as Error).message})`),
    );
  return true;
}

/** A vote by the caller on the quote they name; a price that moved since they looked is refused with the new one. */
async function vote(
  context: ApiContext,
  principal: Principal,
  name: string,
  decision: 'approve' | 'reject',
  named: { monthlyRate: number; currency: string; comment?: string },
  sending: () => void,
) {
  allow(mayVote(principal), VOTE_NEEDS_ROLE);
  const order = await loadOrder(context, name, principal, 'act');
  if (order.waitingForWorkerSince)
    throw new ApiError(
      409,
      'NOT_STARTED',
      `no worker has started this order yet (waiting since ${order.waitingForWorkerSince}); it has no quote to decide on`,
    );
  const repeat = repeatedVote(order, principal, decision, named);
  if (repeat) return repeat;
  if (order.source === 'records')
    throw new ApiError(409, 'ORDER_CLOSED', `the order has ended (${order.state}); it takes no more decisions`);
  // The workflow's own rules, asked before the update is sent: a refusal here names the field the caller got wrong.
  const refusal = notDecidable(order.state) ?? quoteRefusal(named, order.quote!);
  if (refusal) {
    const details =
      refusal.code === 'QUOTE_NOT_CURRENT'
        ? [{ path: 'monthlyRate', message: `the current quote is ${formatQuote(order.quote!)}` }]
        : undefined;
    throw new ApiError(409, refusal.code, refusal.reason, details);
  }
  const approverId = await context.intake.canonicalRequester(principal.id);
  const fields = { approverId, ...named };
  return asApiRefusal(() =>
    decision === 'approve'
      ? context.orders.approve(order.orderId, fields, sending)
      : context.orders.reject(order.orderId, fields, sending),
  );
}

/**
 * The caller's vote of the same decision on the same quote, already counted: a repeat (a retry after a 503 that said
 * it may have taken effect), answered with the round as it stands.
 */
function repeatedVote(
  order: ApiOrder,
  principal: Principal,
  decision: 'approve' | 'reject',
  named: { monthlyRate: number; currency: string },
) {
  const round = order.approval;
  const earlier = round?.votes.find((vote) => sameIdentity(vote.approverId, principal.id));
  if (!round || !earlier || earlier.decision !== decision) return undefined;
  if (earlier.monthlyRate !== named.monthlyRate || earlier.currency !== named.currency) return undefined;
  const rejected = round.votes.some((vote) => vote.decision === 'reject');
  return {
    state: order.state,
    approvedBy: rejected
      ? []
      : round.votes.filter((vote) => vote.decision === 'approve').map((vote) => vote.approverId),
    stillNeeded: round.stillNeeded,
    alreadyDone: `your ${decision === 'approve' ? 'approval' : 'rejection'} of ${formatQuote(named)} was already counted: this repeats a vote that took effect; nothing changed`,
  };
}

/** A cancel of an order already CANCELLED: the caller's own cancel repeated is answered with the state, and says so. */
function alreadyCancelled(order: ApiOrder, principal: Principal) {
  const cancel = order.timeline?.find((entry) => entry.state === 'CANCELLED');
  if (cancel && sameIdentity(cancel.actor, principal.id)) {
    return {
      state: 'CANCELLED' as const,
      alreadyDone: `already cancelled by you at ${cancel.at} (${cancel.reason}): this repeats a cancel that took effect; nothing changed`,
    };
  }
  const by = cancel ? ` by ${cancel.actor} at ${cancel.at}` : '';
  throw new ApiError(409, 'NOT_CANCELLABLE', `the order was already cancelled${by}; nothing changed`);
}

/** Why an order not in BUY_UNCERTAIN takes no resolution, saying how its uncertain buy was settled if it had one. */
function notUncertain(order: ApiOrder): string {
  const timeline = order.timeline ?? [];
  const uncertain = timeline.findLastIndex((entry) => entry.state === 'BUY_UNCERTAIN');
  const settled = uncertain >= 0 ? timeline[uncertain + 1] : undefined;
  const how = settled
    ? `: its uncertain buy was already settled (${settled.state}, by ${settled.actor} at ${settled.at}); nothing changed`
    : '';
  return `the order is ${order.state}; only an order in BUY_UNCERTAIN can be resolved${how}`;
}

/**
 * Who the order is for. A requester orders for themselves (a body naming someone else is refused): they are the
 * requester by authentication. A ticket system names the requester, who must be a person of the directory: the name
 * resolves to the directory's id (ignoring case and width) or the order is refused, before anything is registered.
 */
async function requesterFor(context: ApiContext, principal: Principal, named: unknown): Promise<string> {
  if (hasRole(principal, 'ticket-system')) {
    if (typeof named !== 'string' || named.trim() === '') {
      throw new ApiError(400, 'INVALID_REQUEST', 'requestedBy: a ticket system must name the requester', [
        { path: 'requestedBy', message: 'must name the requester' },
      ]);
    }
    const match = findPerson(await context.repository.listApprovers({ activeOnly: false }), named);
    if (match.ok) return match.person.id;
    const rule = `${match.problem}; a ticket system names the requester by their id in the directory`;
    throw new ApiError(422, 'REQUESTER_UNKNOWN', `requestedBy: ${quotedName(named)} ${rule}`, [
      { path: 'requestedBy', message: rule },
    ]);
  }
  if (named !== undefined && (typeof named !== 'string' || !sameIdentity(named, principal.id))) {
    throw new ApiError(
      403,
      'FORBIDDEN',
      `requestedBy: you submit as ${principal.id}; a requester cannot order in someone else's name`,
      [{ path: 'requestedBy', message: 'must be you (or left out)' }],
    );
  }
  return context.intake.canonicalRequester(principal.id);
}

/** The orders a caller's listing is limited to: a ticket system's by its qualified id, a requester's by their name. */
function scopeOf(principal: Principal, requester: string | undefined): { requestedBy?: string; submittedBy?: string } {
  if (requester !== undefined && requester.trim() === '') {
    const rule = 'must name a requester, not be blank';
    throw new ApiError(400, 'INVALID_INPUT', `the querystring is invalid: querystring.requester: ${rule}`, [
      { path: 'querystring.requester', message: rule },
    ]);
  }
  allow(mayReadOrders(principal), READ_NEEDS_ROLE);
  if (seesAllOrders(principal)) return requester ? { requestedBy: requester } : {};
  if (hasRole(principal, 'ticket-system'))
    return { submittedBy: principal.qualifiedId, ...(requester ? { requestedBy: requester } : {}) };
  if (requester && !sameIdentity(requester, principal.id))
    throw new ApiError(403, 'FORBIDDEN', 'a requester sees only their own orders');
  return { requestedBy: principal.id };
}
