import { ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { ApiError, ApiRejectedError } from '../../infra/ordering-api/index.js';
import { OrderBuildError, type Issue } from '../../domain/index.js';
import type { ErrorSummary } from '../../workflows/order/activity-types.js';

/**
 * Turns what an activity caught into the ApplicationFailure Temporal retries by: API errors keep their
 * type, trace id and retry safety (with Retry-After as the next retry delay); an order the domain refuses
 * is final. Messages never hold a secret (API errors and domain issues are built that way). An order the API
 * refuses as invalid is benign, as the domain's refusals are (`refusal`).
 */
export function toApplicationFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof ApiError) {
    const details = error.toJSON();
    return ApplicationFailure.create({
      message: error.message,
      type: error.type,
      nonRetryable: error.nonRetryable,
      details: [{ status: details.status, traceId: details.traceId, data: details.data }],
      ...(details.retryAfterMs !== undefined ? { nextRetryDelay: details.retryAfterMs } : {}),
      ...(refusesTheOrder(error) ? { category: ApplicationFailureCategory.BENIGN } : {}),
    });
  }
  if (error instanceof OrderBuildError) return refusal('OrderRefused', 'the order cannot be built', error.issues);
  return ApplicationFailure.create({
    message: error instanceof Error ? error.message : String(error),
    type: error instanceof Error ? error.name : 'Error',
  });
}

/**
 * The API's validation refused the order itself (400 or 422, naming its fields and rules): the requester's mistake
 * that only the provider can see (a size the location cannot offer), not the engine's. Final, and benign like the
 * domain's refusals, so the SDK does not log it as an activity failure with its stack trace: the worker logs it as
 * one line (worker/refusal-log.ts). Any other rejection (of a lookup, whose request holds nothing of the requester's)
 * may be the engine's bug and keeps the SDK's warning.
 */
function refusesTheOrder(error: ApiError): boolean {
  return error instanceof ApiRejectedError && error.call === 'validate' && error.provablyNotApplied;
}

/** Runs an idempotent step, reporting failures in the shape Temporal retries by (`toApplicationFailure`). */
export async function retriable<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw toApplicationFailure(error);
  }
}

/**
 * A final refusal listing each issue as `path: message`. It is benign: the requester's mistake (an unknown
 * location, image or size), not the engine's, so the worker logs it as one line (worker/refusal-log.ts) and not
 * as a failure with its stack trace.
 */
export function refusal(type: string, summary: string, issues: readonly Issue[]): ApplicationFailure {
  const lines = issues.map((issue) => `${issue.path}: ${issue.message}`);
  return ApplicationFailure.create({
    message: `${summary}: ${lines.join('; ')}`,
    type,
    nonRetryable: true,
    details: [{ issues }],
    category: ApplicationFailureCategory.BENIGN,
  });
}

export function summaryOf(error: unknown): ErrorSummary {
  if (error instanceof ApiError) {
    return {
      type: error.type,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.traceId !== undefined ? { traceId: error.traceId } : {}),
    };
  }
  if (error instanceof OrderBuildError) {
    return { type: 'OrderRefused', message: error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ') };
  }
  return {
    type: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  };
}
