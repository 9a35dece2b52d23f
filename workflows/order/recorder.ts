import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type {
  ApproverMessage,
  ErrorSummary,
  JournalEntry,
  QuoteRecord,
  TicketNoteDetails,
  TicketNoteEvent,
} from './activity-types.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { ApprovalVote } from '../../domain/approval/index.js';
import { journaling } from './activities.js';
import { ApproverNotifier } from './approver-notifier.js';
import { summarise } from './failures.js';
import type { Signed } from './signed-action.js';
import { Journal } from './journal.js';
import { advance, type OrderProgress } from './progress.js';
import { SearchAttributeChanges } from './search-attribute-changes.js';
import { MONTHLY_RATE, ORDER_STATUS } from './search-attributes.js';
import { TicketNotifier } from './ticket-notifier.js';
import type { OrderIdentity, OrderWorkflowInput } from './types.js';

export const ENGINE = 'engine';
/** How long an order that has ended waits for the ticket system to take its last notifications. */
const FINAL_NOTIFICATION_WAIT_MS = 5 * 60 * 1000;

/**
 * Everything the order says about itself goes through here: each change of the progress is journaled for
 * Postgres, told to the ticket system and the approvers when they listen, and shown in the search attributes.
 * Journal and search attributes are sent together at checkpoints, when the order is about to wait, so a step
 * costs one record and one upsert however many changes it made.
 */
export class OrderRecorder {
  readonly journal: Journal;
  private readonly ticket: TicketNotifier;
  private readonly approvers: ApproverNotifier;
  private readonly searchAttributes = new SearchAttributeChanges();
  /** Sequence numbers a step in flight will give the entries it writes itself (see `reserve`). */
  private reservation: { after: number; count: number } | undefined;
  /** The latest time a step stamped the entries it wrote itself (see `now`). */
  private stampedUpTo = 0;

  constructor(
    readonly input: OrderWorkflowInput,
    readonly progress: OrderProgress,
    readonly identity: OrderIdentity,
  ) {
    // Only the entries: the activity knows its run from its context, and reads the request from the run's input.
    this.journal = new Journal((entries) => journaling.recordJournal({ entries }));
    // What was not delivered is noted while the order may be waiting: recorded now, not at the next step.
    this.ticket = new TicketNotifier(input, (message) => {
      this.note(ENGINE, message);
      this.checkpoint();
    });
    this.approvers = new ApproverNotifier(input, identity, (message, details) => {
      this.note(ENGINE, message, details);
      this.checkpoint();
    });
  }

  /** Starts telling approvers, when the workers have a webhook for them (known once the policy is read). */
  listenForApprovers(): void {
    this.approvers.listen(this.progress);
  }

  /**
   * The time to stamp what the order does now with: the workflow's clock, but never before an entry a step stamped
   * itself. The workflow's clock stands at the start of its task while a local activity runs in it, so the buy's own
   * entries (stamped when the MVE was created) would otherwise be later than what the workflow does next, and the
   * timeline would run backwards. Only stamps read it: decisions keep the workflow's clock (Date.now()), so a
   * history recorded before replays the same.
   */
  now(): number {
    return Math.max(Date.now(), this.stampedUpTo);
  }

  private nextSeq(): number {
    // Entries made while a step holds a reservation (a note from an outbox) are numbered past it.
    this.passReservation();
    return ++this.progress.seq;
  }

  private passReservation(): void {
    if (this.reservation && this.progress.seq === this.reservation.after) this.progress.seq += this.reservation.count;
  }

  /**
   * Sets aside the next `count` sequence numbers for a step that writes entries itself (the buy records a created
   * MVE), and returns the number they follow. `adopt` takes the step's entries; `release` gives the numbers back when
   * it wrote none (they are then used as usual, unless something else was numbered meanwhile), and `skipReserved`
   * sets them aside for good when it may have.
   */
  reserve(count: number): number {
    this.reservation = { after: this.progress.seq, count };
    return this.progress.seq;
  }

  release(): void {
    this.reservation = undefined;
  }

  /**
   * Ends a reservation whose step may have written entries in it without reporting them (a run of the buy that was
   * lost): its numbers are never used again, so what is journaled next cannot be taken for those entries and dropped.
   */
  skipReserved(): void {
    this.passReservation();
    this.reservation = undefined;
  }

  /**
   * The entries a step made itself in its reservation: the progress follows them as if they were recorded here
   * (transitions move the state, a product is the order's), and they are journaled only when the step did not
   * write them.
   */
  adopt(entries: JournalEntry[], written: boolean): void {
    const reservation = this.reservation;
    this.reservation = undefined;
    for (const entry of entries) {
      if (!reservation || entry.seq <= reservation.after || entry.seq > reservation.after + reservation.count) {
        throw new Error(`journal entry ${entry.seq} (${entry.type}) is outside the sequence numbers reserved for it`);
      }
      this.stampedUpTo = Math.max(this.stampedUpTo, entry.at);
      this.follow(entry, written);
    }
  }

  moveTo(to: OrderState, actor: string, reason: string, details?: Record<string, unknown>): void {
    const transition = {
      type: 'transition',
      seq: this.nextSeq(),
      at: this.now(),
      from: this.progress.state,
      to,
      actor,
      reason,
    } as const;
    this.follow(details ? { ...transition, details } : transition, false);
  }

