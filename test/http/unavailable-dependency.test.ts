import test from 'ava';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { unavailableDependency } from '../../client/orders/index.js';
import { UNPROCESSED_UPDATE } from '../../client/orders/index.js';

// How the API tells "a dependency did not answer" (503 with Retry-After, or the records for a read) from a fault of
// its own (500). The errors are built as the drivers make them: grpc-js puts the status code and metadata on the
// error, postgres.js a string code; the Temporal client wraps the gRPC error as its cause.
const grpcError = (code: GrpcStatus) =>
  Object.assign(new Error(`${code} ${GrpcStatus[code]}: call failed`), {
    code,
    details: 'x',
    metadata: new Metadata(),
  });
const wrapped = (cause: unknown) => new Error('Failed to query workflow', { cause });

test('gRPC answers of a frontend that is down, overloaded or that cut the call name Temporal', (t) => {
  for (const code of [
    GrpcStatus.UNAVAILABLE,
    GrpcStatus.DEADLINE_EXCEEDED,
    GrpcStatus.RESOURCE_EXHAUSTED,
    GrpcStatus.CANCELLED,
    GrpcStatus.FAILED_PRECONDITION,
  ]) {
    t.is(unavailableDependency(wrapped(grpcError(code))), 'Temporal', GrpcStatus[code]);
  }
});

test('an update no worker processed names Temporal: nothing was decided, sending it again is safe', (t) => {
  const unprocessed = Object.assign(new Error('Workflow Update is rejected because it was not processed by worker'), {
    type: UNPROCESSED_UPDATE,
  });
  t.is(unavailableDependency(new Error('Workflow Update failed', { cause: unprocessed })), 'Temporal');
  t.is(unavailableDependency(Object.assign(new Error('refused'), { type: 'ALREADY_VOTED' })), undefined);
});

test('other gRPC answers are not an outage: the request itself was wrong', (t) => {
  for (const code of [GrpcStatus.NOT_FOUND, GrpcStatus.INVALID_ARGUMENT, GrpcStatus.PERMISSION_DENIED]) {
    t.is(unavailableDependency(wrapped(grpcError(code))), undefined, GrpcStatus[code]);
  }
});

test('refused connections and PostgreSQL shutting down name PostgreSQL; a constraint violation does not', (t) => {
  t.is(unavailableDependency(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), 'PostgreSQL');
  t.is(unavailableDependency(Object.assign(new Error('terminating connection'), { code: '57P01' })), 'PostgreSQL');
  t.is(unavailableDependency(Object.assign(new Error('duplicate key'), { code: '23505' })), undefined);
});
