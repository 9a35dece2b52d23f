/**
 * Devserver figures with the real SDK client and worker on loopback: workflows per second and start-to-result
 * latency (p50/p99) of a one-activity workflow at 1, 10 and 100 concurrent starts, and the server's heap per
 * 1,000 open workflows.
 * Run: npm run bench:devserver   (in the package: npm run bench; node --expose-gc --import tsx bench/in-memory.ts)
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
import { throughput } from './throughput.js';

const TASK_QUEUE = 'bench-devserver';
const RUNS: { concurrency: number; workflows: number }[] = [
  { concurrency: 1, workflows: 100 },
  { concurrency: 10, workflows: 500 },
  { concurrency: 100, workflows: 1000 },
];
const OPEN_WORKFLOWS = 1000;

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:devserver does)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
  const server = await startDevServer({ port: 0 });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url)),
    logger: new DefaultLogger('ERROR'),
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle,
    activities: { echo: async (text: string) => text },
  });
  const running = worker.run();

  await throughput(client, TASK_QUEUE, 10, 50, 'warmup');
  const rows = [];
  for (const run of RUNS)
    rows.push(await throughput(client, TASK_QUEUE, run.concurrency, run.workflows, `c${run.concurrency}`));

  // open workflows: each has run its first workflow task and waits for a signal
  const before = heapAfterGc();
  const handles = [];
  for (let i = 0; i < OPEN_WORKFLOWS; i += 100) {
    handles.push(
      ...(await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          client.workflow.start('openWorkflow', { taskQueue: TASK_QUEUE, workflowId: `open-${i + j}` }),
        ),
      )),
    );
  }
  while (
    (await client.workflow.count(`WorkflowType = 'openWorkflow' AND ExecutionStatus = 'Running'`)).count <
    OPEN_WORKFLOWS
  )
    await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1000)); // let the first workflow tasks complete
  const after = heapAfterGc();

  console.log('devserver benchmark: one-activity workflow, SDK 1.24 client + worker in this process, loopback');
  console.log('concurrency  workflows  workflows/s   p50 ms   p99 ms');
  for (const r of rows)
    console.log(
      `${String(r.concurrency).padStart(11)}  ${String(r.workflows).padStart(9)}  ${r.perSecond.toFixed(1).padStart(11)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}`,
    );
  console.log(
    `server heap per 1,000 open workflows: ${((after - before) / 1024 / 1024 / (OPEN_WORKFLOWS / 1000)).toFixed(1)} MiB (heap used after GC, ${OPEN_WORKFLOWS} open workflows)`,
  );

  await Promise.all(handles.map((h) => h.terminate('benchmark over')));
  worker.shutdown();
  await running;
  await connection.close();
  await nativeConnection.close();
  await server.close();
}

await main();
