/**
 * `mve-orders devserver --database-url`: keeps its workflows across a stop and a start, says where its state is
 * (which server and database, not the password), and refuses a URL that is not PostgreSQL's.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { usePostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const pg = usePostgres(test);
const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

test('mve-orders devserver --database-url keeps workflows across a stop and a start', async (t) => {
  const db = await pg.database({ migrated: false });
  const run = async (body: (address: string, stdout: string) => Promise<void>) => {
    const server = spawn(
      process.execPath,
      [BIN, 'devserver', '--port', '0', '--database-url', db.url, '--schema', 'temporal_dev'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    try {
      const address = await waitFor(
        async () =>
          /listening on (\S+)/.exec(stdout)?.[1] ?? (server.exitCode !== null ? `exited: ${stderr}` : undefined),
        30_000,
        'the devserver starting',
      );
      t.regex(address, /^127\.0\.0\.1:\d+$/);
      await waitFor(
        async () => (/^Press Ctrl-C/m.test(stdout) ? true : undefined),
        5000,
        'the devserver printing its summary',
      );
      await body(address, stdout);
    } finally {
      server.kill('SIGINT');
    }
    t.is(await exited, 0, stderr);
  };
  await run(async (address, stdout) => {
    t.regex(stdout, new RegExp(`state in PostgreSQL \\S+:\\d+/${db.name}, schema temporal_dev \\(0 open, 0 closed`));
    t.false(stdout.includes(new URL(db.url).password), 'the password is not printed');
    const connection = await Connection.connect({ address });
    await new Client({ connection }).workflow.start('greetWorkflow', {
      taskQueue: 'nobody-polls',
      workflowId: 'kept-by-cli',
      args: ['x'],
    });
    await connection.close();
  });
  await run(async (address, stdout) => {
    t.regex(stdout, /\(1 open, 0 closed workflow runs loaded in \d+ ms\)/);
    const connection = await Connection.connect({ address });
    const described = await new Client({ connection }).workflow.getHandle('kept-by-cli').describe();
    t.is(described.status.name, 'RUNNING');
    await connection.close();
  });
  const tables =
    await db.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'temporal_dev' ORDER BY table_name`;
  t.deepEqual(
    tables.map((row) => row.table_name),
    ['executions', 'history_events', 'meta', 'namespaces', 'schedules'],
  );

  const help = await runCli(['devserver', '--help']);
  t.regex(help.stdout, /--database-url <url>/);
  const refused = await runCli(['devserver', '--database-url', 'mysql://x']);
  t.not(refused.code, 0);
  t.regex(refused.stderr, /--database-url must start with postgres:\/\//);
});
