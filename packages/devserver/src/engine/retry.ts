/** Retry policies as the real server applies them, to activities and to workflows. */
import { durationError, durationToMs, msToDuration, RetryState } from '../proto.js';
import type { Failure, RetryPolicy } from '../proto.js';

const DEFAULT_INITIAL_INTERVAL_MS = 1000;
const DEFAULT_BACKOFF_COEFFICIENT = 2;
const DEFAULT_MAXIMUM_INTERVAL_FACTOR = 100;

export interface NormalizedRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number; // 0 = unlimited
  nonRetryableErrorTypes: string[];
}

/** Fills in the server's defaults: 1 s initial interval, coefficient 2, maximum 100 × initial. */
export function normalizeRetryPolicy(policy: RetryPolicy | null | undefined): NormalizedRetryPolicy {
  const initialIntervalMs = durationToMs(policy?.initialInterval) || DEFAULT_INITIAL_INTERVAL_MS;
  return {
    initialIntervalMs,
    backoffCoefficient: policy?.backoffCoefficient || DEFAULT_BACKOFF_COEFFICIENT,
    maximumIntervalMs: durationToMs(policy?.maximumInterval) || initialIntervalMs * DEFAULT_MAXIMUM_INTERVAL_FACTOR,
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy?.nonRetryableErrorTypes ?? [],
  };
}

const TIMEOUT_FAILURE_TYPE_PREFIX = 'TemporalTimeout:';
const TIMEOUT_TYPE_NAMES = new Set(['StartToClose', 'ScheduleToStart', 'ScheduleToClose', 'Heartbeat']);

/**
 * What the real server refuses in a retry policy (an activity's, a workflow's), checked with its defaults filled
 * in: the message naming the field and the rule, or undefined. A policy of one attempt retries nothing and passes.
 */
export function retryPolicyError(policy: RetryPolicy | null | undefined): string | undefined {
  if (!policy || policy.maximumAttempts === 1) return undefined;
  const initialProblem = durationError(policy.initialInterval);
  if (initialProblem) return `retryPolicy.initialInterval ${initialProblem}`;
  if ((policy.backoffCoefficient || DEFAULT_BACKOFF_COEFFICIENT) < 1)
    return 'retryPolicy.backoffCoefficient must be 1 or more';
  const maximumProblem = durationError(policy.maximumInterval);
  if (maximumProblem) return `retryPolicy.maximumInterval ${maximumProblem}`;
  const { initialIntervalMs, maximumIntervalMs } = normalizeRetryPolicy(policy);
  if (maximumIntervalMs < initialIntervalMs)
    return 'retryPolicy.maximumInterval must not be less than retryPolicy.initialInterval';
  if ((policy.maximumAttempts ?? 0) < 0) return 'retryPolicy.maximumAttempts must not be negative';
  for (const type of policy.nonRetryableErrorTypes ?? [])
    if (
      type.startsWith(TIMEOUT_FAILURE_TYPE_PREFIX) &&
      !TIMEOUT_TYPE_NAMES.has(type.slice(TIMEOUT_FAILURE_TYPE_PREFIX.length))
    )
      return `retryPolicy.nonRetryableErrorTypes: ${type} names no timeout type (StartToClose, ScheduleToStart, ScheduleToClose or Heartbeat)`;
  return undefined;
}

export function retryPolicyToProto(policy: NormalizedRetryPolicy): object {
  return {
    initialInterval: msToDuration(policy.initialIntervalMs),
    backoffCoefficient: policy.backoffCoefficient,
    maximumInterval: msToDuration(policy.maximumIntervalMs),
    maximumAttempts: policy.maximumAttempts,
    nonRetryableErrorTypes: policy.nonRetryableErrorTypes,
  };
}

/**
 * Whether attempt `attempt`, which failed with `failure`, is tried again and after how long: not for a
 * non-retryable failure (an application failure's flag or listed type, a server failure's flag), not past
 * maximumAttempts, not when the delay would end past `deadline`. An ApplicationFailure's nextRetryDelay
 * replaces the computed backoff.
 */
export function retryDecision(
  policy: NormalizedRetryPolicy,
  attempt: number,
  failure: Failure,
  nowMs: number,
  deadlineMs: number,
): { retryState: number; delayMs: number } {
  const app = failure.applicationFailureInfo;
  if (
    app?.nonRetryable ||
    failure.serverFailureInfo?.nonRetryable ||
    (app?.type && policy.nonRetryableErrorTypes.includes(app.type))
  )
    return { retryState: RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE, delayMs: 0 };
  if (policy.maximumAttempts && attempt >= policy.maximumAttempts)
    return { retryState: RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED, delayMs: 0 };
  const delayMs = app?.nextRetryDelay
    ? durationToMs(app.nextRetryDelay)
    : Math.min(policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1), policy.maximumIntervalMs);
  if (nowMs + delayMs >= deadlineMs) return { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
  return { retryState: RetryState.RETRY_STATE_IN_PROGRESS, delayMs };
}
