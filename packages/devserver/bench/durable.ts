/**
 * The durable devserver (state in PostgreSQL) against the in-memory one, in the same run: workflows per second
 * and start-to-result latency of a one-activity workflow (SDK client and worker in this process, loopback),
 * then the start-up time of a durable server that finds 10,000 open workflows (each has run its first workflow
 * task and waits for a signal) in its database.
 *
 * PostgreSQL is an embedded cluster in a temporary folder with fsync on (as `mve-orders dev` runs it), removed
 * afterwards. Run: npm run bench:devserver-durable -- [--open 10000]   (in the package: npm run bench:durable)
 */
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
} from '@temporalio/worker';
import { startDevServer } from '../src/index.js';
import type { DevServer } from '../src/index.js';
import { startThrowawayPostgres } from '../support/throwaway-postgres.js';
import { throughput } from './throughput.js';

const TASK_QUEUE = 'bench-devserver-durable';
const RUNS: { concurrency: number; workflows: number }[] = [
  { concurrency: 1, workflows: 100 },
  { concurrency: 10, workflows: 500 },
  { concurrency: 100, workflows: 1000 },
];
const openArg = process.argv.indexOf('--open');
const OPEN_WORKFLOWS = openArg > 0 ? Number(process.argv[openArg + 1]) : 10_000;

interface Running {
  server: DevServer;
  client: Client;
  stop(): Promise<void>;
}

let bundle: Promise<{ code: string }> | undefined;
async function run(options: { databaseUrl?: string; schema?: string; worker?: boolean }): Promise<Running> {
  const server = await startDevServer({
    port: 0,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl, databaseSchema: options.schema } : {}),
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  if (options.worker !== false) {
    bundle ??= bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundle,
      activities: { echo: async (text: string) => text },
      maxCachedWorkflows: 1000,
    });
    running = worker.run();
  }
  return {
    server,
    client,
    async stop() {
      worker?.shutdown();
      await running;
      await nativeConnection?.close();
      await connection.close();
      await server.close();
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
  const postgres = await startThrowawayPostgres({ durable: true });
  try {
    const table: string[] = [];
    for (const [store, databaseUrl] of [
      ['memory', undefined],
      ['postgres', postgres.url],
    ] as const) {
      const env = await run({ databaseUrl });
      await throughput(env.client, TASK_QUEUE, 10, 50, `warmup-${store}`);
      for (const r of RUNS) {
        const row = await throughput(env.client, TASK_QUEUE, r.concurrency, r.workflows, `${store}-c${r.concurrency}`);
        table.push(
          `${store.padEnd(8)}  ${String(row.concurrency).padStart(11)}  ${String(row.workflows).padStart(9)}  ${row.perSecond.toFixed(1).padStart(11)}  ${row.p50.toFixed(1).padStart(7)}  ${row.p99.toFixed(1).padStart(7)}`,
        );
      }
      await env.stop();
    }
    console.log(
      'devserver benchmark, in memory vs durable (PostgreSQL, fsync on): one-activity workflow, SDK 1.24 client + worker in this process, loopback',
    );
    console.log('store     concurrency  workflows  workflows/s   p50 ms   p99 ms');
    for (const line of table) console.log(line);

    // start-up with OPEN_WORKFLOWS open workflows in the database (a schema of its own)
    const seedStarted = performance.now();
    const seeding = await run({ databaseUrl: postgres.url, schema: 'devserver_open' });
    for (let i = 0; i < OPEN_WORKFLOWS; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, OPEN_WORKFLOWS - i) }, (_, j) =>
          seeding.client.workflow.start('openWorkflow', { taskQueue: TASK_QUEUE, workflowId: `open-${i + j}` }),
        ),
      );
    }
    // every open workflow has completed its first workflow task
    for (;;) {
      const pending = await seeding.client.workflow.count(
        `WorkflowType = 'openWorkflow' AND ExecutionStatus = 'Running'`,
      );
      const described = await seeding.client.workflow.getHandle(`open-${OPEN_WORKFLOWS - 1}`).describe();
      if (pending.count >= OPEN_WORKFLOWS && !described.raw.pendingWorkflowTask && described.historyLength >= 4) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await seeding.stop();
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const server = await startDevServer({ port: 0, databaseUrl: postgres.url, databaseSchema: 'devserver_open' });
    const startMs = performance.now() - t0;
    gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    const { openRuns, closedRuns, loadMs } = server.persistence;
    // and the first of them still answers: a signal completes it
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    const t1 = performance.now();
    const described = await client.workflow.getHandle('open-0').describe();
    const describeMs = performance.now() - t1;
    await connection.close();
    await server.close();
    console.log(
      `start-up of a durable devserver with ${openRuns} open workflow runs (${closedRuns} closed) in its database: ` +
        `${(startMs / 1000).toFixed(2)} s to serving (loading and rebuilding: ${(loadMs / 1000).toFixed(2)} s); ` +
        `heap +${((heapAfter - heapBefore) / 1024 / 1024).toFixed(0)} MiB; first describe ${describeMs.toFixed(0)} ms (${described.status.name}); ` +
        `seeding took ${seedSeconds.toFixed(0)} s`,
    );
  } finally {
    await postgres.stop();
  }
}

await main();
