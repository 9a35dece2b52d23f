import { RepositoryError, type OrdersRepository } from '../../../infra/db/index.js';
import type { JournalEntry } from '../../../workflows/order/activity-types.js';
import { fit } from './record-values.js';
import { segments, writeSegment, type EntryWritten } from './segments.js';
import type { JournalRun, JournalWriter, JournalWriterDeps } from './types.js';

/**
 * The records refused a buy intent: the attempt belongs to another run, or has ended. The write-ahead record did not
 * happen, so the buy must not be sent.
 */
export class BuyIntentRefused extends Error {
  override name = 'BuyIntentRefused';
}

/**
 * Writes the workflow's journal to Postgres, in order: the writes of a batch go out together on one connection, one
 * round trip instead of one each, and PostgreSQL runs them one after another as sent. Every write is keyed by what the
 * workflow chose (sequence, quote number, attempt), so a batch written again changes nothing already written.
 * Values are fitted to the records at this boundary (long texts cut with a marker, money to 6 decimals,
 * currencies upper case, an empty status as UNKNOWN). A write still refused is a bug retrying cannot fix: it is
 * recorded as the order's last error and the batch goes on, so no refusal can hold up an order (the buy waits
 * on its journal) — except a refused buy intent, which ends the batch with `BuyIntentRefused`. A database that
 * is down throws its own error (worth retrying).
 */
export function createJournalWriter(deps: JournalWriterDeps): JournalWriter {
  return async (run, entries) => {
    await deps.repository.withOneConnection(async (records) => {
      for (const segment of segments(entries)) {
        // Started together on one connection: PostgreSQL gets them in one round trip and runs them in order.
        const outcomes = await writeSegment({ records, run, deps }, segment);
        const { refused, intentRefused } = refusals(segment, outcomes);
        if (refused) await showRefusal(records, run, segment, refused);
        if (intentRefused) throw intentRefused;
      }
    });
  };
}

/** The last write of a segment the records refused, and its refused buy intent; a database that is down is thrown. */
function refusals(segment: JournalEntry[], outcomes: EntryWritten[]) {
  let refused: { at: number; message: string } | undefined;
  let intentRefused: BuyIntentRefused | undefined;
  for (const [index, outcome] of outcomes.entries()) {
    if (!outcome) continue;
    const entry = segment[index];
    if (!(outcome.error instanceof RepositoryError)) throw outcome.error; // the database is down: worth retrying
    const message = fit(
      `the record of journal entry ${entry.seq} (${entry.type}) was refused: ${outcome.error.message}`,
      4000,
    );
    // An intent ends its segment: the batch ends with it, once what came before is recorded.
    if (entry.type === 'buy-intent') intentRefused = new BuyIntentRefused(message);
    else refused = { at: index, message };
  }
  return { refused, intentRefused };
}

/**
 * A refusal shown on the order, unless an error entry after it set the last error (written one by one, it would have
 * replaced it); if even that is refused (no order row), the refusal cannot be recorded anywhere.
 */
async function showRefusal(
  records: OrdersRepository,
  run: JournalRun,
  segment: JournalEntry[],
  refused: { at: number; message: string },
): Promise<void> {
  if (segment.slice(refused.at + 1).some((entry) => entry.type === 'error')) return;
  await records
    .recordLastError({ workflowId: run.workflowId, error: refused.message, at: new Date() })
    .catch((second: unknown) => {
      if (!(second instanceof RepositoryError)) throw second;
    });
}
