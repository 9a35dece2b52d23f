/** The order page, `/orders/:orderId`, and the forms it posts: decide, cancel, resolve an uncertain buy. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiRefusal } from '../api.js';
import type { ConsoleKit } from '../kit.js';
import { failureNotice } from '../notices.js';
import { cancel, decide, resolveBuy, type OrderAction } from './actions.js';
import { renderOrder } from './render.js';

type OrderRequest = FastifyRequest<{ Params: { orderId: string } }>;

export function registerOrderPage(scope: FastifyInstance, kit: ConsoleKit): void {
  scope.get<{ Params: { orderId: string } }>('/orders/:orderId', async (request, reply) => {
    const session = await kit.signedIn(request, reply);
    if (!session) return reply;
    const { orderId } = request.params;
    return renderOrder(kit, { request, reply, session }, orderId, 200, {}, kit.takeFlashFor(request, orderId));
  });
  const act = (action: OrderAction) => (request: OrderRequest, reply: FastifyReply) =>
    runAction(kit, request, reply, action);
  scope.post<{ Params: { orderId: string } }>('/orders/:orderId/decide', act(decide));
  scope.post<{ Params: { orderId: string } }>('/orders/:orderId/cancel', act(cancel));
  scope.post<{ Params: { orderId: string } }>('/orders/:orderId/resolve-buy', act(resolveBuy));
}

/** Runs an action through the API; on success a flash and a redirect to the order, else the order again with why. */
async function runAction(kit: ConsoleKit, request: OrderRequest, reply: FastifyReply, action: OrderAction) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const form = kit.checkedForm(request, reply, session);
  if (!form) return reply;
  const name = request.params.orderId;
  const outcome = await action(kit.api(session.credential), name, form);
  if ('ok' in outcome) {
    session.flash = { kind: 'ok', text: outcome.ok, ...(outcome.vote ? { vote: outcome.vote } : {}) };
    return kit.redirect(reply, `/orders/${encodeURIComponent(name)}`);
  }
  if (outcome.failure.status === 401) throw new ApiRefusal(outcome.failure);
  return renderOrder(kit, { request, reply, session }, name, outcome.failure.status, {
    error: failureNotice(outcome.failure, 'Nothing was changed.'),
    ...outcome.extras,
  });
}
