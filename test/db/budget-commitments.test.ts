/**
 * The budget check and the commitment are one transaction, serialised per team (infra/db/orders/budget-commitments.ts):
 * two approvals committing at once from two connections against the last of a budget — exactly one fits, and the
 * other sees the first's commitment and writes nothing.
 */
import test from 'ava';
import pg from 'postgres';
import { budgetFit } from '../../domain/approval/index.js';
import { createRepository, type CommitDecision, type Repository } from '../../infra/db/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const postgres = usePostgres(test);

async function recordOrder(repository: Repository, ticketId: string): Promise<string> {
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

test('two commits at once on one team from two connections: exactly one fits', async (t) => {
  const { sql, url } = await postgres.database();
  const other = pg(url, { max: 1, onnotice: () => undefined });
  t.teardown(() => other.end());
  const [first, second] = [createRepository(sql), createRepository(other)];
  const orders = [await recordOrder(first, 'RACE-A'), await recordOrder(first, 'RACE-B')];
  const check = { timeZone: 'UTC', budget: { monthlyNew: 100, runRateCap: null } };
  const commit = (repository: Repository, workflowId: string) =>
    repository.commitBudget(
      { workflowId, environment: 'staging', team: 'net', currency: 'AUD', monthlyRate: 60, tier: 'team', check },
      (standing): CommitDecision => {
        const fit = budgetFit(standing!, 60);
        return { commit: fit.overruns.length === 0, overBudget: fit.overruns.length > 0, fit };
      },
    );

  // Both start while a third holds the team's lock, so neither can read before the other could have: they wait, then
  // run one after the other.
  const holder = pg(url, { max: 1, onnotice: () => undefined });
  t.teardown(() => holder.end());
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holding = holder.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(4302021, hashtext('staging/net'))`;
    locked();
    await held;
  });
  await lockTaken;
  const racing = Promise.all([commit(first, orders[0]), commit(second, orders[1])]);
  // Both wait for the lock before it is let go.
  await waitFor(async () => {
    const [row] = await sql<Array<{ count: number }>>`
      SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    return row.count === 2 ? true : undefined;
  });
  release();
  await holding;
  const decisions = await racing;

  t.deepEqual(decisions.map((decision) => decision.commit).sort(), [false, true]);
  const refused = decisions.find((decision) => !decision.commit)!;
  t.like(refused.fit, { standing: { approvedThisMonth: '60' }, remainingAfter: { monthlyNew: '-20' } });
  const rows = await sql<Array<{ workflow_id: string }>>`SELECT workflow_id FROM budget_commitments`;
  t.is(rows.length, 1, 'one commitment written');
});
