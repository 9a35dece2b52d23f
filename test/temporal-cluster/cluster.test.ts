/**
 * The Temporal cluster runner on real processes: Temporal's server built from its Go module (npm run cluster:install),
 * a PostgreSQL of its own. Each service is a process of its own that joins the others through PostgreSQL; a history
 * host killed hands its shards to the other; the cluster started again on the same databases finds its workflows.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import postgres from 'postgres';
import { Connection } from '@temporalio/client';
import {
  databaseOf,
  startTemporalCluster,
  startTemporalClusterOnFreePorts,
  type TemporalCluster,
} from '../../tooling/temporal/cluster/index.js';
import { installClusterTools } from '../../tooling/temporal/cluster/tools.js';
import type { EmbeddedPostgresServer } from '../../tooling/dev/embedded-postgres.js';
import { startCopyOfTemplate } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

let server: EmbeddedPostgresServer;
let dir: string;

test.before(async () => {
  [server, dir] = await Promise.all([
    startCopyOfTemplate(),
    mkdtemp(path.join(tmpdir(), 'mve-cluster-test-')),
    installClusterTools({ log: () => undefined }),
  ]).then(([pg, folder]) => [pg, folder] as const);
});

test.after.always(async () => {
  await server?.stop();
  await rm(server?.dataDir ?? '', { recursive: true, force: true });
  await rm(dir ?? '', { recursive: true, force: true });
});

const start = async (): Promise<TemporalCluster> =>
  startTemporalClusterOnFreePorts(async () => ({
    tools: await installClusterTools({ log: () => undefined }),
    dir,
    database: databaseOf(server.adminUrl),
    namespace: 'default',
  }));

/** The kind each process was started as, from its command line. */
function serviceOf(pid: number): string | undefined {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf('--service') + 1];
}

test.serial('six processes, one per service instance, find each other through PostgreSQL', async (t) => {
  const cluster = await start();
  try {
    t.deepEqual(
      cluster.services.map((service) => `${service.name}:${serviceOf(service.pid)}`),
      [
        'frontend-1:frontend',
        'history-1:history',
        'history-2:history',
        'matching-1:matching',
        'matching-2:matching',
        'worker-1:worker',
      ],
    );
    t.is(new Set(cluster.services.map((service) => service.pid)).size, 6);
    t.is(cluster.version, '1.32.2');
    t.deepEqual(
      cluster.schema.map((step) => [step.database, step.from]),
      [
        ['temporal', 'none'],
        ['temporal_visibility', 'none'],
      ],
      'the schemas were set up from nothing',
    );
    const sql = postgres(`${server.adminUrl.replace(/\/postgres$/, '/temporal')}`, { max: 1 });
    try {
      const members = await waitFor(async () => {
        const rows = await sql`SELECT role, count(*)::int AS hosts FROM cluster_membership
          WHERE record_expiry > now() GROUP BY role ORDER BY role`;
        return rows.length === 4 ? rows.map((row) => `${row['role']}:${row['hosts']}`) : undefined;
      });
      // roles: 1 frontend, 2 history, 3 matching, 4 worker
      t.deepEqual(members, ['1:1', '2:2', '3:2', '4:1']);
    } finally {
      await sql.end();
    }
  } finally {
    await cluster.stop();
  }
  t.false(
    cluster.services.some((service) => service.alive()),
    'stop() ends every process',
  );
});

test.serial('a history host killed: its shards move, and starts on every shard are taken again', async (t) => {
  const cluster = await start();
  const connection = await Connection.connect({ address: cluster.address });
  try {
    t.deepEqual(
      cluster.schema.map((step) => step.from === step.to),
      [true, true],
      'a second start leaves the schemas as they are',
    );
    const startOne = (id: string) =>
      connection.workflowService.startWorkflowExecution({
        namespace: 'default',
        workflowId: id,
        requestId: id,
        workflowType: { name: 'anything' },
        taskQueue: { name: 'nobody-polls' },
      });
    await cluster.service('history-1').kill();
    const killedAt = Date.now();
    // 32 ids land on most of the 16 shards: each start is taken once history-2 owns its shard
    await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        waitFor(
          () =>
            startOne(`after-kill-${i}`).then(
              () => true,
              () => undefined,
            ),
          90_000,
          `the start of after-kill-${i}`,
        ),
      ),
    );
    t.log(`every start taken ${((Date.now() - killedAt) / 1000).toFixed(1)} s after history-1 was killed`);
    await cluster.service('history-1').start();
    await cluster.untilServing();
    await cluster.stop();
    await cluster.start();
    const { executions } = await connection.workflowService.listOpenWorkflowExecutions({
      namespace: 'default',
      maximumPageSize: 100,
    });
    t.true(
      executions.filter((execution) => execution.execution?.workflowId?.startsWith('after-kill-')).length >= 1,
      'the workflows started before a whole stop are there after it',
    );
  } finally {
    await connection.close();
    await cluster.stop();
  }
});

test.serial('a wrong database password is said, naming the schema tool and the database', async (t) => {
  const database = { ...databaseOf(server.adminUrl), password: 'not-the-password' };
  const error = await t.throwsAsync(
    startTemporalCluster({
      tools: await installClusterTools({ log: () => undefined }),
      dir,
      database,
      namespace: 'default',
    }),
  );
  t.regex(error.message, /temporal-sql-tool create-database on temporal failed: .*password authentication failed/s);
});
