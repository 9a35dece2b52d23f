import { status as GrpcStatus } from '@grpc/grpc-js';
import { UNPROCESSED_UPDATE } from './order-client.js';

/** The driver's own codes for a connection that failed or went away (postgres.js, and Node's sockets under it). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * PostgreSQL's SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01–57P03 (shutting
 * down, restarting, not yet accepting connections), 53300 (too many connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/**
 * gRPC answers of a Temporal frontend that is down, restarting or overloaded. CANCELLED too: an overloaded frontend
 * (or its proxy) cuts calls it cannot serve in time, and the API's own deadlines end a call that way. And
 * FAILED_PRECONDITION, Temporal's answer to a query the order's workflow cannot take now: its worker was just lost
 * (the workflow task failed, or no worker polls): another worker takes the order over within seconds.
 */
const GRPC_UNAVAILABLE = new Set<number>([
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.CANCELLED,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.RESOURCE_EXHAUSTED,
]);

/**
 * Which of the service's own dependencies did not answer, if that is what `error` (or an error it wraps) says: a read
 * then answers from the records, and the HTTP API answers 503 with Retry-After, not a 500 — nothing about the request
 * was wrong, and trying again later can work.
 */
export function unavailableDependency(error: unknown): 'PostgreSQL' | 'Temporal' | undefined {
  for (const cause of causesOf(error)) {
    const code = cause['code'];
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return 'PostgreSQL';
    if (typeof code === 'number' && GRPC_UNAVAILABLE.has(code) && 'metadata' in cause) return 'Temporal';
    // Temporal's outcome of an update no worker took (its workflow task failed as a worker was lost): nothing was
    // decided, and the same update sent again is taken by the worker that takes the order over.
    if (cause['type'] === UNPROCESSED_UPDATE) return 'Temporal';
  }
  return undefined;
}

/** Temporal's answer that no worker processed an update (`error` or an error it wraps): the update did not take effect. */
export function isUnprocessedUpdate(error: unknown): boolean {
  for (const cause of causesOf(error)) if (cause['type'] === UNPROCESSED_UPDATE) return true;
  return false;
}

/** `error` and the errors it wraps (its `cause`, and theirs), eight deep at most. */
function* causesOf(error: unknown): Generator<Record<string, unknown>> {
  let cause = error;
  for (let depth = 0; typeof cause === 'object' && cause !== null && depth < 8; depth++) {
    yield cause as Record<string, unknown>;
    cause = (cause as { cause?: unknown }).cause;
  }
}
