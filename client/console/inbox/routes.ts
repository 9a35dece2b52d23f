/** The console's home, `/`: an approver's inbox, or for anyone else the orders they may see. */
import type { FastifyInstance } from 'fastify';
import { ApiRefusal, failureOf } from '../api.js';
import type { ConsoleKit } from '../kit.js';
import type { ListedOrder } from '../listed-orders.js';
import { inboxView, myOrdersView, type InboxItem } from './view.js';

export function registerInbox(scope: FastifyInstance, kit: ConsoleKit): void {
  scope.get('/', async (request, reply) => {
    const session = await kit.signedIn(request, reply);
    if (!session) return reply;
    const api = kit.api(session.credential);
    const flash = kit.takeFlash(request);
    const inbox = await api.call<{ approvals: InboxItem[] }>('GET', '/api/v1/approvals?limit=200');
    if (inbox.status === 200) {
      return kit.sendPage(reply, request, 200, 'Approvals inbox', inboxView(inbox.body.approvals, kit.now(), flash), {
        liveSrc: '/',
        current: 'inbox',
      });
    }
    // The API refuses the inbox to whoever holds no approver role: they see the orders they may see instead.
    if (inbox.status !== 403) throw new ApiRefusal(failureOf(inbox));
    const mine = await api.expect<{ orders: ListedOrder[] }>('GET', '/api/v1/orders?limit=50');
    return kit.sendPage(reply, request, 200, 'Orders', myOrdersView(session.user, mine.orders, flash), {
      liveSrc: '/',
      current: 'inbox',
    });
  });
}
