/**
 * The topology campaign's outages (a process killed until it is back, PostgreSQL or Temporal stopped until started
 * again) and the longest an order stood still during one: its **stall**, the time between the bots' first read of
 * the order in a state and their first read of it in the next, counted while the order is in the engine's hands (not
 * waiting for a person: AWAITING_APPROVAL and BUY_UNCERTAIN are not counted, nor a final state) and only when an
 * outage was on at some moment of it.
 */
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import type { ChaosOrder, SeenStatus } from './orders.js';

export interface Outage {
  /** `worker 1 killed`, `Temporal stopped`. */
  what: string;
  from: number;
  /** When it was over (the process ready again); none while it lasts. */
  to?: number;
}

export interface Stall {
  ms: number;
  ticketId: string;
  state: OrderState;
  /** The outages on during it. */
  outages: string[];
}

const WAITING_FOR_PEOPLE: ReadonlySet<OrderState> = new Set(['AWAITING_APPROVAL', 'BUY_UNCERTAIN']);

export class OutageLog {
  readonly outages: Outage[] = [];
  longestStall: Stall | undefined;

  begin(what: string): Outage {
    const outage: Outage = { what, from: Date.now() };
    this.outages.push(outage);
    return outage;
  }

  end(outage: Outage): void {
    outage.to = Date.now();
  }

  /** For the bots' `onRead`: an order seen in a new state ends the stretch it stood in the last one. */
  onRead(order: ChaosOrder, status: SeenStatus): void {
    if (order.status && order.stateSince !== undefined && status.state !== order.status.state)
      this.#measure(order.ticketId, order.status.state, order.stateSince, Date.now());
  }

  /** The stretches still open when the campaign ends (orders left where they were). */
  finish(orders: readonly ChaosOrder[]): void {
    for (const order of orders)
      if (order.status && order.stateSince !== undefined)
        this.#measure(order.ticketId, order.status.state, order.stateSince, Date.now());
  }

  #measure(ticketId: string, state: OrderState, from: number, to: number): void {
    if (WAITING_FOR_PEOPLE.has(state) || FINAL_STATES.has(state)) return;
    if (this.longestStall && to - from <= this.longestStall.ms) return;
    const during = this.outages.filter((outage) => outage.from < to && (outage.to ?? Infinity) > from);
    if (during.length) this.longestStall = { ms: to - from, ticketId, state, outages: during.map((o) => o.what) };
  }
}

/** `worker 1 killed ×2, Temporal stopped`. */
export function outageNames(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(', ');
}
