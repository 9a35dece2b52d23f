/**
 * The commitments page, `/commitments`, and its orders as the API's CSV, `/commitments.csv`: for whoever the API lets
 * read commitments (finance, ops, a requester).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mayReadAllCommitments } from '../../orders/index.js';
import { ApiRefusal, failureOf, query, type ApiAnswer } from '../api.js';
import type { ConsoleKit } from '../kit.js';
import { failureNotice, messagePage } from '../notices.js';
import { principalOf } from '../roles.js';
import type { Commitments as CommitmentsAnswer } from '../../http/schemas.js';
import { commitmentsView, pageLink, type CommitmentsFilters } from './view.js';

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
    const ownTeamOnly = !mayReadAllCommitments(principalOf(session.user));
    if (answer.status !== 200) return refused(kit, request, reply, answer, filters, ownTeamOnly);
    const body = commitmentsView({ filters, answer: answer.body, ownTeamOnly });
    return kit.sendPage(reply, request, 200, 'Commitments', body, {
      current: 'commitments',
      liveSrc: pageLink(filters),
    });
  });

  scope.get('/commitments.csv', async (request, reply) => {
    const session = await kit.signedIn(request, reply);
    if (!session) return reply;
    // The CSV holds every order behind the figures (up to the API's 10,000), not a page of them.
    const filters = { ...commitmentsFilters(request.query as Record<string, unknown>), cursor: undefined };
    const answer = await kit
      .api(session.credential)
      .download(`/api/v1/commitments${query({ ...filters, format: 'csv' })}`, 'text/csv');
    const ownTeamOnly = !mayReadAllCommitments(principalOf(session.user));
    if (answer.status !== 200) return refused(kit, request, reply, answer, filters, ownTeamOnly);
    if (answer.disposition) void reply.header('content-disposition', answer.disposition);
    return reply.type('text/csv; charset=utf-8').send(answer.body);
  });
}

/** The API's refusal as a page: 403 for a caller who may not read these, the form with the refusal for a bad filter. */
function refused(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: ApiAnswer,
  filters: CommitmentsFilters,
  ownTeamOnly: boolean,
) {
  const failure = failureOf(answer);
  const extra = { current: 'commitments' as const };
  if (answer.status === 403) {
    const text = `You may not read these commitments: ${failure.message}.`;
    return kit.sendPage(reply, request, 403, 'Commitments', messagePage('Commitments', text, 'forbidden'), extra);
  }
  if (answer.status !== 400) throw new ApiRefusal(failure);
  const error = failureNotice(failure, 'The filter was refused.');
  return kit.sendPage(reply, request, 400, 'Commitments', commitmentsView({ filters, error, ownTeamOnly }), extra);
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
