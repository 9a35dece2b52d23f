/** Errors that become gRPC statuses: every refusal carries the right code and a message naming the problem. */
import { status } from '@grpc/grpc-js';

export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A workflow task completion the server refuses (INVALID_ARGUMENT to the worker), as the real server does: the
 * task fails with `failedCause` (a command that breaks a rule) and is retried, or, with `terminatesRun` (a
 * payload over the size limits), the run is terminated. See ./engine/task-refusals.ts.
 */
export class WorkflowTaskRefusal extends RpcError {
  constructor(
    readonly failedCause: number,
    message: string,
    readonly terminatesRun: boolean,
  ) {
    super(status.INVALID_ARGUMENT, message);
  }
}

/**
 * A completion the real server refuses as a whole, before looking at its commands one by one (a close command
 * that is not the last): nothing is written, the task stays with its worker and times out.
 */
export class CompletionRejected extends RpcError {
  constructor(message: string) {
    super(status.INVALID_ARGUMENT, message);
  }
}

export const notFound = (message: string) => new RpcError(status.NOT_FOUND, message);
export const invalidArgument = (message: string) => new RpcError(status.INVALID_ARGUMENT, message);
export const alreadyExists = (message: string) => new RpcError(status.ALREADY_EXISTS, message);
export const unimplemented = (message: string) => new RpcError(status.UNIMPLEMENTED, message);

/** Refuses a request whose required string field is empty. */
export function requireField(value: string | null | undefined, field: string): string {
  if (!value) throw invalidArgument(`${field} is required and must not be empty`);
  return value;
}
