/** The commitments page, `/commitments`: for whoever the API lets read commitments (finance, ops, a requester). */
import type { FastifyInstance } from 'fastify';
import { mayReadAllCommitments } from '../../orders/index.js';
import { ApiRefusal, failureOf, query } from '../api.js';
import type { ConsoleKit } from '../kit.js';
import { failureNotice, messagePage } from '../notices.js';
import { principalOf } from '../roles.js';
import { commitmentsView, pageLink, type CommitmentsAnswer, type CommitmentsFilters } from './view.js';

/** Orders behind the figures per page. */
const PAGE_SIZE = 25;

export function registerCommitmentsPage(scope: FastifyInstance, kit: ConsoleKit): void {
  scope.get('/commitments', async (request, reply) => {
    const session = await kit.signedIn(request, reply);
    if (!session) return reply;
    const filters = commitmentsFilters(request.query as Record<string, unknown>);
    const answer = await kit
      .api(session.credential)
      .call<CommitmentsAnswer>('GET', `/api/v1/commitments${query({ ...filters, limit: PAGE_SIZE })}`);
    const extra = { current: 'commitments' as const };
    if (answer.status === 403) {
      const { message } = failureOf(answer);
      return kit.sendPage(
        reply,
        request,
        403,
        'Commitments',
        messagePage('Commitments', `You may not read these commitments: ${message}.`, 'forbidden'),
        extra,
      );
    }
    const ownTeamOnly = !mayReadAllCommitments(principalOf(session.user));
    if (answer.status === 400) {
      const error = failureNotice(failureOf(answer), 'The filter was refused.');
      const body = commitmentsView({ filters, error, ownTeamOnly });
      return kit.sendPage(reply, request, 400, 'Commitments', body, extra);
    }
    if (answer.status !== 200) throw new ApiRefusal(failureOf(answer));
    const body = commitmentsView({ filters, answer: answer.body, ownTeamOnly });
    return kit.sendPage(reply, request, 200, 'Commitments', body, { ...extra, liveSrc: pageLink(filters) });
  });
}

/** The filters of the query string that are set. */
function commitmentsFilters(q: Record<string, unknown>): CommitmentsFilters {
  const filters: CommitmentsFilters = {};
  for (const key of ['environment', 'month', 'team', 'currency', 'cursor'] as const) {
    const value = q[key];
    if (typeof value === 'string' && value.trim() !== '') {
      filters[key] = key === 'currency' ? value.trim().toUpperCase() : value.trim();
    }
  }
  return filters;
}
