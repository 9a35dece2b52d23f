/**
 * The budget check and the commitment are one transaction, serialised per team (infra/db/orders/budget-commitments.ts):
 * two approvals committing at once from two connections against the last of a budget — exactly one fits, and the
 * other sees the first's commitment and writes nothing. And the orders approved before the table get their commitment
 * from their records.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'postgres';
import { budgetFit } from '../../domain/approval/index.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import {
  createRepository,
  MIGRATIONS_DIRECTORY,
  runMigrations,
  type CommitDecision,
  type Repository,
} from '../../infra/db/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { recordTeamOrder } from '../helpers/team-orders.js';
import { waitFor } from '../helpers/wait.js';

const postgres = usePostgres(test);

test('two commits at once on one team from two connections: exactly one fits', async (t) => {
  const { sql, url } = await postgres.database();
  const other = pg(url, { max: 1, onnotice: () => undefined });
  t.teardown(() => other.end());
  const [first, second] = [createRepository(sql), createRepository(other)];
  const orders = [await recordTeamOrder(first, 'RACE-A'), await recordTeamOrder(first, 'RACE-B')];
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

test('0021 gives the orders approved before it their commitment, from their records', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const before = (await readdir(MIGRATIONS_DIRECTORY)).filter((name) => name < '0021');
  for (const name of before) await cp(path.join(MIGRATIONS_DIRECTORY, name), path.join(dir, name));
  await runMigrations(sql, { directory: dir });
  const repository = createRepository(sql);
  const seed = async (ticketId: string, moves: OrderState[]) => {
    const workflowId = await recordTeamOrder(repository, ticketId);
    await repository.recordQuote({
      workflowId,
      quoteNumber: 1,
      monthlyRate: '1618.2',
      currency: 'AUD',
      quotedAt: '2026-01-10T00:00:00Z',
    });
    let from: OrderState = 'RECEIVED';
    for (const [index, to] of moves.entries()) {
      const at = `2026-01-10T00:00:0${index}Z`;
      const details = to === 'AWAITING_APPROVAL' ? { tier: 'team' } : {};
      await repository.recordTransition({ workflowId, sequence: index + 1, from, to, actor: 'engine', at, details });
      from = to;
    }
    return workflowId;
  };
  const bought = await seed('OLD-BOUGHT', [
    'LOOKING_UP',
    'VALIDATING',
    'AWAITING_APPROVAL',
    'APPROVED',
    'BUYING',
    'BOUGHT',
  ]);
  await seed('OLD-CANCELLED', ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'CANCELLED']);
  const automatic = await seed('OLD-AUTO', ['LOOKING_UP', 'VALIDATING', 'APPROVED']);

  await cp(
    path.join(MIGRATIONS_DIRECTORY, '0021_budget_commitments.sql'),
    path.join(dir, '0021_budget_commitments.sql'),
  );
  await runMigrations(sql, { directory: dir });
  const rows = await sql<Array<{ workflow_id: string; tier: string | null; rate: string; committed_at: Date }>>`
    SELECT workflow_id, tier, trim_scale(monthly_rate)::text AS rate, committed_at
    FROM budget_commitments ORDER BY workflow_id`;
  t.deepEqual(
    rows.map((row) => [row.workflow_id, row.tier, row.rate, row.committed_at.toISOString()]),
    [
      [automatic, null, '1618.2', '2026-01-10T00:00:02.000Z'],
      [bought, 'team', '1618.2', '2026-01-10T00:00:03.000Z'],
    ],
    'the cancelled order holds nothing; each other its latest approval, at the tier of its round',
  );
});
