/**
 * The campaigns' orders: what is ordered and when (the same for a seed), and what the bots last saw of each.
 *
 * Sizes and the approvals they need under the tests' staging policy (test/helpers/orders.ts TEST_POLICIES): MVE 4/16
 * auto-approved, MVE 8/32 one approver, MVE 16/64 two.
 */
import type { OrderState } from '../../domain/lifecycle/index.js';
import { sydneyRequest } from '../helpers/orders.js';
import { productNameFor } from '../orders/fixtures/restart-env.js';
import type { Dice } from './random.js';

const SIZES = [
  { size: 'MVE 4/16', weight: 0.5 },
  { size: 'MVE 8/32', weight: 0.35 },
  { size: 'MVE 16/64', weight: 0.15 },
] as const;

/** What the bots read of an order, from its workflow (OrderClient.status) or the HTTP API alike. */
export interface SeenStatus {
  state: OrderState;
  quote?: { monthlyRate: number; currency: string } | null;
  approval?: { tier: { approvals: number }; votes: ReadonlyArray<{ approverId: string }> };
  buyAttempts?: number;
  product?: { technicalServiceUid: string } | null;
  /** The HTTP API's: live from the workflow, or from the records. */
  source?: 'workflow' | 'records';
}

export interface ChaosOrder {
  ticketId: string;
  size: string;
  body: Record<string, unknown>;
  /** When to submit it, in ms from the campaign's start. */
  submitAt: number;
  submitted: boolean;
  status?: SeenStatus;
  /** When the bots first saw it in its present state (epoch ms). */
  stateSince?: number;
  settled: boolean;
  uncertainSince?: number;
  /** The bots' submit or read of it is under way. */
  reading: boolean;
  /** A vote or a resolution of the bots is under way. */
  acting: boolean;
  /** The approvers whose vote the engine took (a 2xx, or the OrderClient's success). */
  votesTaken: string[];
}

/** `count` orders of mixed sizes, submitted at random moments in the first 60% of the campaign. */
export function planOrders(dice: Dice, seed: number, count: number, campaignMs: number): ChaosOrder[] {
  return Array.from({ length: count }, (_, i) => {
    let roll = dice.random();
    const size = SIZES.find((entry) => (roll -= entry.weight) < 0)?.size ?? SIZES[0].size;
    const ticketId = `CHAOS-${seed}-${String(i + 1).padStart(3, '0')}`;
    return {
      ticketId,
      size,
      body: sydneyRequest(ticketId, { size, productName: productNameFor(ticketId) }),
      submitAt: Math.round(dice.random() * campaignMs * 0.6),
      submitted: false,
      settled: false,
      reading: false,
      acting: false,
      votesTaken: [],
    };
  });
}

/** How many orders of each size, in the order the sizes first come. */
export function sizesOf(orders: readonly ChaosOrder[]): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const order of orders) sizes[order.size] = (sizes[order.size] ?? 0) + 1;
  return sizes;
}
