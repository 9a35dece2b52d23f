/**
 * The bots' calls as real users make them: HTTP through the cluster's round-robin client over the API servers, each
 * patient (another server when one does not answer; the same request again after Retry-After on 503 and 429). The
 * ticket system (`ticket-bot`) submits and reads its tickets, fiona and dave vote, olga (ops) settles uncertain buys.
 */
import type { VoteResult } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import type { Cluster } from '../topology/cluster.js';
import { refusalOf, type Answer } from '../topology/round-robin.js';
import type { OrderDesk } from './bots.js';
import type { SeenStatus } from './orders.js';
import { countOne } from './report.js';

/** How long one patient call may go on before the bots try again at their next turn. */
const PATIENCE_MS = 90_000;

/**
 * @param refusals counts the answers that refused a submit, a vote or a resolution, by status and code
 *   (`409 NOT_AWAITING_APPROVAL`): the order moved on meanwhile, or the engine could not take it now
 */
export function httpDesk(cluster: Cluster, refusals: Record<string, number>): OrderDesk {
  const { http } = cluster;
  const refusal = (answer: Answer) => {
    const { code = '', message = '' } = refusalOf(answer);
    countOne(refusals, `${answer.status} ${code}`.trim());
    return new Error(`${answer.status} ${code} from server ${answer.server}: ${message}`);
  };
  const path = (ticketId: string, action = '') => `/api/v1/orders/${encodeURIComponent(ticketId)}${action}`;
  return {
    async submit(order) {
      const answer = await http.patient('POST', '/api/v1/orders', { as: 'ticket-bot', body: order.body }, PATIENCE_MS);
      if (answer.status !== 201 && answer.status !== 200) throw refusal(answer);
    },
    async status(ticketId) {
      const answer = await http.patient('GET', path(ticketId), { as: 'ticket-bot' }, PATIENCE_MS);
      if (answer.status === 200) return json<SeenStatus>(answer);
      // said in the log, or an order whose reads are refused looks like one that never moves
      const { code = '', message = '' } = refusalOf(answer);
      throw new Error(`reading it: ${answer.status} ${code} from server ${answer.server}: ${message}`);
    },
    async approve(ticketId, approverId, quote) {
      const body = { ...quote, comment: 'chaos bot' };
      const answer = await http.patient('POST', path(ticketId, '/approve'), { as: approverId, body }, PATIENCE_MS);
      if (answer.status === 200) return json<VoteResult>(answer).alreadyDone ? 'already counted' : 'taken';
      // an earlier attempt was counted, and its answer lost (a server killed mid-request)
      if (answer.status === 409 && refusalOf(answer).code === 'ALREADY_VOTED') return 'already counted';
      throw refusal(answer);
    },
    async resolveBuy(ticketId, resolution, status) {
      // the attempt ops checked: sent again after a 503, the resolution cannot settle a later attempt
      const body = { ...resolution, attempt: status.buyAttempts ?? 0 };
      const answer = await http.patient('POST', path(ticketId, '/resolve-buy'), { as: 'olga', body }, PATIENCE_MS);
      if (answer.status !== 200) throw refusal(answer);
    },
    productsFor: (ticketId) => cluster.productsFor(ticketId),
  };
}
