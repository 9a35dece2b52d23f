/**
 * The durable devserver as a process: killed with SIGKILL mid-activity (server and worker together, as in
 * `mve-orders dev`), what it acknowledged is there after a restart and the activity is retried; and
 * `mve-orders devserver --database-url` keeps its workflows across a stop and a start.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { usePostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/cli.js';
import { assertReplay, startChildServer, startDurable, TASK_QUEUE, until } from './durable-support.js';
import type { ChildServer, DurableEnv } from './durable-support.js';

const pg = usePostgres(test);
const { EventType, PendingActivityState, TimeoutType } = protoRoot.temporal.api.enums.v1;
const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

let child: ChildServer | undefined;
let env: DurableEnv | undefined;
// before the file's PostgreSQL stops (after.always)
test.afterEach.always(async () => {
  await child?.kill();
  child = undefined;
  await env?.stop();
  env = undefined;
});

test.serial('an activity running when the server is killed is retried after the restart; what was acknowledged is kept', async (t) => {
  t.timeout(3 * 60_000);
  const db = await pg.database({ migrated: false });
  child = await startChildServer(db.url);
  const connection = await Connection.connect({ address: child.address });
  const client = new Client({ connection });
  const inFlight = await client.workflow.start('inFlightActivityWorkflow', { taskQueue: TASK_QUEUE, workflowId: 'in-flight' });
  await until(async () => {
    const [activity] = (await inFlight.describe()).raw.pendingActivities ?? [];
    return activity?.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED && activity.heartbeatDetails?.payloads?.length;
  }, 'the activity runs and has heartbeated');
  const counter = await client.workflow.start('counterWorkflow', { taskQueue: TASK_QUEUE, workflowId: 'signalled-then-killed', args: [2] });
  await counter.signal('add', 3); // acknowledged: it must be on disk
  await child.kill();
  child = undefined;
  await connection.close();

  env = await startDurable(db.url);
  t.is(env.server.persistence.openRuns, 2);
  const after = env.client.workflow.getHandle('in-flight');
  t.is(await after.result(), 2, 'the second attempt, on the new worker, completes the activity');
  const history = await after.fetchHistory();
  const started = history.events!.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)!.activityTaskStartedEventAttributes!;
  t.is(started.attempt, 2);
  t.is(started.lastFailure?.timeoutFailureInfo?.timeoutType, TimeoutType.TIMEOUT_TYPE_HEARTBEAT);

  const counterAfter = env.client.workflow.getHandle('signalled-then-killed');
  await counterAfter.signal('add', 4);
  t.deepEqual(await counterAfter.result(), { sum: 7, count: 2 });
  await assertReplay(t, [
    { workflowId: 'in-flight', history },
    { workflowId: 'signalled-then-killed', history: await counterAfter.fetchHistory() },
  ]);
});

test.serial('mve-orders devserver --database-url keeps workflows across a stop and a start', async (t) => {
  const db = await pg.database({ migrated: false });
  const run = async (body: (address: string, stdout: string) => Promise<void>) => {
    const server = spawn(process.execPath, [BIN, 'devserver', '--port', '0', '--database-url', db.url, '--schema', 'temporal_dev'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    try {
      const address = await until(async () => /listening on (\S+)/.exec(stdout)?.[1] ?? (server.exitCode !== null ? `exited: ${stderr}` : undefined), 'the devserver starts', 30_000);
      t.regex(address, /^127\.0\.0\.1:\d+$/);
      await until(async () => /^Press Ctrl-C/m.test(stdout), 'the devserver prints its summary', 5000);
      await body(address, stdout);
    } finally {
      server.kill('SIGINT');
    }
    t.is(await exited, 0, stderr);
  };
  await run(async (address, stdout) => {
    t.regex(stdout, /state in PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\S+, schema temporal_dev \(0 open, 0 closed/);
    const connection = await Connection.connect({ address });
    await new Client({ connection }).workflow.start('greetWorkflow', { taskQueue: 'nobody-polls', workflowId: 'kept-by-cli', args: ['x'] });
    await connection.close();
  });
  await run(async (address, stdout) => {
    t.regex(stdout, /\(1 open, 0 closed workflow runs loaded in \d+ ms\)/);
    const connection = await Connection.connect({ address });
    const described = await new Client({ connection }).workflow.getHandle('kept-by-cli').describe();
    t.is(described.status.name, 'RUNNING');
    await connection.close();
  });
  const tables = await db.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'temporal_dev' ORDER BY table_name`;
  t.deepEqual(tables.map((row) => row.table_name), ['executions', 'history_events', 'meta', 'namespaces', 'schedules']);

  const help = await runCli(['devserver', '--help']);
  t.regex(help.stdout, /--database-url <url>/);
  const refused = await runCli(['devserver', '--database-url', 'mysql://x']);
  t.not(refused.code, 0);
  t.regex(refused.stderr, /--database-url must start with postgres:\/\//);
});
