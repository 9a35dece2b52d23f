import { cp, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import {
  connectDatabase,
  createRepository,
  loadMigrations,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_DIRECTORY,
  runMigrations,
} from '../../infra/db/index.js';
import { canTransition, ORDER_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

async function copyOfMigrations(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mve-migrations-'));
  await cp(MIGRATIONS_DIRECTORY, dir, { recursive: true });
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const tablesOf = async (sql: ReturnType<typeof connectDatabase>) =>
  (
    await sql<
      Array<{ tablename: string }>
    >`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`
  ).map((r) => r.tablename);

test('migrations apply on an empty database, and a second run is a no-op', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const files = await loadMigrations();

  const first = await runMigrations(sql);
  t.deepEqual(
    first.applied.map((m) => m.name),
    files.map((m) => m.name),
  );
  t.is(first.alreadyApplied, 0);
  const tables = await tablesOf(sql);
  for (const table of ['orders', 'order_events', 'approvals', 'approvers', 'buy_attempts', 'schema_migrations']) {
    t.true(tables.includes(table), `table ${table} exists`);
  }

  const second = await runMigrations(sql);
  t.deepEqual(second, { applied: [], alreadyApplied: files.length });
  const recorded = await sql<Array<{ name: string }>>`SELECT name FROM schema_migrations ORDER BY version`;
  t.deepEqual(
    recorded.map((r) => r.name),
    files.map((m) => m.name),
  );
});

test('two concurrent runners apply each migration exactly once', async (t) => {
  const { url } = await postgres.database({ migrated: false });
  const [holder, a, b] = [connectDatabase(url), connectDatabase(url), connectDatabase(url)];
  t.teardown(() => Promise.all([holder.end(), a.end(), b.end()]).then(() => {}));

  // Hold the runners' lock so that both are surely running, and waiting, at the same time.
  let release!: () => void;
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holding = holder.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await lockTaken;
  const runs = Promise.allSettled([runMigrations(a), runMigrations(b)]);
  try {
    await waitFor(async () => {
      const [{ waiting }] = await holder`
        SELECT count(*)::int AS waiting FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      return waiting === 2;
    });
  } finally {
    release();
    await holding;
  }

  const [runA, runB] = (await runs).map((run) => {
    if (run.status === 'rejected') throw run.reason;
    return run.value;
  });
  const files = await loadMigrations();
  // One runner did all the work; the other waited for the lock and found nothing left to do.
  t.deepEqual([runA.applied.length, runB.applied.length].sort(), [0, files.length]);
  const [{ count }] = await a`SELECT count(*)::int AS count FROM schema_migrations`;
  t.is(count, files.length);
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the runners never both waited for the migration lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a later migration is applied on top of earlier ones', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await runMigrations(sql, { directory: dir });
  await writeFile(path.join(dir, '0900_add_notes.sql'), 'ALTER TABLE orders ADD COLUMN notes text;\n');

  const run = await runMigrations(sql, { directory: dir });
  t.deepEqual(run.applied, [{ version: 900, name: '0900_add_notes.sql' }]);
  const [column] = await sql`
    SELECT 1 FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'notes'`;
  t.truthy(column);
});

test('an applied migration that was edited is refused with a clear error, changing nothing', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await runMigrations(sql, { directory: dir });
  await appendFile(path.join(dir, '0001_orders.sql'), '\nALTER TABLE orders ADD COLUMN sneaky text;\n');
  await writeFile(path.join(dir, '0901_pending.sql'), 'CREATE TABLE pending_one (id int);\n');

  const error = await t.throwsAsync(runMigrations(sql, { directory: dir }), { name: 'MigrationError' });
  t.regex(error.message, /migration 0001_orders\.sql was changed after it was applied/);
  t.regex(error.message, /add a new numbered file/);
  const [pending] = await sql`SELECT to_regclass('pending_one') AS table`;
  t.is(pending.table, null, 'the pending migration was not applied');
});

test('a failing migration names its file and applies nothing of the run', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await writeFile(path.join(dir, '0902_broken.sql'), 'CREATE TABLE fine (id int);\nSELECT * FROM no_such_table;\n');

  const error = await t.throwsAsync(runMigrations(sql, { directory: dir }), { name: 'MigrationError' });
  t.regex(error.message, /migration 0902_broken\.sql failed, nothing was applied: .*no_such_table/);
  t.deepEqual(await tablesOf(sql), []);
});

test('a database migrated by newer code is refused by older code', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await writeFile(path.join(dir, '0903_newer.sql'), 'SELECT 1;\n');
  await runMigrations(sql, { directory: dir });

  const error = await t.throwsAsync(runMigrations(sql), { name: 'MigrationError' });
  t.regex(error.message, /0903_newer\.sql applied but there is no such file/);
});

test('misnamed and duplicate migration files are refused before touching the database', async (t) => {
  const dir = await copyOfMigrations(t);
  await writeFile(path.join(dir, '12_short.sql'), 'SELECT 1;\n');
  await t.throwsAsync(loadMigrations(dir), { message: /12_short\.sql is misnamed/ });
  await rm(path.join(dir, '12_short.sql'));
  await writeFile(path.join(dir, '0001_again.sql'), 'SELECT 1;\n');
  await t.throwsAsync(loadMigrations(dir), { message: /share version 1/ });
});

test('0009 stores the policy of every order recorded before it, once per hash, and orders can then only name stored policies', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await rm(path.join(dir, '0009_approval_policies.sql'));
  await runMigrations(sql, { directory: dir });
  const [a, b] = ['a'.repeat(64), 'b'.repeat(64)];
  const rules = (percent: number) => sql.json({ tiers: [], maxRiseWithoutApproval: { percent } });
  const order = (id: string, hash: string | null, percent: number, at: string) => sql`
    INSERT INTO orders (workflow_id, ticket_id, environment, requested_by, request, policy_version, policy_hash, policy, created_at)
    VALUES (${id}, ${id}, 'staging', 'rita', '{}', ${hash && 'v1'}, ${hash}, ${hash && rules(percent)}, ${at})`;
  await order('o-1', a, 1, '2026-01-01T00:00:00Z');
  await order('o-2', a, 1, '2026-01-02T00:00:00Z');
  await order('o-3', b, 2, '2026-01-03T00:00:00Z');
  await order('o-4', null, 0, '2026-01-04T00:00:00Z');

  await cp(path.join(MIGRATIONS_DIRECTORY, '0009_approval_policies.sql'), path.join(dir, '0009_approval_policies.sql'));
  const run = await runMigrations(sql, { directory: dir });
  t.deepEqual(
    run.applied.map((m) => m.name),
    ['0009_approval_policies.sql'],
  );
  const stored = await sql<
    Array<{ hash: string; policy: unknown; stored_at: Date }>
  >`SELECT hash, policy, stored_at FROM approval_policies ORDER BY hash`;
  t.deepEqual(
    stored.map((row) => [row.hash, row.policy, row.stored_at.toISOString()]),
    [
      [a, { tiers: [], maxRiseWithoutApproval: { percent: 1 } }, '2026-01-01T00:00:00.000Z'],
      [b, { tiers: [], maxRiseWithoutApproval: { percent: 2 } }, '2026-01-03T00:00:00.000Z'],
    ],
  );
  await t.throwsAsync(order('o-5', 'c'.repeat(64), 3, '2026-01-05T00:00:00Z'), {
    message: /violates foreign key constraint "orders_policy_hash_fkey"/,
  });
});

test("0014 puts each ticket in its submitter's namespace and keeps the tickets registered before with their workflows", async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await copyOfMigrations(t);
  await rm(path.join(dir, '0014_ticket_namespaces.sql'));
  await runMigrations(sql, { directory: dir });
  await sql`
    INSERT INTO tickets (ticket_id, workflow_id, environment, requested_by, submitted_by, fingerprint, fingerprint_key_id)
    VALUES ('INC-1', 'mve-order-INC-1', 'staging', 'pat', 'Ticket-Bot', ${'f'.repeat(64)}, 'k1')`;

  await cp(path.join(MIGRATIONS_DIRECTORY, '0014_ticket_namespaces.sql'), path.join(dir, '0014_ticket_namespaces.sql'));
  await runMigrations(sql, { directory: dir });
  const tickets = createRepository(sql);
  const resent = await tickets.registerTicket({
    ticketId: 'INC-1',
    workflowId: 'mve-order-INC-1.new',
    environment: 'staging',
    requestedBy: 'pat',
    submittedBy: 'ticket-bot',
    fingerprint: 'e'.repeat(64),
    fingerprintKeyId: 'k1',
  });
  t.false(resent.registered, 'the same submitter (any spelling) re-sending its ticket finds it');
  t.is(resent.ticket.workflowId, 'mve-order-INC-1', 'under the workflow it was started with');
  const another = await tickets.registerTicket({
    ticketId: 'INC-1',
    workflowId: 'mve-order-INC-1.helpdesk',
    environment: 'staging',
    requestedBy: 'pat',
    submittedBy: 'helpdesk-bot',
    fingerprint: 'e'.repeat(64),
    fingerprintKeyId: 'k1',
  });
  t.true(another.registered, "another submitter's INC-1 is its own ticket");
  t.deepEqual(
    (await tickets.findTickets({ ticketId: 'INC-1', workflowId: 'mve-order-none' })).map((ticket) => ticket.workflowId),
    ['mve-order-INC-1', 'mve-order-INC-1.helpdesk'],
  );
});

test("0018's transition table is the order's (domain/order-states.ts)", async (t) => {
  const { sql } = await postgres.database();
  const rows = await sql<Array<{ from_status: OrderState; to_status: OrderState }>>`
    SELECT from_status, to_status FROM order_transitions`;
  const inDatabase = rows.map((row) => `${row.from_status}->${row.to_status}`).sort();
  const inDomain = ORDER_STATES.flatMap((from) =>
    ORDER_STATES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`),
  ).sort();
  t.deepEqual(inDatabase, inDomain);
});
