/**
 * What parked workflows cost the devserver: the same measurements with none and with N orders parked awaiting
 * approval (fixtures/parked-workflows.ts: three search attributes, two long timers, waiting for a signal).
 * Measured: one-activity workflows per second, their p50 start-to-result latency and the server's CPU time per
 * workflow; List of the waiting orders (first page of 100, and every page), an unfiltered first page, Count; the
 * server's heap (after GC) and RSS.
 *
 * The server runs in a child process of its own, so its memory and (with --profile) its CPU profile are its
 * alone; the SDK client and worker run here, on loopback. With --durable its state is in PostgreSQL (an embedded
 * cluster in a temporary folder, fsync on, removed afterwards) instead of memory.
 * Run: npm run bench:devserver-parked -- [--parked 10000] [--durable] [--profile <dir>]   (a .cpuprofile of the server)
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
} from '@temporalio/worker';
import { startDevServer } from '../src/index.js';
import { startThrowawayPostgres } from '../support/throwaway-postgres.js';
import { percentile, pool, throughput } from './throughput.js';

const TASK_QUEUE = 'bench-devserver-parked';
const NAMESPACE = 'default';
const ENVIRONMENTS = ['production', 'staging', 'dev'];
const WAITING = `WorkflowType = 'parkedOrderWorkflow' AND ExecutionStatus = 'Running' AND OrderStatus = 'AwaitingApproval'`;
const WAITING_IN_PRODUCTION = `OrderStatus = 'AwaitingApproval' AND Environment = 'production'`;
const THROUGHPUT = { concurrency: 10, workflows: 300 };
const PARK_CONCURRENCY = 200;
const REPEATS = 5;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

type ServerRequest = 'memory' | 'cpu' | 'stop';
type ServerMessage = { address: string } | { heapUsed: number; rss: number } | { cpuMicros: number };

/**
 * The child: a devserver (in memory, or in --database-url), answering 'memory' with its heap after GC and RSS,
 * 'cpu' with the CPU time it has used, and exiting on 'stop'.
 */
async function serve(): Promise<void> {
  const server = await startDevServer({ port: 0, databaseUrl: option('--database-url') });
  const send = (message: ServerMessage) => process.send!(message);
  process.on('message', (request: ServerRequest) => {
    if (request === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc!;
      gc();
      gc();
      const { heapUsed, rss } = process.memoryUsage();
      send({ heapUsed, rss });
    } else if (request === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ cpuMicros: user + system });
    } else {
      // a --cpu-prof profile is written on exit
      void server.close().finally(() => process.exit(0));
    }
  });
  send({ address: server.address });
}

