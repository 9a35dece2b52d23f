/**
 * An order between its submission and its first step, through real HTTP: the workflow is started, but no worker
 * has run it yet, so it has not claimed its ticket. Reading it or acting on it answered 500 (the order client's
 * NOT_STARTED refusal escaped the routes); found by `npm run fuzz:api`, which reads its seeded orders right after
 * submitting them. It is a 409 NOT_STARTED with Retry-After, in the API's error shape, until a worker runs it.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { worker: false });
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

function expectNotStarted(t: ExecutionContext, response: { status: number; body: any; headers: Headers }): void {
  const shown = JSON.stringify(response.body);
  t.is(response.status, 409, shown);
  t.is(response.body?.error?.code, 'NOT_STARTED', shown);
  t.is(typeof response.body?.error?.message, 'string', shown);
  t.deepEqual(response.body?.error?.details, [], shown);
  t.is(response.headers.get('retry-after'), '1');
}

test('an order no worker has run yet is 409 NOT_STARTED to read or act on, then answers as usual', async (t) => {
  const { api } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('EARLY-1', { size: 'MVE 8/32' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));

  expectNotStarted(t, await api.call('GET', '/api/v1/orders/EARLY-1', { as: 'alice' }));
  expectNotStarted(t, await api.call('GET', '/api/v1/orders/EARLY-1/history', { as: 'olga' }));
  expectNotStarted(
    t,
    await api.call('POST', '/api/v1/orders/EARLY-1/cancel', { as: 'alice', body: { reason: 'changed my mind' } }),
  );
  // The same body again answers the existing order: that is a read too.
  expectNotStarted(
    t,
    await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('EARLY-1', { size: 'MVE 8/32' }) }),
  );

  api.workers.push(await api.startWorker());
  const waiting = await waitForApiState(api, 'EARLY-1', 'AWAITING_APPROVAL');
  t.is(waiting.requestedBy, 'alice');
});
