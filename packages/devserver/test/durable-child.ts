/**
 * A durable devserver and a worker in one process, like `mve-orders dev`, for tests that kill it (SIGKILL)
 * mid-work: `node --import tsx durable-child.ts` with DEVSERVER_DATABASE_URL, DEVSERVER_PORT,
 * DEVSERVER_BUNDLE (a workflow bundle file) and DEVSERVER_TASK_QUEUE. Prints `ready <address>` once serving.
 */
import { readFile } from 'node:fs/promises';
import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../src/index.js';
import * as activities from './fixtures/durable-activities.js';

Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
});
const server = await startDevServer({
  port: Number(process.env.DEVSERVER_PORT ?? 0),
  databaseUrl: process.env.DEVSERVER_DATABASE_URL!,
  log: (line, level) => level === 'warn' && console.error(`[devserver] ${line}`),
});
const connection = await NativeConnection.connect({ address: server.address });
const worker = await Worker.create({
  connection,
  taskQueue: process.env.DEVSERVER_TASK_QUEUE!,
  workflowBundle: { code: await readFile(process.env.DEVSERVER_BUNDLE!, 'utf8') },
  activities,
});
const running = worker.run();
process.stdout.write(`ready ${server.address}\n`);
process.once('SIGTERM', () => {
  worker.shutdown();
  void running.then(() => server.close()).then(() => process.exit(0));
});
await running;