  /** Applies an entry to the progress (and the search attributes and the ticket system), journaling it unless written. */
  private follow(entry: JournalEntry, written: boolean): void {
    if (entry.type === 'transition') {
      advance(this.progress, entry.to, entry.actor, entry.reason, entry.at, entry.seq);
      this.setSearchAttribute({ key: ORDER_STATUS, value: entry.to });
    } else {
      this.progress.seq = Math.max(this.progress.seq, entry.seq);
      if (entry.type === 'product') this.progress.product = entry.product;
    }
    if (!written) this.journal.push(entry);
    if (entry.type === 'transition') this.notify(entry.seq);
  }

  note(actor: string, message: string, details?: Record<string, unknown>): void {
    this.journal.push({
      type: 'note',
      seq: this.nextSeq(),
      at: this.now(),
      actor,
      message,
      ...(details ? { details } : {}),
    });
  }

  record(entry: DistributiveOmit<JournalEntry, 'seq' | 'at'>): void {
    this.journal.push({ ...entry, seq: this.nextSeq(), at: this.now() });
  }

  recordQuote(quote: QuoteRecord): void {
    this.progress.quotes.push(quote);
    this.record({ type: 'quote', quoteNumber: this.progress.quotes.length, quote });
    this.setSearchAttribute({ key: MONTHLY_RATE, value: quote.monthlyRate });
  }

  /** `signed`: the vote as the HTTP API signed it, which the records check again. */
  recordVote(vote: ApprovalVote, quoteNumber: number, signed: Signed<object>): void {
    this.record({
      type: 'vote',
      quoteNumber,
      approverId: vote.approverId,
      decision: vote.decision,
      monthlyRate: vote.monthlyRate,
      currency: vote.currency,
      ...(vote.comment !== undefined ? { comment: vote.comment } : {}),
      signed,
    });
  }

  /** Shows the error on the order (status and records). */
  setLastError(summary: ErrorSummary): void {
    this.progress.lastError = { ...summary, at: new Date(this.now()).toISOString() };
    this.record({ type: 'error', message: summary.message });
  }

  noteError(error: unknown, context: string): ErrorSummary {
    const summary = summarise(error, context);
    this.setLastError(summary);
    return summary;
  }

  /** Tells the ticket system (when it gave a callback URL) of the change journaled at `seq`. */
  notify(seq: number): void {
    this.ticket.notify(seq);
  }

  /**
   * Notes `message` and tells the ticket system of it as `event`: the note's details say so, since the notification is
   * built from the records.
   */
  noteAndNotify(actor: string, event: TicketNoteEvent, message: string, details?: Record<string, unknown>): void {
    const told: TicketNoteDetails = { ticketEvent: event };
    this.note(actor, message, { ...details, ...told });
    this.notify(this.progress.seq);
  }

  /** Tells approvers (through the workers' webhook, when they have one) that the round waits for them. */
  tellApprovers(event: ApproverMessage['event']): void {
    this.approvers.tell(this.progress, event);
  }

  setSearchAttribute(pair: SearchAttributeUpdatePair): void {
    this.searchAttributes.set(pair);
  }

  /** The order is about to wait: its search attributes are published and its journal written meanwhile. */
  checkpoint(): void {
    this.searchAttributes.publish();
    // Only a buy intent can be refused for good, and those are written with `writeAhead`.
    this.journal.flush().catch(() => undefined);
  }

  /** Like a checkpoint, but resolves only once the journal is in Postgres (the buy's write-ahead rule). */
  writeAhead(): Promise<void> {
    this.searchAttributes.publish();
    return this.journal.flush();
  }

  /**
   * The write-ahead rule, carried by the step itself: the search attributes are published, and the journal so far
   * is handed to `step` (the buy), which writes it before it acts (see `Journal.handOff`).
   */
  writeAheadWith<T>(step: (journal: JournalEntry[]) => Promise<{ value: T; written: boolean }>): Promise<T> {
    this.searchAttributes.publish();
    return this.journal.handOff(step);
  }

  /**
   * The order has ended: the ticket system gets a few minutes to take its last notifications, then the records are
   * written. `recordsFirst` (`RunChanges.writesRecordsBeforeLastNotifications`): they are written before that wait too,
   * since the notifications are built from them.
   */
  async close(recordsFirst: boolean): Promise<void> {
    if (recordsFirst) this.checkpoint();
    // Without a callback URL nothing is ever sent to a ticket system, so there is nothing to wait for. (A check of the
    // outbox itself would not do: whether its last send has been counted yet depends on how the workflow task's jobs
    // are ordered, which a replay need not repeat. The wait's timer and promises cost the workflow thread dearly.)
    if (this.ticket.listening && !(await this.ticket.flushWithin(FINAL_NOTIFICATION_WAIT_MS))) {
      this.note(
        ENGINE,
        `the order ended with ${this.ticket.unsent} notification(s) the ticket system did not take; see the timeline for what changed`,
      );
    }
    await this.writeAhead();
  }

  /** True when nothing is waiting to be sent to the ticket system or approvers (a new run could not take it along). */
  get outboxesIdle(): boolean {
    return this.ticket.unsent === 0 && this.approvers.unsent === 0;
  }

  /** True when nothing at all is unsent: no message, no journal entry, no search attribute change. */
  get quiet(): boolean {
    return this.outboxesIdle && this.journal.empty && this.searchAttributes.empty;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
