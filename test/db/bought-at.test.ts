/**
 * Where an order's term starts (`orders.bought_at`, migrations/0023): its first move to BOUGHT, kept in the statement
 * that records the move, whatever the journal replays or records late, and given by 0023 to the orders bought before
 * it. The commitments read it, and still count an approval in the month of an order whose term ended long before.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { OrderState } from '../../domain/lifecycle/index.js';
import { createRepository, MIGRATIONS_DIRECTORY, runMigrations, type Sql } from '../../infra/db/index.js';
import { seedCommitted } from '../helpers/commitments.js';
import { usePostgres } from '../helpers/postgres.js';
import { recordTeamOrder } from '../helpers/team-orders.js';

const postgres = usePostgres(test);

const BOUGHT_AT = '2026-01-10T00:00:05.000Z';

/** The moves of `path`, event 1 on, a second apart from 00:00:00 on 10 January 2026 (BOUGHT is the fifth). */
function moves(workflowId: string, path: OrderState[]) {
  return path.map((to, index) => ({
    workflowId,
    sequence: index + 1,
    from: index === 0 ? ('RECEIVED' as const) : path[index - 1],
    to,
    actor: 'engine',
    at: `2026-01-10T00:00:0${index + 1}Z`,
  }));
}

const TO_LIVE: OrderState[] = ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT', 'PROVISIONING', 'LIVE'];

async function boughtAt(sql: Sql, workflowId: string): Promise<string | null> {
  const [row] = await sql<Array<{ bought_at: Date | null }>>`
    SELECT bought_at FROM orders WHERE workflow_id = ${workflowId}`;
  return row.bought_at?.toISOString() ?? null;
}

async function firstBought(sql: Sql, workflowId: string): Promise<string | null> {
  const [row] = await sql<Array<{ at: Date | null }>>`
    SELECT min(at) AS at FROM order_events WHERE workflow_id = ${workflowId} AND to_status = 'BOUGHT'`;
  return row.at?.toISOString() ?? null;
}

test('bought_at is the first BOUGHT: set by the move, unchanged by a replay and by PROVISIONING, then LIVE', async (t) => {
  const { sql } = await postgres.database();
  const repository = createRepository(sql);
  const workflowId = await recordTeamOrder(repository, 'KEPT');
  const events = moves(workflowId, TO_LIVE);

  for (const event of events.slice(0, 4)) await repository.recordTransition(event);
  t.is(await boughtAt(sql, workflowId), null, 'not bought yet');
  await repository.recordTransition(events[4]);
  t.is(await boughtAt(sql, workflowId), BOUGHT_AT);

  // The journal replays what it wrote (a retried activity): nothing is inserted again.
  t.deepEqual(await repository.recordTransition(events[4]), { recorded: false });
  t.deepEqual(await repository.recordTransitions(events.slice(0, 5)), Array(5).fill({ recorded: false }));
  for (const event of events.slice(5)) await repository.recordTransition(event);
  t.deepEqual(await repository.recordTransitions(events), Array(7).fill({ recorded: false }));

  t.is((await repository.getOrder(workflowId))!.order.status, 'LIVE');
  t.is(await boughtAt(sql, workflowId), BOUGHT_AT);
  t.is(await boughtAt(sql, workflowId), await firstBought(sql, workflowId));
});

test('bought_at is kept when the moves come in one statement, and when BOUGHT arrives after a newer move', async (t) => {
  const { sql } = await postgres.database();
  const repository = createRepository(sql);
  const together = await recordTeamOrder(repository, 'TOGETHER');
  await repository.recordTransitions(moves(together, TO_LIVE));
  t.is(await boughtAt(sql, together), BOUGHT_AT);

  const late = await recordTeamOrder(repository, 'LATE');
  const events = moves(late, TO_LIVE);
  for (const event of [...events.slice(0, 4), events[5], events[4], events[6]])
    await repository.recordTransition(event);
  t.is((await repository.getOrder(late))!.order.status, 'LIVE', 'the status follows the newest move');
  t.is(await boughtAt(sql, late), BOUGHT_AT);
  t.is(await boughtAt(sql, late), await firstBought(sql, late));
});

test('0023 gives the orders bought before it their first BOUGHT, and the others none', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const before = (await readdir(MIGRATIONS_DIRECTORY)).filter((name) => name < '0023');
  for (const name of before) await cp(path.join(MIGRATIONS_DIRECTORY, name), path.join(dir, name));
  await runMigrations(sql, { directory: dir });
  const repository = createRepository(sql);
  const live = await recordTeamOrder(repository, 'OLD-LIVE');
  await repository.recordTransitions(moves(live, TO_LIVE));
  const approved = await recordTeamOrder(repository, 'OLD-APPROVED');
  await repository.recordTransitions(moves(approved, TO_LIVE.slice(0, 3)));

  await cp(path.join(MIGRATIONS_DIRECTORY, '0023_orders_bought_at.sql'), path.join(dir, '0023_orders_bought_at.sql'));
  await runMigrations(sql, { directory: dir });
  t.is(await boughtAt(sql, live), BOUGHT_AT);
  t.is(await boughtAt(sql, approved), null);

  // And the approved one, bought after it, gets its own.
  const rest = moves(approved, TO_LIVE).slice(3, 5);
  await repository.recordTransitions(rest);
  t.is(await boughtAt(sql, approved), BOUGHT_AT);
});

test('a commitment recorded in the month counts, though its order was bought before any term that may still run', async (t) => {
  const { sql } = await postgres.database();
  const repository = createRepository(sql);
  await seedCommitted(repository, {
    ticketId: 'OUT-OF-ORDER',
    team: 'network',
    monthlyRate: '12.5',
    term: 1,
    path: 'bought',
    approvedAt: '2026-01-10T00:00:00Z',
    boughtAt: '2019-01-10T00:00:00Z',
  });
  const totals = await repository.commitmentTotals({
    environment: 'production',
    month: '2026-01',
    timeZone: 'Australia/Sydney',
    team: 'network',
  });
  t.like(totals.teams[0], { runRate: '0', runningOrders: 0, approvedThisMonth: '12.5', approvedOrders: 1 });
});
