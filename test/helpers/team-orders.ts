import type { Repository } from '../../infra/db/index.js';

/** An order of team `net` received in staging (12 months), as the DB tests of budgets start one; its workflow id. */
export async function recordTeamOrder(repository: Repository, ticketId: string): Promise<string> {
  const workflowId = `mve-order-${ticketId}`;
  await repository.recordOrderReceived({
    workflowId,
    ticketId,
    environment: 'staging',
    requestedBy: 'alice',
    request: { ticketId, term: 12 },
    team: 'net',
  });
  return workflowId;
}
