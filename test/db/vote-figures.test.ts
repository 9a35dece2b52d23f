/**
 * The figures shown to an approver, kept with their vote (migrations/0022_vote_figures.sql): written before the vote is
 * recorded, read with it, replaced while no vote is recorded under their key (a vote refused and cast again), and
 * never changed once it is.
 */
import test from 'ava';
import { createRepository, type Repository } from '../../infra/db/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);
let repo: Repository;

test.before(async () => {
  const { sql } = await postgres.database();
  repo = createRepository(sql);
  await repo.addApprover({ id: 'fiona', displayName: 'Fiona Finance', roles: ['finance'] });
  await repo.recordOrderReceived({
    workflowId: 'order-FIG-1',
    ticketId: 'FIG-1',
    environment: 'staging',
    requestedBy: 'rita',
    request: redactOrderRequest({ ticketId: 'FIG-1' }),
    team: 'network',
  });
});

const figures = (remaining: string) => ({
  team: 'network',
  currency: 'AUD',
  remainingAfter: { monthlyNew: remaining },
});
const key = { workflowId: 'order-FIG-1', quoteNumber: 1, approverId: 'fiona' };

test.serial('figures kept before the vote is recorded are read with it, and no longer change', async (t) => {
  t.deepEqual(await repo.recordVoteFigures({ ...key, figures: figures('100') }), { kept: true });
  // The vote was refused and cast again: the figures of the second attempt replace the first's.
  t.deepEqual(await repo.recordVoteFigures({ ...key, figures: figures('90') }), { kept: true });
  await repo.recordApprovalVote({ ...key, decision: 'approve', monthlyRate: '1618.2', currency: 'AUD' });
  t.deepEqual(await repo.recordVoteFigures({ ...key, figures: figures('80') }), { kept: false });
  const [vote] = (await repo.getOrder('order-FIG-1'))!.approvals;
  t.deepEqual(vote.figures, figures('90'));
});

test.serial('a vote without figures reads as null; figures must be an object', async (t) => {
  const other = { ...key, quoteNumber: 2 };
  await repo.recordApprovalVote({ ...other, decision: 'reject', monthlyRate: '1700', currency: 'AUD', reason: 'no' });
  const votes = (await repo.getOrder('order-FIG-1'))!.approvals;
  t.is(votes.find((vote) => vote.quoteNumber === 2)?.figures, null);
  await t.throwsAsync(repo.recordVoteFigures({ ...other, figures: [] as unknown as Record<string, unknown> }));
});
