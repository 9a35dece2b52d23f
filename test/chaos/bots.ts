/**
 * The campaigns' people, as bots: the ticket system submits each order when its moment comes and reads it; approvers
 * vote on the quote they are shown (fiona, and dave for the two-approver tier); ops settle every BUY_UNCERTAIN order
 * from the products the simulator (the provider) shows. Where their calls go is the desk's business: the engine's
 * own clients (campaign.ts) or the HTTP API (topology-campaign.ts).
 */
import { FINAL_STATES } from '../../domain/lifecycle/index.js';
import { productNameFor, withTimeout } from '../orders/fixtures/restart-env.js';
import type { ChaosOrder, SeenStatus } from './orders.js';
import { sleep } from './random.js';
import type { ChaosTally } from './report.js';

/** Who the approval bot votes as, in order: one approver for the team tier, both for the finance tier. */
const BOT_APPROVERS = ['fiona', 'dave'] as const;
/** Ops wait this long before saying "not created" (longer than any latency armed on buy, faults.ts). */
const OPS_SETTLE_MS = 12_000;
/** How long an action may hold its order before the bots may try it again. */
const ACTION_TIMEOUT_MS = 15_000;

export type BuyResolution =
  { outcome: 'created'; technicalServiceUid: string; note: string } | { outcome: 'not-created'; note: string };

/** Where the bots' calls go. Every method throws when the call did not get through. */
export interface OrderDesk {
  /** The ticket system sends the ticket; resolves once the engine has taken it. */
  submit(order: ChaosOrder): Promise<void>;
  /** The order as it can be read now; undefined when it cannot be had. */
  status(ticketId: string): Promise<SeenStatus | undefined>;
  /** Resolves to `taken`, or `already counted` when an earlier attempt of the same vote had been. */
  approve(
    ticketId: string,
    approverId: string,
    quote: { monthlyRate: number; currency: string },
    status: SeenStatus,
  ): Promise<'taken' | 'already counted'>;
  resolveBuy(ticketId: string, resolution: BuyResolution, status: SeenStatus): Promise<void>;
  /** The products the provider created for the ticket. */
  productsFor(ticketId: string): ReadonlyArray<{ technicalServiceUid: string }>;
}

export interface BotOptions {
  /** Milliseconds since the campaign began: orders are submitted at their `submitAt`. */
  elapsed: () => number;
  log: (line: string) => void;
  /** How often each order is read. */
  pollMs: number;
  /** Told of every read, before the order's `status` and `stateSince` take it. */
  onRead?: (order: ChaosOrder, status: SeenStatus) => void;
}

/** Starts the bots; `stop()` ends them once the calls under way have ended (or `graceMs` has passed). */
export function startBots(
  orders: readonly ChaosOrder[],
  desk: OrderDesk,
  tally: ChaosTally,
  options: BotOptions,
): { stop(graceMs?: number): Promise<void> } {
  const { log } = options;
  const firstLine = (error: unknown) => String(error).split('\n')[0];

  const act = (order: ChaosOrder, action: () => Promise<unknown>) => {
    if (order.acting) return;
    order.acting = true;
    void withTimeout(action(), ACTION_TIMEOUT_MS)
      .catch((error: unknown) => log(`${order.ticketId}: ${firstLine(error)}`))
      .finally(() => {
        order.acting = false;
      });
  };

  const visit = async (order: ChaosOrder) => {
    if (!order.submitted) {
      try {
        await desk.submit(order);
        order.submitted = true;
      } catch (error) {
        log(`${order.ticketId}: intake failed, will re-send (${firstLine(error)})`);
      }
      return;
    }
    const status = await desk.status(order.ticketId);
    if (!status) return;
    options.onRead?.(order, status);
    if (order.status?.state !== status.state) order.stateSince = Date.now();
    order.status = status;
    if (FINAL_STATES.has(status.state)) {
      order.settled = true;
      return;
    }
    if (status.state !== 'BUY_UNCERTAIN') order.uncertainSince = undefined;
    const { approval, quote } = status;
    if (status.state === 'AWAITING_APPROVAL' && approval && quote) {
      const voted = new Set(approval.votes.map((vote) => vote.approverId));
      const approver = BOT_APPROVERS.slice(0, approval.tier.approvals).find((id) => !voted.has(id));
      if (approver) {
        act(order, async () => {
          const { monthlyRate, currency } = quote;
          const answer = await desk.approve(order.ticketId, approver, { monthlyRate, currency }, status);
          if (answer === 'taken') {
            tally.votes++;
            order.votesTaken.push(approver);
          } else tally.votesAlreadyCounted++;
        });
      }
    }
    if (status.state === 'BUY_UNCERTAIN') {
      order.uncertainSince ??= Date.now();
      const [product] = desk.productsFor(order.ticketId);
      if (product) {
        act(order, async () => {
          const { technicalServiceUid } = product;
          await desk.resolveBuy(
            order.ticketId,
            { outcome: 'created', technicalServiceUid, note: 'found at the provider' },
            status,
          );
          tally.uncertainResolved.created++;
        });
      } else if (Date.now() - order.uncertainSince >= OPS_SETTLE_MS) {
        act(order, async () => {
          const note = `the provider shows no product named "${productNameFor(order.ticketId)}"`;
          await desk.resolveBuy(order.ticketId, { outcome: 'not-created', note }, status);
          tally.uncertainResolved.notCreated++;
        });
      }
    }
  };

  let on = true;
  const loop = (async () => {
    while (on) {
      for (const order of orders) {
        if (order.reading || order.settled || (!order.submitted && order.submitAt > options.elapsed())) continue;
        order.reading = true;
        void visit(order)
          .catch((error: unknown) => log(`${order.ticketId}: ${firstLine(error)}`))
          .finally(() => {
            order.reading = false;
          });
      }
      await sleep(options.pollMs);
    }
  })();
  return {
    async stop(graceMs = 30_000) {
      on = false;
      await loop;
      const until = Date.now() + graceMs;
      while (orders.some((order) => order.reading || order.acting) && Date.now() < until) await sleep(200);
    },
  };
}
