import { withinTime } from '../../../../infra/within-time.js';
import type { JournalWriter } from '../../journal/index.js';
import type { RunReference } from '../../order-requests.js';
import type { JournalEntry } from '../../../../workflows/order/activity-types.js';

/**
 * How long the buy waits for its journal to be written before it gives up and sends nothing (well within its
 * workflow task's timeout): the workflow then writes the journal with its own, retried activity and buys after it.
 */
const BUY_JOURNAL_TIMEOUT_MS = 10_000;

/** The buy's journal writes, which give up after `BUY_JOURNAL_TIMEOUT_MS`. */
export function writeJournalInTime(
  writeJournal: JournalWriter,
  run: RunReference,
  entries: JournalEntry[],
): Promise<void> {
  return withinTime(writeJournal(run, entries), BUY_JOURNAL_TIMEOUT_MS, 'the journal was not written in time');
}
