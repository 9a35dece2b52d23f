/**
 * The baseline of the benches: plain Temporal's cost, a workflow that runs one activity (fixtures/
 * one-activity-workflow.ts) with plain payloads, on the server the bench measures and in the same worker runtime.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { percentile, pool } from './stats.js';

export const ONE_ACTIVITY_QUEUE = 'bench-one-activity';

let bundle: Promise<WorkflowBundle> | undefined;

/** A worker for the one-activity workflow on the server at `address`, running until stopped. */
export async function startOneActivityWorker(address: string): Promise<{ stop(): Promise<void> }> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./fixtures/one-activity-workflow.ts', import.meta.url)),
    logger: new DefaultLogger('ERROR'),
  });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue: ONE_ACTIVITY_QUEUE,
    workflowBundle: await bundle,
    activities: { echo: (text: string) => Promise.resolve(text) },
  });
  const running = worker.run();
  return {
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

export interface OneActivityFigures {
  concurrency: number;
  workflows: number;
  perSecond: number;
  /** Start-to-result latency, ms. */
  p50: number;
  p99: number;
}

/**
 * Runs `total` one-activity workflows, `concurrency` at a time (a new one as each ends): workflows per second and the
 * p50/p99 of start-to-result latency. `label` keeps workflow ids apart between rounds on one server.
 */
export async function runOneActivityWorkflows(
  client: Client,
  concurrency: number,
  total: number,
  label: string,
): Promise<OneActivityFigures> {
  const latencies: number[] = [];
  const startedAt = performance.now();
  await pool(total, concurrency, async (i) => {
    const t0 = performance.now();
    await client.workflow.execute('oneActivityWorkflow', {
      taskQueue: ONE_ACTIVITY_QUEUE,
      workflowId: `${label}-${i}`,
      args: ['x'],
    });
    latencies.push(performance.now() - t0);
  });
  const seconds = (performance.now() - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    workflows: total,
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
