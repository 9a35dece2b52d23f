/**
 * A 503 to an action says whether the action may have taken effect, and a repeat is safe and says so. Over real HTTP,
 * with a Temporal that loses its answer after the update was sent (the update reaches the order; the answer never
 * comes back, or comes too late), and one that is slow to answer the read before it (the request's time runs out
 * first: the action is not sent).
 */
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import anyTest, { type TestFn } from 'ava';
import { Client, type Connection } from '@temporalio/client';
import { buildApiServer, handlersEnded } from '../../client/http/index.js';
import type { ApiOrder, StateResult, VoteResult } from '../../client/http-client/index.js';
import { encryptingDataConverter } from '../../codec/index.js';
import {
  contextWith,
  namedRequest,
  partsOver,
  startApiEngine,
  waitForApiState,
  type ApiEngine,
  type TestUser,
} from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { callApi } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

type Teardown = { teardown(fn: () => Promise<void>): void };
type Service = Connection['workflowService'];

/** How the Temporal in front of the server misbehaves: its updates' answers lost, or its reads slow. */
interface Misbehaviour {
  /** The update is carried out, then `lose`: answered DEADLINE_EXCEEDED; or answered `lateMs` later than it was. */
  updateAnswer?: 'lose' | { lateMs: number };
  /** Queries are answered this much later than the server answers them. */
  queryDelayMs?: number;
}

function later<T>(value: T, ms: number): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

function misbehaving(service: Service, { updateAnswer, queryDelayMs = 0 }: Misbehaviour): Service {
  return new Proxy(service, {
    get(target, property) {
      const method = Reflect.get(target, property) as unknown;
      if (typeof method !== 'function') return method;
      const call = (method as (request: unknown) => Promise<unknown>).bind(target);
      if (property === 'updateWorkflowExecution' && updateAnswer) {
        return async (request: unknown) => {
          const answer = await call(request);
          if (updateAnswer !== 'lose') return later(answer, updateAnswer.lateMs);
          throw Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), {
            code: GrpcStatus.DEADLINE_EXCEEDED,
            details: 'Deadline exceeded',
            metadata: new Metadata(),
          });
        };
      }
      if (property === 'queryWorkflow' && queryDelayMs > 0) {
        return async (request: unknown) => later(await call(request), queryDelayMs);
      }
      return call;
    },
  });
}

