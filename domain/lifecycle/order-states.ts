/**
 * The order's states, as an ops person reads them, and the transitions the workflow may take.
 * Pure data: the workflow asserts every move against this table so a bug cannot invent a path.
 */
export const ORDER_STATES = [
  'RECEIVED',
  'LOOKING_UP',
  'VALIDATING',
  'AWAITING_APPROVAL',
  'APPROVED',
  'BUYING',
  'BOUGHT',
  'BUY_UNCERTAIN',
  'PROVISIONING',
  'LIVE',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'FAILED',
] as const;

export type OrderState = (typeof ORDER_STATES)[number];

/**
 * States in which nobody can act on the order any more. BOUGHT is one: the money is spent. When the workers follow
 * the bought product's provisioning, the order goes on from BOUGHT by itself, to LIVE or one of the PROVISIONING_ ends.
 */
export const FINAL_STATES: ReadonlySet<OrderState> = new Set([
  'BOUGHT',
  'LIVE',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'FAILED',
]);

/** States of an order whose product was bought: it names one, which the provider has. */
export const BOUGHT_STATES: ReadonlySet<OrderState> = new Set([
  'BOUGHT',
  'PROVISIONING',
  'LIVE',
  'PROVISIONING_FAILED',
  'PROVISIONING_STALLED',
]);

/** States from which a `cancel` is still possible: nothing has been sent to the buy endpoint yet. */
export const CANCELLABLE_STATES: ReadonlySet<OrderState> = new Set([
  'RECEIVED',
  'LOOKING_UP',
  'VALIDATING',
  'AWAITING_APPROVAL',
  'APPROVED',
]);

const TRANSITIONS: Record<OrderState, readonly OrderState[]> = {
  RECEIVED: ['LOOKING_UP', 'CANCELLED', 'FAILED'],
  LOOKING_UP: ['VALIDATING', 'CANCELLED', 'FAILED'],
  // VALIDATING -> REJECTED: the policy refuses a price over its team's budget (`overBudget: "refuse"`).
  VALIDATING: ['AWAITING_APPROVAL', 'APPROVED', 'REJECTED', 'CANCELLED', 'FAILED'],
  AWAITING_APPROVAL: ['APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED'],
  // APPROVED -> VALIDATING: the quote went stale before buying and is checked again.
  APPROVED: ['BUYING', 'VALIDATING', 'CANCELLED', 'FAILED'],
  // BUYING -> BUYING is not a transition: retries of a buy that provably did not happen stay in BUYING.
  BUYING: ['BOUGHT', 'BUY_UNCERTAIN', 'FAILED'],
  // Ops resolves an uncertain buy: it was created (BOUGHT), or it was not and we try again (BUYING),
  // validating first when the quote has gone stale meanwhile (VALIDATING).
  BUY_UNCERTAIN: ['BOUGHT', 'BUYING', 'VALIDATING', 'FAILED'],
  // The follow-up of the product's provisioning (when the workers follow it and the API offers the product read): the
  // first read may already find it LIVE or failed. The order is never bought again from here.
  BOUGHT: ['PROVISIONING', 'LIVE', 'PROVISIONING_FAILED', 'PROVISIONING_STALLED'],
  PROVISIONING: ['LIVE', 'PROVISIONING_FAILED', 'PROVISIONING_STALLED'],
  LIVE: [],
  PROVISIONING_FAILED: [],
  PROVISIONING_STALLED: [],
  REJECTED: [],
  EXPIRED: [],
  CANCELLED: [],
  FAILED: [],
};

export function canTransition(from: OrderState, to: OrderState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Whether the order has ended for good: nothing moves it on (BOUGHT has not: provisioning may follow). */
export function hasEnded(state: OrderState): boolean {
  return TRANSITIONS[state].length === 0;
}
