/**
 * Public face of client/orders: submitting and steering orders through Temporal, and the order service above it —
 * every action on orders as an authenticated caller, with the access rules beside it.
 */
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
export { RecoveryRefused } from './recovery.js';
export type { RecoveryResult, RecoveryRefusalCode } from './recovery.js';
export { OrderService } from './service/order-service.js';
export type { OrderServiceParts } from './service/parts.js';
export type { BuyResolution } from './service/resolve-buy.js';
export type { OrderFilters, OrderPage } from './service/list.js';
export type { DecisionFigures } from './service/decision-figures.js';
export type { CommitmentFigure, Commitments, CommitmentsFilter, CommitmentsPage } from './service/commitments.js';
export {
  AccessRefused,
  InvalidInput,
  NoSuchOrder,
  OrderConflict,
  ServiceRefusal,
  UnknownRequester,
  UnknownTeam,
} from './refusals.js';
export type { RefusalDetail } from './refusals.js';
export {
  allow,
  COMMITMENTS_NEED_ROLE,
  mayCancel,
  mayReadAllCommitments,
  mayReadOrders,
  mayReadPayloads,
  mayResolveBuys,
  maySee,
  maySubmit,
  mayVote,
  READ_NEEDS_ROLE,
  seesAllOrders,
  VOTE_NEEDS_ROLE,
} from './access.js';
export type { OwnedOrder } from './access.js';
export { approverRoles, BUILT_IN_ROLES, hasRole, sameIdentity } from './principal.js';
export type { BuiltInRole, Principal } from './principal.js';
export { orderSummary } from './order-view.js';
export { orderedOf } from './ordered.js';
export type { Ordered } from './ordered.js';
export type { ApiOrder, OrderListItem } from './order-view.js';
export { DEFAULT_LIVE_READS, LiveReads, liveReadsFromEnv, LIVE_READS_VARIABLE } from './live-reads.js';
export { isUnprocessedUpdate, unavailableDependency } from './unavailable.js';
export { payloadFromJson, payloadToJson } from './payload-json.js';
