import type { TicketNotification } from './activity-types.js';
import { callbacks } from './activities.js';
import { summarise } from './failures.js';
import { Outbox } from './outbox.js';
import { currentQuote, type OrderProgress } from './progress.js';
import type { OrderIdentity, OrderWorkflowInput } from './types.js';

/**
 * Tells the ticket system of each change, in order, when it gave a callback URL: one signed callback per change,
 * sent beside the order's flow. A callback the ticket system does not take is given up (and `onUndelivered` says so).
 */
export class TicketNotifier {
  private readonly outbox: Outbox<TicketNotification>;

  constructor(
    private readonly input: OrderWorkflowInput,
    private readonly identity: OrderIdentity,
    onUndelivered: (message: string) => void,
  ) {
    const { callbackUrl } = input.request;
    this.outbox = new Outbox<TicketNotification>(
      async ([notification]) => {
        if (callbackUrl && notification) await callbacks.notifyTicketSystem({ callbackUrl, notification });
      },
      {
        maxBatch: 1,
        retryAfterMs: 0,
        onFailure: (error, [notification]) => {
          const summary = summarise(error, 'the notification could not be sent');
          onUndelivered(`the ticket system did not accept notification ${notification?.seq}: ${summary.message}`);
          return 'drop';
        },
      },
    );
    if (callbackUrl) this.outbox.start();
  }

  /** Whether the ticket system listens at all: without a callback URL nothing is ever sent, or waited for. */
  get listening(): boolean {
    return this.input.request.callbackUrl !== undefined;
  }

  notify(progress: OrderProgress, event: string, message: string): void {
    const { request } = this.input;
    if (!request.callbackUrl) return;
    const quote = currentQuote(progress);
    this.outbox.push({
      workflowId: this.identity.workflowId,
      ticketId: request.ticketId,
      seq: progress.seq,
      at: new Date(Date.now()).toISOString(),
      state: progress.state,
      event,
      message,
      ...(quote ? { quote: { monthlyRate: quote.monthlyRate, currency: quote.currency } } : {}),
      ...(progress.product ? { product: progress.product } : {}),
    });
  }

  /** Waits at most `ms` for the ticket system to take what is pending; true when it took everything. */
  flushWithin(ms: number): Promise<boolean> {
    return this.outbox.flushWithin(ms);
  }

  get unsent(): number {
    return this.outbox.unsent;
  }
}
