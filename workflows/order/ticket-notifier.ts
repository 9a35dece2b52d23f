import { callbacks } from './activities.js';
import { summarise } from './failures.js';
import { Outbox } from './outbox.js';
import type { OrderWorkflowInput } from './types.js';

/**
 * Tells the ticket system of each change, in order, when it gave a callback URL: one signed callback per change,
 * sent beside the order's flow. Each names its change by journal sequence number only: the activity builds the
 * notification, and finds where it goes, in the order's records. A callback the ticket system does not take is given
 * up (and `onUndelivered` says so).
 */
export class TicketNotifier {
  private readonly outbox: Outbox<number>;

  constructor(
    private readonly input: OrderWorkflowInput,
    onUndelivered: (message: string) => void,
  ) {
    this.outbox = new Outbox<number>(
      async ([seq]) => {
        if (seq !== undefined) await callbacks.notifyTicketSystem({ seq });
      },
      {
        maxBatch: 1,
        retryAfterMs: 0,
        onFailure: (error, [seq]) => {
          const summary = summarise(error, 'the notification could not be sent');
          onUndelivered(`the ticket system did not accept notification ${seq}: ${summary.message}`);
          return 'drop';
        },
      },
    );
    if (this.listening) this.outbox.start();
  }

  /** Whether the ticket system listens at all: without a callback URL nothing is ever sent, or waited for. */
  get listening(): boolean {
    return this.input.request.callbackUrl !== undefined;
  }

  /** Tells the ticket system of the change journaled at `seq`. */
  notify(seq: number): void {
    if (this.listening) this.outbox.push(seq);
  }

  /** Waits at most `ms` for the ticket system to take what is pending; true when it took everything. */
  flushWithin(ms: number): Promise<boolean> {
    return this.outbox.flushWithin(ms);
  }

  get unsent(): number {
    return this.outbox.unsent;
  }
}
