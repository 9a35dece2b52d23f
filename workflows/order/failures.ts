import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { ErrorSummary } from './activity-types.js';

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What an activity failure says, for people: the innermost cause's message, type and trace id. */
export function summarise(error: unknown, context: string): ErrorSummary {
  let cause: unknown = error;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as { traceId?: string; status?: number };
    return {
      type: cause.type ?? 'ApplicationFailure',
      message: cause.message || context,
      ...(details.status !== undefined ? { status: details.status } : {}),
      ...(details.traceId !== undefined ? { traceId: details.traceId } : {}),
    };
  }
  return { type: cause instanceof Error ? cause.name : 'Error', message: `${context}: ${messageOf(cause)}` };
}
