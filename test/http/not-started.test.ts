/**
 * Orders no worker has started yet, through real HTTP: the workflow is started, but no worker serves its environment
 * (none is running), so it has not claimed its ticket. The intake recorded the order, so it is shown from the records
 * at once ("waiting for a worker since …"), listed and counted; it cannot be decided on (409 NOT_STARTED), and it can
 * be cancelled: then a worker that comes later refuses the run, and nothing is looked up or bought.
 */
import anyTest, { type TestFn } from 'ava';
import { buildApiServer, handlersEnded } from '../../client/http/index.js';
import type { ApiOrder, OrderList, SubmitResult } from '../../client/http-client/index.js';
import { connectDatabase } from '../../infra/db/index.js';
import { namedRequest, productsFor, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { callApi } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { worker: false });
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** Holds `table` in an ACCESS EXCLUSIVE lock, from a connection of its own, until the returned function is called. */
async function lockTable(api: ApiEngine, table: string): Promise<() => Promise<void>> {
  const sql = connectDatabase(api.db.url, { maxConnections: 1 });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => (locked = resolve));
  const transaction = sql.begin(async (tx) => {
    await tx.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    locked();
    await released;
  });
  await holding;
  return async () => {
    release();
    await transaction;
    await sql.end();
  };
}

// Cancelling an order no worker has started touches PostgreSQL only, where no deadline ends a late handler.
test.serial('a cancel answered 503 TIMEOUT before it was sent is never carried out by its late handler', async (t) => {
  const { api } = t.context;
  const body = namedRequest('EARLY-GATE', { size: 'MVE 8/32' });
  t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201);
  const app = await buildApiServer({
    context: api.context,
    requestTimeoutMs: 1_000,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
  });
  t.teardown(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });

  const release = await lockTable(api, 'orders');
  const answer = await callApi(url, 'POST', '/api/v1/orders/EARLY-GATE/cancel', {
    token: api.tokens.alice,
    body: { reason: 'changed my mind' },
  }).finally(release);
  const { error } = json<ErrorBody>(answer);
  t.is(answer.status, 503);
  t.like(error, { code: 'TIMEOUT', mayHaveTakenEffect: false });
  t.regex(error.message, /\(the cancel did not take effect: nothing changed\)$/);

  t.true(await handlersEnded(app, 10_000), 'the late handler ended');
  const order = await api.call('GET', '/api/v1/orders/EARLY-GATE', { as: 'alice' });
  t.like(order.body, { state: 'RECEIVED', source: 'records' }, 'the answer stays true');
  const sentAgain = await api.call('POST', '/api/v1/orders/EARLY-GATE/cancel', {
    as: 'alice',
    body: { reason: 'changed my mind' },
  });
  t.deepEqual(sentAgain.body, { state: 'CANCELLED' }, 'sent again, it is carried out');
});

test.serial(
  'an order no worker has started is shown from the records at once, listed, counted and cancellable',
  async (t) => {
    const { api } = t.context;
    for (const ticketId of ['EARLY-1', 'EARLY-2']) {
      const submitted = await api.call('POST', '/api/v1/orders', {
        as: 'alice',
        body: namedRequest(ticketId, { size: 'MVE 8/32' }),
      });
      t.is(submitted.status, 201, JSON.stringify(submitted.body));
    }

    const started = Date.now();
    const early = await api.call('GET', '/api/v1/orders/EARLY-1', { as: 'alice' });
    t.true(Date.now() - started < 2_000, 'answered at once, not after waiting for a worker');
    t.is(early.status, 200, JSON.stringify(early.body));
    t.like(early.body, { ticketId: 'EARLY-1', state: 'RECEIVED', source: 'records', requestedBy: 'alice' });
    t.regex(json<ApiOrder>(early).waitingForWorkerSince!, /^\d{4}-\d\d-\d\dT/);
    const history = await api.call('GET', '/api/v1/orders/EARLY-1/history?events=false', { as: 'olga' });
    t.is(history.status, 200, JSON.stringify(history.body));

    const listed = await api.call('GET', '/api/v1/orders?status=RECEIVED', { as: 'olga' });
    t.deepEqual(
      json<OrderList>(listed)
        .orders.map((order) => order.ticketId)
        .sort(),
      ['EARLY-1', 'EARLY-2'],
    );
    t.regex(String((await api.call('GET', '/metrics')).body), /mve_orders\{state="RECEIVED"\} 2/);

    // Nothing to decide on yet; the same body again is the same order.
    const vote = await api.call('POST', '/api/v1/orders/EARLY-1/approve', {
      as: 'fiona',
      body: { monthlyRate: 1618.2, currency: 'AUD' },
    });
    t.is(vote.status, 409, JSON.stringify(vote.body));
    t.is(json<ErrorBody>(vote).error.code, 'NOT_STARTED');
    t.regex(json<ErrorBody>(vote).error.message, /no worker has started this order yet \(waiting since /);
    const again = await api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest('EARLY-1', { size: 'MVE 8/32' }),
    });
    t.is(again.status, 200, JSON.stringify(again.body));
    t.false(json<SubmitResult>(again).created);

    const cancelled = await api.call('POST', '/api/v1/orders/EARLY-2/cancel', {
      as: 'alice',
      body: { reason: 'changed my mind' },
    });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    t.deepEqual(cancelled.body, { state: 'CANCELLED' });
    const after = await api.call('GET', '/api/v1/orders/EARLY-2', { as: 'alice' });
    t.like(after.body, { state: 'CANCELLED', source: 'records' });
    t.is(json<ApiOrder>(after).waitingForWorkerSince, undefined);
    t.like((await api.records('EARLY-2'))?.events.at(-1), {
      to: 'CANCELLED',
      actor: 'alice',
      reason: 'changed my mind',
    });
    const resent = await api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest('EARLY-2', { size: 'MVE 8/32' }),
    });
    t.is(resent.status, 200, 'a cancelled ticket is not started again');
    t.false(json<SubmitResult>(resent).created);

    // A worker comes: the waiting order goes on; the cancelled one is never run.
    api.workers.push(await api.startWorker());
    const waiting = await waitForApiState(api, 'EARLY-1', 'AWAITING_APPROVAL');
    t.is(waiting.source, 'workflow');
    t.is(waiting.waitingForWorkerSince, undefined);
    const workflowId = (await api.ticket('EARLY-2'))!.workflowId;
    t.is((await api.client.workflow.getHandle(workflowId).describe()).status.name, 'TERMINATED');
    await waitFor(async () => ((await api.records('EARLY-2'))?.order.status === 'CANCELLED' ? true : undefined));
    t.is(productsFor(api, 'EARLY-2').length, 0, 'nothing bought');
  },
);
