/** Public face of client/http-client: the typed client of our own HTTP API, used by the CLI's order commands and the demo. */
export { ApiCallError, ApiUnreachableError, OrdersApiClient } from './orders-api-client.js';
export type { OrdersApiClientOptions } from './orders-api-client.js';
export type {
  CommittedOrder,
  Commitments,
  CommitmentsCsv,
  CommitmentsQuery,
  Renewal,
  TeamCommitmentFigures,
} from './commitments.js';
export type {
  ApiErrorDetail,
  ApiOrder,
  ApproveInput,
  HistoryBuyAttempt,
  HistoryEntry,
  HistoryVote,
  ListOrdersQuery,
  Me,
  OrderHistory,
  OrderList,
  OrderListItem,
  OrderRecovery,
  PendingApproval,
  RejectInput,
  ResolveBuyInput,
  StateResult,
  SubmitResult,
  VoteResult,
} from './types.js';
