import type { Client } from '@temporalio/client';

/** The p-th percentile of values sorted ascending (the value below which p % of them fall). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `task` `total` times (given 0, 1, …), at most `concurrency` at once. */
export async function pool(total: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/**
 * Runs `total` one-activity workflows (`oneActivityWorkflow`: this package's fixtures/workflows.ts, or the app's
 * bench/fixtures/one-activity-workflow.ts) with `concurrency` at a time and returns workflows per second and the
 * p50/p99 of start-to-result latency. Exported as `@mve-orders/devserver/bench` for the app's benches.
 */
export async function throughput(client: Client, taskQueue: string, concurrency: number, total: number, label: string) {
  const latencies: number[] = [];
  const startedAt = performance.now();
  await pool(total, concurrency, async (i) => {
    const t0 = performance.now();
    await client.workflow.execute('oneActivityWorkflow', { taskQueue, workflowId: `${label}-${i}`, args: ['x'] });
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