class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly address: string,
  ) {}

  static async start(profileDir: string | undefined, databaseUrl: string | undefined): Promise<ServerProcess> {
    // a relative folder is the caller's: npm runs the package's scripts in the package's folder, INIT_CWD is where npm was run
    const profile = profileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.INIT_CWD ?? '', profileDir)}`]
      : [];
    const database = databaseUrl ? ['--database-url', databaseUrl] : [];
    const child = fork(fileURLToPath(import.meta.url), ['--serve', ...database], {
      execArgv: ['--import', 'tsx', '--expose-gc', ...profile],
    });
    const { address } = (await ServerProcess.next(child)) as { address: string };
    return new ServerProcess(child, address);
  }

  private static next(child: ChildProcess): Promise<ServerMessage> {
    return new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`devserver process exited (${code})`)));
    });
  }

  async memory(): Promise<{ heapUsed: number; rss: number }> {
    this.child.send('memory' satisfies ServerRequest);
    return (await ServerProcess.next(this.child)) as { heapUsed: number; rss: number };
  }

  async cpuMicros(): Promise<number> {
    this.child.send('cpu' satisfies ServerRequest);
    return ((await ServerProcess.next(this.child)) as { cpuMicros: number }).cpuMicros;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send('stop' satisfies ServerRequest);
    await exited;
  }
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await action();
  return performance.now() - t0;
}

/** The median of REPEATS runs, in ms. */
async function median(action: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) times.push(await timed(action));
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}

async function listAllPages(connection: Connection, query: string): Promise<number> {
  let listed = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.listWorkflowExecutions({
      namespace: NAMESPACE,
      query,
      pageSize: 100,
      nextPageToken,
    });
    listed += page.executions.length;
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return listed;
}

interface Figures {
  parked: number;
  perSecond: number;
  p50: number;
  serverCpuMsPerWorkflow: number;
  listFirstMs: number;
  listAllMs: number;
  listedAll: number;
  listProductionMs: number;
  listUnfilteredMs: number;
  countMs: number;
  heapMiB: number;
  rssMiB: number;
}

async function measure(
  server: ServerProcess,
  client: Client,
  connection: Connection,
  parked: number,
): Promise<Figures> {
  const cpuBefore = await server.cpuMicros();
  const run = await throughput(
    client,
    TASK_QUEUE,
    THROUGHPUT.concurrency,
    THROUGHPUT.workflows,
    `one-activity-${parked}`,
  );
  const serverCpuMsPerWorkflow = ((await server.cpuMicros()) - cpuBefore) / 1000 / THROUGHPUT.workflows;
  const firstPage = (query: string) => () =>
    connection.workflowService.listWorkflowExecutions({ namespace: NAMESPACE, query, pageSize: 100 });
  let listedAll = 0;
  const listAllMs = await median(async () => (listedAll = await listAllPages(connection, WAITING)));
  const listFirstMs = await median(firstPage(WAITING));
  const listProductionMs = await median(firstPage(WAITING_IN_PRODUCTION));
  const listUnfilteredMs = await median(firstPage(''));
  const countMs = await median(() => client.workflow.count(WAITING));
  // last: a forced GC leaves the server slower for a while
  const memory = await server.memory();
  return {
    parked,
    perSecond: run.perSecond,
    p50: run.p50,
    serverCpuMsPerWorkflow,
    listFirstMs,
    listAllMs,
    listedAll,
    listProductionMs,
    listUnfilteredMs,
    countMs,
    heapMiB: memory.heapUsed / 2 ** 20,
    rssMiB: memory.rss / 2 ** 20,
  };
}

/** Starts `count` parked orders and waits until every one has upserted its search attributes. */
async function park(client: Client, count: number): Promise<number> {
  const t0 = performance.now();
  await pool(count, PARK_CONCURRENCY, async (i) => {
    await client.workflow.start('parkedOrderWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `parked-${i}`,
      args: [`T-${i}`, ENVIRONMENTS[i % ENVIRONMENTS.length]!],
    });
  });
  while ((await client.workflow.count(WAITING)).count < count) await new Promise((resolve) => setTimeout(resolve, 250));
  return count / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  if (!process.argv.includes('--durable')) return await bench(undefined);
  const postgres = await startThrowawayPostgres({ durable: true });
  try {
    await bench(postgres.url);
  } finally {
    await postgres.stop();
  }
}

async function bench(databaseUrl: string | undefined): Promise<void> {
  const parkedCount = Number(option('--parked') ?? 10_000);
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
  const server = await ServerProcess.start(option('--profile'), databaseUrl);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: NAMESPACE });
  const { IndexedValueType } = protoRoot.temporal.api.enums.v1;
  const keyword = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await connection.operatorService.addSearchAttributes({
    namespace: NAMESPACE,
    searchAttributes: { OrderStatus: keyword, TicketId: keyword, Environment: keyword },
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: NAMESPACE,
    taskQueue: TASK_QUEUE,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./fixtures/parked-workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    }),
    activities: { echo: async (text: string) => text },
    maxCachedWorkflows: 1000,
  });
  const running = worker.run();

  await throughput(client, TASK_QUEUE, 10, 100, 'warmup');
  const rows = [await measure(server, client, connection, 0)];
  const parkedPerSecond = await park(client, parkedCount);
  rows.push(await measure(server, client, connection, parkedCount));

  const store = databaseUrl ? 'durable (PostgreSQL, fsync on)' : 'in memory';
  console.log(
    `devserver ${store} with parked orders (SDK 1.24 client + worker in this process, server in its own; loopback); parked at ${parkedPerSecond.toFixed(0)} workflows/s`,
  );
  console.log(
    `one-activity workflows: ${THROUGHPUT.workflows} at concurrency ${THROUGHPUT.concurrency}; list and count: median of ${REPEATS}; waiting = ${WAITING}`,
  );
  console.log(
    'parked  workflows/s  p50 ms  server CPU ms/workflow  list waiting: first 100 ms / all ms (rows)  list production 100 ms  list unfiltered 100 ms  count ms  heap MiB  RSS MiB',
  );
  for (const r of rows)
    console.log(
      `${String(r.parked).padStart(6)}  ${r.perSecond.toFixed(1).padStart(11)}  ${r.p50.toFixed(1).padStart(6)}  ${r.serverCpuMsPerWorkflow.toFixed(2).padStart(22)}  ` +
        `${r.listFirstMs.toFixed(1).padStart(22)} / ${r.listAllMs.toFixed(0).padStart(6)} (${r.listedAll})  ` +
        `${r.listProductionMs.toFixed(1).padStart(23)}  ${r.listUnfilteredMs.toFixed(1).padStart(22)}  ${r.countMs.toFixed(1).padStart(8)}  ` +
        `${r.heapMiB.toFixed(0).padStart(8)}  ${r.rssMiB.toFixed(0).padStart(7)}`,
    );

  worker.shutdown();
  await running;
  await nativeConnection.close();
  await connection.close();
  await server.stop();
}

await (process.argv.includes('--serve') ? serve() : main());
