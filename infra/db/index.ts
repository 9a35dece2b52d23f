// The app's Postgres layer: connection, migrations, and the repository the order workflow's activities
// and the ops views use. The repository never receives secrets: callers redact requests, error messages
// and event details before recording them.

export {
  connectDatabase,
  openDatabase,
  redactDatabaseUrl,
  resolveDatabaseUrl,
  NO_DATABASE_URL_MESSAGE,
  type ConnectOptions,
  type Sql,
} from './connection.js';
export {
  loadMigrations,
  runMigrations,
  MigrationError,
  MIGRATIONS_DIRECTORY,
  MIGRATION_LOCK_KEY,
  type Migration,
  type MigrationRun,
} from './migrations.js';
export { createRepository, type Repository } from './repository.js';
export type {
  BudgetCommitmentRecord,
  CommitDecision,
  CommitmentsQuery,
  CommitmentTotals,
  CommittedOrderRecord,
  CommittedOrdersQuery,
  OrdersRepository,
  OrderStatistics,
  RenewalRecord,
  RenewalsQuery,
  TeamCommitment,
  TransitionOutcome,
} from './orders/index.js';
export type { ApproversRepository } from './approvers-repository.js';
export {
  createTicketsRepository,
  type TicketsRepository,
  type TicketRecord,
  type RefusedRunRecord,
  type ClosedInTemporal,
  CLOSED_IN_TEMPORAL,
  type RegisterTicketInput,
} from './tickets-repository.js';
export {
  createEvidenceRepository,
  type AdmittedRun,
  type AdmitRunOutcome,
  type BuyEvidenceRecord,
  type EvidenceRepository,
  type RefusedCallRecord,
  type RunRecoveryRecord,
  type WorkerQuoteRecord,
} from './evidence/index.js';
export { ticketFingerprint } from './ticket-fingerprint.js';
export { createTokensRepository, TOKEN_TOUCH_INTERVAL_SECONDS, type TokensRepository } from './tokens-repository.js';
export {
  CONSOLE_SESSION_TOUCH_INTERVAL_SECONDS,
  type ConsoleSessionsRepository,
} from './console-sessions-repository.js';
export { RepositoryError, type RepositoryErrorKind } from './errors.js';
export {
  ORDER_STATUSES,
  ENVIRONMENTS,
  BUY_OUTCOMES,
  type OrderStatus,
  type Environment,
  type BuyOutcome,
  type OrderReceivedInput,
  type TransitionInput,
  type QuoteInput,
  type ApprovalVoteInput,
  type BuyIntentInput,
  type BuyOutcomeInput,
  type ProductInput,
  type LastErrorInput,
  type ListOrdersInput,
  type PolicyInput,
  type ApprovalPolicyInput,
  type AwaitingApprovalInput,
  type NoteInput,
  type NewApproverInput,
  type ApproverUpdateInput,
  type ListApproversInput,
  type NewTokenInput,
  type ListTokensInput,
  type RevokeTokenInput,
} from './schemas.js';
export type {
  OrderRecord,
  OrderEventRecord,
  OrderNoteRecord,
  ApprovalVoteRecord,
  BuyAttemptRecord,
  OrderView,
  AwaitingApprovalRecord,
  ApproverRecord,
  ApiTokenRecord,
} from './records.js';
