/**
 * The server's clock and its timers. Every server-side deadline (timers, timeouts, retry backoff) is
 * scheduled here, so that with time skipping the clock can jump straight to the next deadline.
 *
 * Time skipping follows the Java test server's model: time is skipped only while it is "unlocked" and the
 * server is idle (no workflow or activity task in the hands of a worker). It is unlocked while the
 * TestService lock count is zero, or while a client waits for a workflow result.
 */
import { PriorityQueue } from './priority-queue.js';
import type { HeapEntry } from './priority-queue.js';

export type TimerId = number;

interface Timer {
  id: TimerId;
  at: number;
  fire: () => void;
}

/** A NaN deadline is never due: it sorts last, so the heap's order stays total. */
const dueOrder = (timer: Timer) => (Number.isNaN(timer.at) ? Infinity : timer.at);

/** Earliest first; timers due at the same time fire in the order they were set (ids grow). */
function firesBefore(a: Timer, b: Timer): boolean {
  const x = dueOrder(a);
  const y = dueOrder(b);
  return x < y || (x === y && a.id < b.id);
}

export class Clock {
  private offsetMs = 0;
  /** A heap, so that setting or cancelling a timer costs O(log n) however many are pending (parked workflows). */
  private readonly timers = new PriorityQueue<Timer>(firesBefore);
  private readonly pending = new Map<TimerId, HeapEntry<Timer>>();
  private nextId = 1;
  private handle: NodeJS.Timeout | undefined;
  private skipScheduled = false;
  private closed = false;

  /** Returns true when nothing is in flight, so that jumping to the next deadline changes no outcome. */
  isIdle: () => boolean = () => false;
  /** Called after each timer fires (the history limits check what it changed). */
  afterFire: () => void = () => {};

  constructor(
    readonly timeSkipping: boolean,
    private readonly onError: (error: unknown) => void,
  ) {}

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** How far server time is ahead of real time (time skipping); a durable store keeps it across restarts. */
  readonly offset = {
    get: (): number => this.offsetMs,
    set: (ms: number): void => {
      if (ms > this.offsetMs) this.offsetMs = ms;
    },
  };

  at(atMs: number, fire: () => void): TimerId {
    const timer = { id: this.nextId++, at: atMs, fire };
    this.pending.set(timer.id, this.timers.push(timer));
    if (this.timers.peek() === timer) this.arm();
    this.requestSkip();
    return timer.id;
  }

  after(delayMs: number, fire: () => void): TimerId {
    return this.at(this.now() + delayMs, fire);
  }

  cancel(id: TimerId | undefined): void {
    if (id === undefined) return;
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    const wasNext = this.timers.peek() === entry.value;
    this.timers.remove(entry);
    if (wasNext) this.arm();
  }

  nextDeadline(): number | undefined {
    return this.timers.peek()?.at;
  }

  /** Moves the clock forward (never back) and fires what fell due. */
  advanceTo(targetMs: number): void {
    if (targetMs > this.now()) this.offsetMs += targetMs - this.now();
    this.fireDue();
  }

  /** With time skipping on, asks for a jump to the next deadline once the server is idle. */
  requestSkip(): void {
    if (!this.timeSkipping || this.skipScheduled || this.closed) return;
    this.skipScheduled = true;
    setImmediate(() => {
      this.skipScheduled = false;
      const next = this.timers.peek();
      if (!next || this.closed || !this.isIdle()) return;
      this.advanceTo(next.at);
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.handle);
    this.timers.clear();
    this.pending.clear();
  }

  private arm(): void {
    clearTimeout(this.handle);
    this.handle = undefined;
    const next = this.timers.peek();
    if (!next || this.closed) return;
    const delay = Math.min(Math.max(0, next.at - this.now()), 2 ** 31 - 1);
    this.handle = setTimeout(() => this.fireDue(), delay);
  }

  private fireDue(): void {
    const now = this.now();
    for (let timer = this.timers.peek(); timer && timer.at <= now; timer = this.timers.peek()) {
      this.timers.pop();
      this.pending.delete(timer.id);
      try {
        timer.fire();
        this.afterFire();
      } catch (error) {
        this.onError(error);
      }
    }
    this.arm();
    this.requestSkip();
  }
}
