import test from 'ava';
import { runCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

// Serial: each test spawns the real binary several times, and the machine is shared.
// Where a test means "no URL", it blanks DATABASE_URL so none leaks in from the test's own environment.
const noDatabaseUrl = { DATABASE_URL: '' };

test.serial('migrate applies pending migrations, then says the database is up to date', async (t) => {
  const { url } = await postgres.database({ migrated: false });
  const first = await runCli(['migrate', '--database-url', url], { env: noDatabaseUrl });
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /^applied 0001_orders\.sql$/m);
  t.regex(first.stdout, /^applied 0003_buy_attempts\.sql$/m);
  t.notRegex(first.stdout, /mve-orders-dev/, 'the password is not printed');

  const second = await runCli(['migrate'], { env: { DATABASE_URL: url } });
  t.is(second.code, 0, second.stderr);
  t.notRegex(second.stdout, /applied 0/);
  t.regex(second.stdout, /is up to date \(\d+ migrations applied\)/);
});

test.serial('without a database URL, migrate and approvers say how to give one', async (t) => {
  for (const args of [['migrate'], ['approvers', 'list']]) {
    const result = await runCli(args, { env: noDatabaseUrl });
    t.not(result.code, 0);
    t.regex(result.stderr, /no database given: set DATABASE_URL or pass --database-url/);
    t.regex(result.stderr, /mve-orders dev/);
  }
});

test.serial('an unreachable database is one clear line with the password hidden', async (t) => {
  const result = await runCli(['migrate', '--database-url', 'postgres://u:s3cret@127.0.0.1:1/db'], {
    env: noDatabaseUrl,
  });
  t.not(result.code, 0);
  t.regex(result.stderr, /cannot reach PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db: .*ECONNREFUSED/);
  t.notRegex(result.stderr, /s3cret/);
});

test.serial('approvers add, list, update and deactivate, in words and as JSON', async (t) => {
  const { url } = await postgres.database();
  const env = { DATABASE_URL: url };

  const added = await runCli(
    ['approvers', 'add', 'fiona@example.com', '--name', 'Fiona Finance', '--roles', 'finance, cfo'],
    { env },
  );
  t.is(added.code, 0, added.stderr);
  t.is(added.stdout, 'added approver fiona@example.com (Fiona Finance; cfo,finance)\n');
  const again = await runCli(
    ['approvers', 'add', 'fiona@example.com', '--name', 'Fiona Finance', '--roles', 'cfo,finance'],
    { env },
  );
  t.regex(again.stdout, /already exists; nothing changed/);
  const adam = await runCli(['approvers', 'add', 'adam', '--name', 'Adam', '--roles', 'finance', '--team', 'network'], {
    env,
  });
  t.is(adam.stdout, 'added approver adam (Adam; finance; team network)\n');

  const table = await runCli(['approvers', 'list'], { env });
  t.is(table.code, 0, table.stderr);
  t.deepEqual(
    table.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/)),
    [
      ['ID', 'NAME', 'ROLES', 'TEAM', 'ACTIVE'],
      ['adam', 'Adam', 'finance', 'network', 'yes'],
      ['fiona@example.com', 'Fiona Finance', 'cfo,finance', '-', 'yes'],
    ],
  );

  const deactivated = await runCli(['approvers', 'deactivate', 'adam', '--json'], { env });
  t.is(deactivated.code, 0, deactivated.stderr);
  t.like(JSON.parse(deactivated.stdout), { id: 'adam', active: false });

  const active = await runCli(['approvers', 'list', '--active', '--json'], { env });
  t.deepEqual(
    (JSON.parse(active.stdout) as Array<{ id: string }>).map((a) => a.id),
    ['fiona@example.com'],
  );

  const updated = await runCli(['approvers', 'update', 'adam', '--roles', 'finance,cfo', '--activate'], { env });
  t.is(updated.stdout, 'updated approver adam (Adam; cfo,finance; team network)\n');
  const moved = await runCli(['approvers', 'update', 'adam', '--team', 'sec-ops'], { env });
  t.is(moved.stdout, 'updated approver adam (Adam; cfo,finance; team sec-ops)\n');
  const cleared = await runCli(['approvers', 'update', 'adam', '--no-team'], { env });
  t.is(cleared.stdout, 'updated approver adam (Adam; cfo,finance)\n');
});

test.serial('approvers refuses bad input naming the field and the rule, changing nothing', async (t) => {
  const { url } = await postgres.database();
  const env = { DATABASE_URL: url };
  const result = await runCli(['approvers', 'add', 'carl', '--name', 'Carl', '--roles', 'Finance Team'], { env });
  t.not(result.code, 0);
  t.regex(result.stderr, /roles\.0: must be a lowercase word/);
  const team = await runCli(['approvers', 'add', 'carl', '--name', 'Carl', '--roles', '', '--team', 'a team'], { env });
  t.not(team.code, 0);
  t.regex(team.stderr, /team: must be 1 to 64 letters, digits and \. _ -/);
  const missing = await runCli(['approvers', 'deactivate', 'nobody'], { env });
  t.not(missing.code, 0);
  t.regex(missing.stderr, /no approver with id nobody/);
  const list = await runCli(['approvers', 'list', '--json'], { env });
  t.deepEqual(JSON.parse(list.stdout), []);
});
