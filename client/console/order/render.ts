import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiOrder } from '../../orders/index.js';
import { ApiRefusal, failureOf } from '../api.js';
import type { ConsoleKit, SignedInSession } from '../kit.js';
import { flashNotice, messagePage } from '../notices.js';
import { isOps } from '../roles.js';
import type { Flash } from '../sessions.js';
import { voteNotice } from './actions.js';
import type { OrderHistory, OrderPageExtras } from './page-data.js';
import { orderView } from './view.js';

/**
 * Answers with the order page of the order `name` names, as the API shows it to this person (else 404), with the
 * session's `flash` when there is one: a vote's tells what became of the vote from the order as it is now.
 */
export async function renderOrder(
  kit: ConsoleKit,
  page: { request: FastifyRequest; reply: FastifyReply; session: SignedInSession },
  name: string,
  status: number,
  extras: OrderPageExtras,
  flash?: Flash,
) {
  const { request, reply, session } = page;
  const api = kit.api(session.credential);
  const answer = await api.call<ApiOrder>('GET', `/api/v1/orders/${encodeURIComponent(name)}`);
  if (answer.status === 404) {
    return kit.sendPage(
      reply,
      request,
      404,
      'No such order',
      messagePage('No such order', `There is no order ${name}, or it is not yours to see.`, 'not-found'),
    );
  }
  if (answer.status !== 200) throw new ApiRefusal(failureOf(answer));
  const order = answer.body;
  // Ops and admins also see the workflow's history events (decoded, secrets redacted by the API).
  const history = await api.call<OrderHistory>(
    'GET',
    `/api/v1/orders/${encodeURIComponent(order.orderId)}/history${isOps(session.user) ? '' : '?events=false'}`,
  );
  const body = orderView(
    {
      order,
      history: history.status === 200 ? history.body : null,
      user: session.user,
      session,
      now: kit.now(),
      ...(kit.providerPortal ? { providerPortal: kit.providerPortal } : {}),
    },
    flash ? { ...extras, flash: flashOf(flash, order) } : extras,
  );
  return kit.sendPage(reply, request, status, `Order ${order.ticketId}`, body, {
    liveSrc: `/orders/${encodeURIComponent(order.orderId)}`,
  });
}

/** The flash on the order page: a vote's on this order is a live region, told from the order as it is. */
function flashOf(flash: Flash, order: ApiOrder) {
  return flash.vote && flash.vote.orderId === order.orderId
    ? flashNotice(voteNotice(flash.vote, order), 'flash')
    : flashNotice(flash);
}
