/**
 * Following a bought MVE until it is live: the provider's product read (`GET /v2/product/{uid}`) reports its
 * `provisioningStatus`, which goes DEPLOYABLE → CONFIGURED → LIVE, or to a state the product never comes back from.
 * Pure rules: the workflow asks them, and the tests read them.
 */

/**
 * How the workers follow an order's product, from their configuration (MVE_FOLLOW_PROVISIONING and the
 * MVE_PROVISIONING_* variables). Given to each new order as it begins, it governs the order to its end.
 */
export interface ProvisioningPlan {
  /** The wait after the first read; each next wait doubles, up to `maxPollMs`. */
  firstPollMs: number;
  maxPollMs: number;
  /** Ops are reminded each time another `reminderMs` passes with the product not live. */
  reminderMs: number;
  /** The order ends PROVISIONING_STALLED when the product is not live this long after the buy. */
  deadlineMs: number;
}

/** The provider's statuses of a product that will never be live (the public provider tools treat them so). */
const FAILED_STATUSES: ReadonlySet<string> = new Set([
  'CANCELLED',
  'CANCELLED_PARENT',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
]);

/** What a status means for the follow-up: done, failed for good, or still on its way (any status not known here). */
export function verdictOf(provisioningStatus: string): 'live' | 'failed' | 'on-its-way' {
  const status = provisioningStatus.trim().toUpperCase();
  if (status === 'LIVE') return 'live';
  return FAILED_STATUSES.has(status) ? 'failed' : 'on-its-way';
}

/** The wait before the next read, after `reads` reads: `firstPollMs`, doubling, at most `maxPollMs`. */
export function pollDelay(plan: ProvisioningPlan, reads: number): number {
  const doublings = Math.max(0, reads - 1);
  return Math.min(plan.maxPollMs, plan.firstPollMs * 2 ** Math.min(doublings, 30));
}
