import { CancellationScope } from '@temporalio/workflow';
import type { JournalEntry } from '../../activities/order/types.js';

/**
 * The order's journal on its way to Postgres. Entries wait in the workflow until the order flushes them — when it
 * is about to wait, before a buy (write-ahead), and at the end — so one activity records a whole step.
 * Flushes go out one after another, in order, each with everything pushed before it. Writing is not cancellable:
 * a cancelled order still records why it ended.
 */
export class Journal {
  private pending: JournalEntry[] = [];
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly write: (entries: JournalEntry[]) => Promise<void>) {}

  push(entry: JournalEntry): void {
    this.pending.push(entry);
  }

  /** True when every entry pushed has been handed to a flush. */
  get empty(): boolean {
    return this.pending.length === 0;
  }

  /**
   * Writes what was pushed so far, after any earlier flush; resolves once it is written. Rejects only when the
   * records refuse the batch for good (a refused buy intent); a database that is down is retried meanwhile.
   */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const written = this.last.then(() => (batch.length ? CancellationScope.nonCancellable(() => this.write(batch)) : undefined));
    // The next flush waits for this one, whether it was refused or not.
    this.last = written.catch(() => undefined);
    return written;
  }
}
