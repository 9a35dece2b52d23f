/** The ops view, `/ops`, for the ops and admin roles. */
import type { FastifyInstance } from 'fastify';
import type { ApiOrder } from '../../orders/index.js';
import { failureOf, query, type ConsoleApi } from '../api.js';
import type { Html } from '../html.js';
import type { ConsoleKit } from '../kit.js';
import type { ListedOrder } from '../listed-orders.js';
import { failureNotice, messagePage } from '../notices.js';
import type { ProviderPortal } from '../portal.js';
import { isOps } from '../roles.js';
import { needsAttention, type AttentionLimits } from './attention.js';
import { opsView, type OpsFilters } from './view.js';

export function registerOps(
  scope: FastifyInstance,
  kit: ConsoleKit,
  limits: AttentionLimits,
  providerPortal?: ProviderPortal,
): void {
  scope.get('/ops', async (request, reply) => {
    const session = await kit.signedIn(request, reply);
    if (!session) return reply;
    if (!isOps(session.user)) {
      return kit.sendPage(
        reply,
        request,
        403,
        'Ops',
        messagePage('Ops', 'The ops view is for the ops and admin roles.', 'forbidden'),
      );
    }
    const api = kit.api(session.credential);
    const filters = opsFilters(request.query as Record<string, unknown>);
    const { orders, nextCursor, error } = filters.ticket
      ? await orderByTicket(api, filters, filters.ticket)
      : await orderList(api, filters);
    const attention = await needsAttention(api, kit.now, limits);
    const liveSrc = `/ops${query({ ...filters })}`;
    const body = opsView({
      filters,
      orders,
      nextCursor,
      attention,
      now: kit.now(),
      ...limits,
      flash: kit.takeFlash(request),
      ...(error ? { error } : {}),
      ...(providerPortal ? { providerPortal } : {}),
    });
    return kit.sendPage(reply, request, 200, 'Ops', body, { liveSrc, current: 'ops' });
  });
}

interface Listing {
  orders: ListedOrder[];
  nextCursor: string | null;
  error?: Html;
}

/** The filters of the query string that are set. */
function opsFilters(q: Record<string, unknown>): OpsFilters {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
  const filters: OpsFilters = {};
  for (const key of ['status', 'environment', 'requester', 'ticket', 'cursor'] as const) {
    const value = text(q[key]);
    if (value) filters[key] = value;
  }
  return filters;
}

/** The one order a ticket names (when the other filters let it through), as a row of the list. */
async function orderByTicket(api: ConsoleApi, filters: OpsFilters, ticket: string): Promise<Listing> {
  const one = await api.call<ApiOrder>('GET', `/api/v1/orders/${encodeURIComponent(ticket)}`);
  if (one.status === 404) return { orders: [], nextCursor: null };
  if (one.status !== 200) return { orders: [], nextCursor: null, error: failureNotice(failureOf(one)) };
  const found = one.body;
  const row: ListedOrder = {
    ...found,
    lastError: found.lastError ?? null,
    createdAt: found.timeline?.[0]?.at ?? '',
    updatedAt: found.timeline?.at(-1)?.at ?? '',
  };
  const orders = [row].filter(
    (order) =>
      (!filters.status || order.state === filters.status) &&
      (!filters.environment || order.environment === filters.environment),
  );
  return { orders, nextCursor: null };
}

async function orderList(api: ConsoleApi, filters: OpsFilters): Promise<Listing> {
  const listed = await api.call<{ orders: ListedOrder[]; nextCursor: string | null }>(
    'GET',
    `/api/v1/orders${query({ status: filters.status, environment: filters.environment, requester: filters.requester, cursor: filters.cursor, limit: 50 })}`,
  );
  if (listed.status === 200) return { orders: listed.body.orders, nextCursor: listed.body.nextCursor };
  return { orders: [], nextCursor: null, error: failureNotice(failureOf(listed), 'The filter was refused.') };
}