/** A server on the engine's parts, talking to Temporal through `misbehaviour`, with a time limit of `budgetMs`. */
async function serverBehind(t: Teardown, api: ApiEngine, misbehaviour: Misbehaviour, budgetMs = 15_000) {
  const real = api.client.connection;
  const connection = Object.create(real, {
    workflowService: { value: misbehaving(real.workflowService, misbehaviour) },
  }) as Connection;
  const temporal = new Client({
    connection,
    namespace: api.temporal.namespace,
    dataConverter: encryptingDataConverter(api.keyring),
  });
  const context = contextWith(api, partsOver(api, temporal));
  const app = await buildApiServer({
    context,
    requestTimeoutMs: budgetMs,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
  });
  t.teardown(async () => {
    await app.close();
    await handlersEnded(app, 10_000);
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return async (path: string, as: TestUser, body: unknown) => {
    const answer = await callApi(url, 'POST', path, { token: api.tokens[as], body });
    return { ...answer, retryAfter: answer.headers.get('retry-after') };
  };
}

async function awaitingApproval(api: ApiEngine, ticketId: string) {
  const body = namedRequest(ticketId, { size: 'MVE 8/32' });
  const submitted = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  if (submitted.status !== 201) throw new Error(JSON.stringify(submitted.body));
  return waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
}

test.serial(
  'a cancel sent whose answer is lost: 503 says it may have taken effect; a repeat says it did',
  async (t) => {
    const { api } = t.context;
    await awaitingApproval(api, 'AO-CANCEL');
    const post = await serverBehind(t, api, { updateAnswer: 'lose' });

    const lost = await post('/api/v1/orders/AO-CANCEL/cancel', 'alice', { reason: 'not needed' });
    t.is(lost.status, 503, JSON.stringify(lost.body));
    t.is(lost.retryAfter, '5');
    const { error } = json<ErrorBody>(lost);
    t.is(error.code, 'SERVICE_UNAVAILABLE');
    t.true(error.mayHaveTakenEffect);
    t.regex(
      error.message,
      /^Temporal does not answer this server now; try again in 5 s \(the cancel was sent and may have taken effect: read the order, or send the same request again \(a repeat is answered with the order's state, saying it was already done\)\)$/,
    );
    t.is(
      json<ApiOrder>(await api.call('GET', '/api/v1/orders/AO-CANCEL', { as: 'alice' })).state,
      'CANCELLED',
      'it did',
    );

    for (const again of [
      await api.call('POST', '/api/v1/orders/AO-CANCEL/cancel', { as: 'alice', body: { reason: 'not needed' } }),
      await post('/api/v1/orders/AO-CANCEL/cancel', 'alice', { reason: 'not needed' }),
    ]) {
      t.is(again.status, 200, JSON.stringify(again.body));
      t.is(json<StateResult>(again).state, 'CANCELLED');
      t.regex(
        json<StateResult>(again).alreadyDone!,
        /^already cancelled by you at \S+ \(not needed\): this repeats a cancel that took effect; nothing changed$/,
      );
    }
    const other = await api.call('POST', '/api/v1/orders/AO-CANCEL/cancel', { as: 'olga', body: { reason: 'tidy' } });
    t.is(other.status, 409, JSON.stringify(other.body));
    t.is(json<ErrorBody>(other).error.code, 'NOT_CANCELLABLE');
    t.regex(json<ErrorBody>(other).error.message, /^the order was already cancelled by alice at \S+; nothing changed$/);
  },
);

test.serial('an approval sent, then the time runs out: 503 TIMEOUT says it may have taken effect', async (t) => {
  const { api } = t.context;
  const waiting = await awaitingApproval(api, 'AO-VOTE');
  const post = await serverBehind(t, api, { updateAnswer: { lateMs: 4_000 } }, 3_000);
  const vote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  const lost = await post('/api/v1/orders/AO-VOTE/approve', 'fiona', vote);
  t.is(lost.status, 503, JSON.stringify(lost.body));
  const { error } = json<ErrorBody>(lost);
  t.is(error.code, 'TIMEOUT');
  t.true(error.mayHaveTakenEffect);
  t.regex(error.message, /\(the approval was sent and may have taken effect: read the order, or send/);

  const again = await api.call('POST', '/api/v1/orders/AO-VOTE/approve', { as: 'fiona', body: vote });
  t.is(again.status, 200, JSON.stringify(again.body));
  const result = json<VoteResult>(again);
  t.deepEqual(result.approvedBy, ['fiona']);
  t.is(result.stillNeeded, 0);
  t.regex(result.alreadyDone!, /^your approval of .+ was already counted: this repeats a vote that took effect/);
  t.not(result.state, 'AWAITING_APPROVAL');
});

test.serial(
  'a cancel whose read outlasts the time: 503 says it did not take effect, and nothing changes',
  async (t) => {
    const { api } = t.context;
    await awaitingApproval(api, 'AO-SLOW');
    const post = await serverBehind(t, api, { queryDelayMs: 3_000 }, 1_000);

    const slow = await post('/api/v1/orders/AO-SLOW/cancel', 'alice', { reason: 'not needed' });
    t.is(slow.status, 503, JSON.stringify(slow.body));
    const { error } = json<ErrorBody>(slow);
    t.is(error.code, 'TIMEOUT');
    t.false(error.mayHaveTakenEffect);
    t.regex(error.message, /\(the cancel did not take effect: nothing changed\)$/);

    // The read comes back after the answer; the handler, still running, does not send the cancel.
    await later(undefined, 4_000);
    t.is(json<ApiOrder>(await api.call('GET', '/api/v1/orders/AO-SLOW', { as: 'alice' })).state, 'AWAITING_APPROVAL');
  },
);
