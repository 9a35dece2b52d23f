/** Public face of client/orders: submitting and steering orders through Temporal. */
export {
  DuplicateOrderError,
  OrderClient,
  OrderNotFoundError,
  OrderRefusedError,
  OrderRequestError,
  UNPROCESSED_UPDATE,
} from './order-client.js';
export { orderIdFor, orderIdOfWorkflow, orderWorkflowId } from '../../domain/index.js';
export type { OrderClientOptions, SubmittedOrder } from './order-client.js';
export type { StartOptions } from './order-client.js';
export { EnvironmentNotServedError, OrderIntake, TicketConflictError } from './intake.js';
export type { IntakeResult, OrderIntakeOptions } from './intake.js';
export { recoverOrder, RecoveryRefused } from './recovery.js';
export type { RecoveryDeps, RecoveryResult, RecoveryRefusalCode } from './recovery.js';
