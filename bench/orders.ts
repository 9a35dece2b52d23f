/**
 * The whole engine, measured: the devserver (real time, no skipping), the API simulator, an embedded
 * PostgreSQL, the real worker and activities, the encrypting codec. Auto-approved orders are submitted at
 * several concurrencies; for each, the end-to-end time per order (submit to BOUGHT, median and p95),
 * orders per second, history events and bytes per order, and API calls per order.
 *
 *   npm run bench:orders          (or as part of `npm run bench`)
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createApiClient, Secret } from '../activities/api/index.js';
import { connectDatabase, createRepository, runMigrations } from '../activities/db/index.js';
import { startEmbeddedPostgres } from '../activities/db/embedded.js';
import { OrderClient } from '../client/orders/index.js';
import { encryptingDataConverter, Keyring } from '../codec/index.js';
import { startDevServer } from '../devserver/index.js';
import { SIM_KIND_MAP, startSimulator } from '../sim/index.js';
import { DEFAULT_APPROVAL_POLICIES } from '../workflows/approval/index.js';
import { callbackPolicyFromEnv } from '../activities/order/index.js';
import { createEnvironmentActivities, createOrderWorker, ensureOrderSearchAttributes } from '../worker/index.js';
import { percentile } from './workflow-throughput.js';

const CONCURRENCY = [1, 10, 50];
const ROUNDS = 3;

interface RoundFigures {
  concurrency: number;
  'median e2e ms': number;
  'p95 e2e ms': number;
  'orders/s': number;
  'history events/order': number;
  'history bytes/order': number;
  'API calls/order': number;
}

export async function runOrdersBench(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // Not created here: the embedded server creates it, owned by the account PostgreSQL runs as.
  const dataDir = path.join(tmpdir(), `mve-bench-pg-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  const devServer = await startDevServer({ port: 0 });
  const sim = await startSimulator();
  const sql = connectDatabase(postgres.url);
  try {
    await runMigrations(sql);
    const apiClient = createApiClient({
      config: {
        environment: 'staging',
        baseUrl: sim.baseUrl,
        authUrl: sim.authUrl,
        clientId: sim.clientId,
        clientSecret: new Secret(sim.clientSecret),
        connectTimeoutMs: 5_000,
        responseTimeoutMs: 30_000,
      },
    });
    const activities = createEnvironmentActivities({
      apiClient,
      repository: createRepository(sql),
      kindMap: SIM_KIND_MAP,
      policies: { version: 'bench', source: 'defaults', policies: DEFAULT_APPROVAL_POLICIES },
      callbackSecret: undefined,
      callbackPolicy: callbackPolicyFromEnv({}),
    });
    const dataConverter = encryptingDataConverter(Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`));
    const connection = await Connection.connect({ address: devServer.address });
    await ensureOrderSearchAttributes(connection, 'default');
    const worker = await createOrderWorker({
      connection: await NativeConnection.connect({ address: devServer.address }),
      namespace: 'default',
      taskQueue: 'bench',
      environment: 'staging',
      activities,
      dataConverter,
      actionKeys: Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`, 'bench', 'action keys'),
    });
    const running = worker.run();
    const client = new Client({ connection, namespace: 'default', dataConverter });
    const orders = new OrderClient({ client, taskQueue: 'bench', kindMap: SIM_KIND_MAP });
    const example = JSON.parse(await readFile(new URL('../examples/k09-license-file-firewall.json', import.meta.url), 'utf8'));
    const { History } = protoRoot.temporal.api.history.v1;

    let ticket = 0;
    async function measure(concurrency: number): Promise<RoundFigures> {
      const e2e: number[] = [];
      const tickets: string[] = [];
      const callsBefore = totalCalls();
      const started = performance.now();
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            const ticketId = `BENCH-${process.pid}-${++ticket}`;
            tickets.push(ticketId);
            const t0 = performance.now();
            await orders.submit({ ...example, ticketId, size: 'MVE 2/8' });
            const outcome = await orders.result(ticketId);
            if (outcome.state !== 'BOUGHT') throw new Error(`${ticketId} ended ${outcome.state}: ${outcome.reason}`);
            e2e.push(performance.now() - t0);
          }),
        );
      }
      const elapsed = (performance.now() - started) / 1000;
      const calls = totalCalls() - callsBefore;
      let events = 0;
      let bytes = 0;
      for (const ticketId of tickets) {
        const { history } = await client.workflowService.getWorkflowExecutionHistory({
          namespace: 'default',
          execution: { workflowId: `mve-order-${ticketId}` },
        });
        events += history?.events?.length ?? 0;
        bytes += History.encode(History.create(history ?? {})).finish().length;
      }
      e2e.sort((a, b) => a - b);
      return {
        concurrency,
        'median e2e ms': Math.round(percentile(e2e, 50)),
        'p95 e2e ms': Math.round(percentile(e2e, 95)),
        'orders/s': Math.round((tickets.length / elapsed) * 10) / 10,
        'history events/order': Math.round(events / tickets.length),
        'history bytes/order': Math.round(bytes / tickets.length),
        'API calls/order': Math.round((calls / tickets.length) * 100) / 100,
      };
    }
    const totalCalls = () => Object.values(sim.state().calls).reduce((sum, count) => sum + count, 0);

    await measure(1); // warms the caches (catalogs, token, connections); not reported
    const figures: RoundFigures[] = [];
    for (const concurrency of CONCURRENCY) figures.push(await measure(concurrency));
    process.stdout.write(`Auto-approved orders end to end (devserver, simulator, embedded PostgreSQL; ${ROUNDS} rounds each; warm caches):\n`);
    console.table(figures);
    worker.shutdown();
    await running;
    apiClient.close();
    await connection.close();
  } finally {
    await sql.end({ timeout: 5 });
    await sim.close();
    await devServer.close();
    await postgres.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runOrdersBench();
