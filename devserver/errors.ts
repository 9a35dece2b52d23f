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
 * A workflow task completion the server refuses and ends the run for (INVALID_ARGUMENT to the worker): the
 * task fails with `failedCause` and the run is terminated, as the real server does for payloads over its
 * size limits.
 */
export class WorkflowTaskRefusal extends RpcError {
  constructor(
    readonly failedCause: number,
    message: string,
  ) {
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
