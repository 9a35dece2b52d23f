import type { z } from 'zod';

/**
 * Why a repository call was refused. None of these gets better by retrying: an activity should fail
 * them as non-retryable. Connection problems surface as the driver's own errors and are retryable.
 */
export type RepositoryErrorKind = 'invalid-input' | 'not-found' | 'conflict' | 'constraint';

export class RepositoryError extends Error {
  override name = 'RepositoryError';
  constructor(
    readonly kind: RepositoryErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** `operation: field.path: rule` for each problem zod found (zod messages never echo the value). */
export function invalidInput(operation: string, error: z.ZodError): RepositoryError {
  const problems = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(input)';
    return `${field}: ${issue.message}`;
  });
  return new RepositoryError('invalid-input', `${operation}: invalid input: ${problems.join('; ')}`);
}

/** What each named constraint means, for people reading the error. */
const CONSTRAINT_RULES: Record<string, string> = {
  order_status_valid: 'a status must be one of the order states',
  order_environment_valid: 'environment must be staging or production',
  orders_quote_currency_code: 'currency must be a three-letter ISO 4217 code',
  approvals_currency_code: 'currency must be a three-letter ISO 4217 code',
  orders_quote_monthly_rate_not_negative: 'monthlyRate must not be negative',
  orders_product_uid_unique: 'a product belongs to one order: another order has this technicalServiceUid already',
  approvals_monthly_rate_not_negative: 'monthlyRate must not be negative',
  approvals_decision_valid: 'decision must be approve or reject',
  approvers_id_format: 'an approver id is letters, digits and . _ @ - (at most 128)',
  approvers_roles_format: 'roles are lowercase words (letters, digits, . _ -)',
  approvers_team_format: 'a team is 1 to 64 letters, digits and . _ - (starting with a letter or digit)',
  orders_team_format: 'a team is 1 to 64 letters, digits and . _ - (starting with a letter or digit)',
  buy_attempts_outcome_valid: 'a buy outcome is created, not-created or uncertain',
  buy_attempts_created_has_uid: 'a created buy needs its technicalServiceUid',
  order_events_workflow_id_fkey: 'the order must be recorded first',
  approvals_workflow_id_fkey: 'the order must be recorded first',
  buy_attempts_workflow_id_fkey: 'the order must be recorded first',
  approvals_approver_id_fkey: 'the approver must be known',
  orders_policy_hash_fkey: 'the approval policy must be stored first',
  approval_policies_hash_hex: 'a policy hash is a SHA-256 in hex',
  approval_policies_policy_object: 'a policy is a JSON object',
  order_events_transition_allowed: 'an order moves only as domain/order-states.ts allows',
  order_events_not_after_end: 'an order that has ended does not move again',
};

/** Unique indexes whose violation is one record taking what another holds: a conflict, not a broken rule. */
const CONFLICT_CONSTRAINTS: ReadonlySet<string> = new Set(['orders_product_uid_unique']);

interface PostgresErrorLike {
  code?: string;
  constraint_name?: string;
  table_name?: string;
  message: string;
  /** `Key (column)=(value) already exists.` for a unique violation: shown only for CONFLICT_CONSTRAINTS. */
  detail?: string;
}

const CONSTRAINT_CODES: Record<string, string> = {
  '23502': 'a required value is missing',
  '23503': 'refers to a row that does not exist',
  '23505': 'a row with this key already exists',
  '23514': 'a value breaks a rule',
};

/** Turns a Postgres integrity error into a RepositoryError that names the constraint and its rule. */
export function translateDatabaseError(operation: string, error: unknown): unknown {
  const pgError = error as PostgresErrorLike;
  if (typeof pgError?.code !== 'string' || !(pgError.code in CONSTRAINT_CODES)) return error;
  const constraint = pgError.constraint_name;
  const rule = (constraint && CONSTRAINT_RULES[constraint]) ?? CONSTRAINT_CODES[pgError.code];
  const where = constraint ? ` (constraint ${constraint})` : '';
  if (constraint && CONFLICT_CONSTRAINTS.has(constraint)) {
    const detail = pgError.detail ? ` (${pgError.detail})` : '';
    return new RepositoryError('conflict', `${operation}: ${rule}${where}${detail}`);
  }
  const kind = pgError.code === '23503' ? 'not-found' : 'constraint';
  return new RepositoryError(kind, `${operation}: ${rule}${where}: ${pgError.message}`);
}
