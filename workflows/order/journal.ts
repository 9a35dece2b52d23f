import { CancellationScope } from '@temporalio/workflow';
import type { JournalEntry } from './activity-types.js';

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
    return this.handOff(async (batch) => {
      if (batch.length) await this.write(batch);
      return { value: undefined, written: true };
    });
  }

  /**
   * Hands what was pushed so far to a step that writes it itself before it acts (the buy's write-ahead), in turn
   * with the flushes. When the step did not write it (it could not, or it did not report), the batch is written
   * here before any later flush; resolves with the step's value once the batch is written.
   */
  handOff<T>(step: (batch: JournalEntry[]) => Promise<{ value: T; written: boolean }>): Promise<T> {
    const batch = this.pending;
    this.pending = [];
    const done = this.last.then(() =>
      shielded(async () => {
        const { value, written } = await step(batch);
        if (!written && batch.length) await this.write(batch);
        return value;
      }),
    );
    // The next flush waits for this one, whether it was refused or not.
    this.last = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }
}

/**
 * Runs `work` where no cancel of the order reaches it: in the current scope when that is already shielded (the buy
 * runs in one), else in a new non-cancellable scope. A scope costs the workflow thread several promises, each of
 * which the SDK gives a stack trace.
 */
function shielded<T>(work: () => Promise<T>): Promise<T> {
  return CancellationScope.current().cancellable ? CancellationScope.nonCancellable(work) : work();
}
