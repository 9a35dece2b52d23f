/**
 * Data from before: orders that ran on the Temporal server dev embedded until it ran Temporal's own. Their server's
 * state (a schema of dev's database with that server's tables, as far as dev reads them) and their records are
 * found at start-up and said, with how to finish or end them; `--drop-earlier-orders` ends them in the records, saying
 * why, and drops the schema. Orders that ended, and orders whose workflow this Temporal knows, are left alone.
 */
import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import type { OrderState } from '../../domain/lifecycle/index.js';
import { createRepository } from '../../infra/db/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { removeDevFolder, startDevChild, type CliChild } from './child.js';

const pg = usePostgres(test);
const START_MS = 240_000; // bundling the workflows on a loaded machine
const STOP_MS = 60_000;
const PORTS = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];

/** Each order's way through the states to where the earlier server left it. */
const PATHS: Record<string, OrderState[]> = {
  'EARLIER-1': ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL'],
  'EARLIER-2': ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BUY_UNCERTAIN'],
  'EARLIER-3': ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  'ENDED-1': ['CANCELLED'],
  'KNOWN-1': ['LOOKING_UP'],
};
const workflowIdOf = (ticketId: string) => `mve-order-${ticketId}.earlier`;

test('dev tells the orders the retired embedded server strands, and --drop-earlier-orders ends them', async (t) => {
  t.timeout(10 * 60_000);
  const db = await pg.database();
  const records = createRepository(db.sql);
  for (const [ticketId, path] of Object.entries(PATHS)) {
    const workflowId = workflowIdOf(ticketId);
    await records.recordOrderReceived({
      workflowId,
      ticketId,
      environment: 'staging',
      requestedBy: 'dave',
      request: { ticketId },
    });
    let from: OrderState = 'RECEIVED';
    for (const [index, to] of path.entries()) {
      await records.recordTransition({ workflowId, sequence: index + 1, from, to, actor: 'earlier-worker' });
      from = to;
    }
  }
  // The retired server's tables in a schema of their own (named as it was told), its runs with the columns dev reads:
  // two open, one completed.
  await db.sql`CREATE SCHEMA embedded_temporal`;
  await db.sql`CREATE TABLE embedded_temporal.namespaces (name text PRIMARY KEY)`;
  await db.sql`CREATE TABLE embedded_temporal.history_events (run_id text, event_id integer)`;
  await db.sql`
    CREATE TABLE embedded_temporal.executions (
      run_id text PRIMARY KEY, workflow_id text NOT NULL, workflow_type text NOT NULL, status smallint NOT NULL)`;
  await db.sql`
    INSERT INTO embedded_temporal.executions VALUES
      ('run-1', ${workflowIdOf('EARLIER-1')}, 'orderWorkflow', 1),
      ('run-2', ${workflowIdOf('EARLIER-2')}, 'orderWorkflow', 1),
      ('run-3', ${workflowIdOf('ENDED-1')}, 'orderWorkflow', 2)`;

  const root = await mkdtemp(join(tmpdir(), 'mve-dev-earlier-'));
  await chmod(root, 0o711);
  const env = { DATABASE_URL: db.url, MVE_DATA_DIR: join(root, 'data') };
  const startDev = (extra: string[] = []): Promise<CliChild> => startDevChild([...extra, ...PORTS], env, START_MS);
  let running: CliChild | undefined;
  try {
    const first = (running = await startDev());
    t.regex(
      first.stdout(),
      /^ {2}warning: 4 orders \(EARLIER-1, EARLIER-2, EARLIER-3, KNOWN-1\) and 2 open workflow runs of the Temporal server dev embedded up to a1ac6c9, retired since, do not go on here \(see "earlier state" below\)$/m,
    );
    t.regex(
      first.stdout(),
      /^ {2}earlier state +schema embedded_temporal of the database, the state of the Temporal server dev embedded up to a1ac6c9 \(retired since\): 2 open workflow runs in it; 4 orders \(EARLIER-1, EARLIER-2, EARLIER-3, KNOWN-1\) of the records not ended that this Temporal does not know\. Finish them with that version \(`git checkout a1ac6c9 && npm ci && npm start -- --temporal embedded`\), or end them in the records and drop the schema \(`npx mve-orders dev --drop-earlier-orders`\); docs\/running\.md, "Data from before"$/m,
    );

    // KNOWN-1 has a workflow on this Temporal (an order submitted again since): it is no longer stranded.
    const state = JSON.parse(await readFile(join(env.MVE_DATA_DIR, 'dev.json'), 'utf8')) as {
      temporal: { address: string };
    };
    const connection = await Connection.connect({ address: state.temporal.address });
    try {
      await new Client({ connection }).workflow.start('orderWorkflow', {
        taskQueue: 'nobody-polls',
        workflowId: workflowIdOf('KNOWN-1'),
      });
    } finally {
      await connection.close();
    }
    t.is(await first.signalGroup('SIGINT', STOP_MS), 0, first.stderr());
    running = undefined;
    // They wait for nobody here: the terminal does not tell them among the orders waiting for a person (told at the
    // latest as dev stops, with the last reading of the order events).
    t.regex(first.stdout(), /\n {2}order events no longer followed\n/);
    t.notRegex(first.stderr(), /^\[order\] (EARLIER|KNOWN)-/m);

    const second = (running = await startDev(['--drop-earlier-orders']));
    t.notRegex(second.stdout(), /warning:/);
    t.regex(
      second.stdout(),
      /^ {2}earlier state +schema embedded_temporal of the database, the state of the Temporal server dev embedded up to a1ac6c9 \(retired since\): dropped; 3 orders \(EARLIER-1, EARLIER-2, EARLIER-3\) it stranded ended in the records, saying why$/m,
    );
    const [schema] =
      await db.sql`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = 'embedded_temporal'`;
    t.is(schema['n'], 0, 'the schema is dropped');

    const ending = async (ticketId: string) => {
      const view = (await records.getOrder(workflowIdOf(ticketId)))!;
      const last = view.events.at(-1)!;
      return { status: view.order.status, actor: last.actor, reason: last.reason ?? '' };
    };
    const retired = /^its workflow ran on the Temporal server embedded in dev up to a1ac6c9, retired since/;
    const awaiting = await ending('EARLIER-1');
    t.like(awaiting, { status: 'FAILED', actor: 'mve-orders dev --drop-earlier-orders' });
    t.regex(awaiting.reason, new RegExp(`${retired.source}$`));
    const uncertain = await ending('EARLIER-2');
    t.is(uncertain.status, 'FAILED');
    t.regex(uncertain.reason, retired);
    t.regex(
      uncertain.reason,
      /; its buy may have reached the ordering API: look for its product there before ordering it again$/,
    );
    const bought = await ending('EARLIER-3');
    t.is(bought.status, 'PROVISIONING_STALLED');
    t.regex(bought.reason, retired);
    t.regex(bought.reason, /; it was bought, and its provisioning is no longer followed$/);
    t.like(await ending('ENDED-1'), { status: 'CANCELLED', actor: 'earlier-worker' });
    t.like(await ending('KNOWN-1'), { status: 'LOOKING_UP', actor: 'earlier-worker' });

    t.is(await second.signalGroup('SIGINT', STOP_MS), 0, second.stderr());
    running = undefined;
    // Nothing left to say at the next start.
    const third = (running = await startDev());
    t.notRegex(third.stdout(), /earlier state|warning:/);
    t.is(await third.signalGroup('SIGINT', STOP_MS), 0, third.stderr());
    running = undefined;
  } finally {
    await running?.signalGroup('SIGKILL', 10_000);
    await removeDevFolder(root);
  }
});
