import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import test from 'ava';
import { ROOT_CLUSTERS_DIR, startEmbeddedPostgres } from '../../tooling/dev/embedded-postgres.js';
import { connectDatabase } from '../../infra/db/index.js';

// One real cluster, started cold, stopped, and started again on the same data folder.
test('the embedded server starts (as root too), keeps its data across a restart, and shuts down cleanly', async (t) => {
  const parent = await mkdtemp(path.join(tmpdir(), 'mve-embedded-'));
  await chmod(parent, 0o755); // mkdtemp makes it private; the postgres account must pass through
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dataDir = path.join(parent, 'nested', 'postgres');
  const logs: string[] = [];

  const signalHandlers = () => ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit'].map((e) => process.listenerCount(e));
  const handlersBefore = signalHandlers();
  const first = await startEmbeddedPostgres({ dataDir, log: (line) => logs.push(line) });
  t.teardown(() => first.stop());
  // Shutdown order belongs to the process that started the server: the package's handlers are removed.
  t.deepEqual(signalHandlers(), handlersBefore);
  t.true(first.initialised);
  t.regex(first.url, /^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/mve_orders$/);
  if (userInfo().uid === 0) {
    // PostgreSQL refuses root: the cluster belongs to, and the server runs as, the postgres account.
    const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    t.is((await stat(dataDir)).uid, postgresUid);
  }

  let sql = connectDatabase(first.url);
  await sql`CREATE TABLE notes (body text)`;
  await sql`INSERT INTO notes VALUES ('kept across restarts')`;
  const [{ encoding }] =
    await sql`SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`;
  t.is(encoding, 'UTF8');
  await sql.end();

  // A second server on a folder in use is refused, saying why.
  const clash = await t.throwsAsync(startEmbeddedPostgres({ dataDir }));
  t.regex(clash.message, /PostgreSQL did not start .*[\s\S]*lock file "postmaster\.pid" already exists/);

  await first.stop();
  t.false(existsSync(path.join(dataDir, 'postmaster.pid')), 'the server removed its lock file on the way out');
  await t.throwsAsync(connectDatabase(first.url)`SELECT 1`, { code: 'ECONNREFUSED' });

  logs.length = 0;
  const second = await startEmbeddedPostgres({ dataDir, log: (line) => logs.push(line) });
  t.teardown(() => second.stop());
  t.false(second.initialised);
  sql = connectDatabase(second.url);
  t.deepEqual(
    (await sql<Array<{ body: string }>>`SELECT body FROM notes`).map((row) => row.body),
    ['kept across restarts'],
  );
  await sql.end();
  t.false(
    logs.some((line) => /not properly shut down|automatic recovery/.test(line)),
    'the first shutdown was clean: no crash recovery on restart',
  );
  await second.stop();
  await second.stop();
  t.pass('stopping twice is harmless');
});

test('as root, a data folder the postgres account cannot reach is placed where it can, the same place each start', async (t) => {
  if (userInfo().uid !== 0) return t.pass('only root runs PostgreSQL under another account');
  const parent = await mkdtemp(path.join(tmpdir(), 'mve-embedded-private-')); // mode 700, owned by root: a project in /root
  const preferred = path.join(parent, 'postgres');
  const first = await startEmbeddedPostgres({ dataDir: preferred, ephemeral: true });
  t.teardown(() => rm(first.dataDir, { recursive: true, force: true }));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  t.true(first.dataDir.startsWith(`${ROOT_CLUSTERS_DIR}/`), first.dataDir);
  const sql = connectDatabase(first.url);
  await sql`CREATE TABLE kept (n int)`;
  await sql.end();
  await first.stop();
  const second = await startEmbeddedPostgres({ dataDir: preferred, ephemeral: true });
  t.teardown(() => second.stop());
  t.is(second.dataDir, first.dataDir, 'the same project finds the same cluster');
  t.false(second.initialised);
  const again = connectDatabase(second.url);
  t.deepEqual([...(await again`SELECT count(*)::int AS n FROM kept`)], [{ n: 0 }]);
  await again.end();
});
