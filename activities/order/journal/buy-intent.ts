import { RepositoryError } from '../../../infra/db/index.js';
import type { EntryOf, EntryTarget } from './types.js';

/**
 * A buy attempt's intent, the write-ahead record of its request. A retry of this very write finds its own intent,
 * still open. One of another run, or one that has ended, belongs to an earlier run of the same order (the records
 * outlive Temporal's memory): buying could buy twice, so it is refused.
 */
export async function writeBuyIntent({ records, run }: EntryTarget, entry: EntryOf<'buy-intent'>): Promise<void> {
  const { recorded, attempt } = await records.recordBuyIntent({
    workflowId: run.workflowId,
    attempt: entry.attempt,
    ...(run.runId ? { runId: run.runId } : {}),
    at: new Date(entry.at),
  });
  if (recorded) return;
  const anotherRun = attempt.runId !== null && run.runId !== undefined && attempt.runId !== run.runId;
  if (attempt.outcome === null && !anotherRun) return;
  const earlier =
    attempt.outcome === null
      ? `was begun by another run (${attempt.runId}) and may have been sent`
      : `already ended as ${attempt.outcome} (at ${attempt.finishedAt})`;
  throw new RepositoryError('conflict', `buy attempt ${entry.attempt} of this order ${earlier}; not buying again`);
}
