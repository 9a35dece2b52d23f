import { CancellationScope, condition, sleep } from '@temporalio/workflow';

/**
 * An ordered, durable queue inside a workflow: items are handed to `send` in the order they were pushed,
 * in batches, by a loop that runs beside the order's main flow. The order never waits on Postgres or the
 * ticket system except where it must (`flush`, before a buy and at the end). The loop is not cancellable:
 * a cancelled order still records why it ended.
 */
export class Outbox<T> {
  private readonly pending: T[] = [];
  private sending = 0;

  constructor(
    private readonly send: (batch: T[]) => Promise<void>,
    private readonly options: {
      maxBatch: number;
      /** A batch `send` gave up on: `requeue` keeps it (in order) and waits `retryAfterMs`; `drop` moves on. */
      onFailure: (error: unknown, batch: T[]) => 'requeue' | 'drop';
      retryAfterMs: number;
    },
  ) {}

  start(): void {
    void CancellationScope.nonCancellable(() => this.drain());
  }

  push(item: T): void {
    this.pending.push(item);
  }

  /** Resolves once everything pushed so far has been sent (or dropped). */
  async flush(): Promise<void> {
    await CancellationScope.nonCancellable(() => condition(() => this.idle()));
  }

  /** Waits for a flush at most `timeoutMs`; true when everything was sent, false when some is still pending. */
  async flushWithin(timeoutMs: number): Promise<boolean> {
    return CancellationScope.nonCancellable(() => condition(() => this.idle(), timeoutMs));
  }

  /** How many items are not yet sent (queued, in flight, or waiting to be tried again). */
  get unsent(): number {
    return this.pending.length + this.sending;
  }

  private idle(): boolean {
    return this.pending.length === 0 && this.sending === 0;
  }

  private async drain(): Promise<void> {
    for (;;) {
      await condition(() => this.pending.length > 0);
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.sending = batch.length;
      let failure: { error: unknown } | undefined;
      try {
        await this.send(batch);
      } catch (error) {
        failure = { error };
      }
      this.sending = 0;
      if (failure && this.options.onFailure(failure.error, batch) === 'requeue') {
        this.pending.unshift(...batch);
        await sleep(this.options.retryAfterMs);
      }
    }
  }
}
