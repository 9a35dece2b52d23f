/** The small arithmetic every bench shares: percentiles of timings, and work kept in flight at a set concurrency. */

/** The p-th percentile of values sorted ascending (the value below which p % of them fall). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The median of values in any order. */
export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Runs `task` `total` times (given 0, 1, …), at most `concurrency` at once: a new one as each ends. */
export async function pool(total: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
}
