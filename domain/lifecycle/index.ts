/**
 * Public face of domain/lifecycle: an order's states and the moves between them, the provisioning plan, durations.
 * Pure and without Node, so that the workflow code, which is replayed, may import it whole.
 */
export {
  BOUGHT_STATES,
  canTransition,
  CANCELLABLE_STATES,
  FINAL_STATES,
  hasEnded,
  ORDER_STATES,
} from './order-states.js';
export type { OrderState } from './order-states.js';
export { cancelRefusal } from './cancel-refusal.js';
export { pollDelay, verdictOf } from './provisioning.js';
export type { ProvisioningPlan } from './provisioning.js';
export { describeDuration, DURATION_RULE, durationSchema } from './duration.js';
