import anyTest, { type TestFn } from 'ava';
import { usePostgres } from '../helpers/postgres.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { sydneyRequest } from '../helpers/orders.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test.serial('smoke', async (t) => {
  const { call } = t.context.api;
  const submitted = await call('POST', '/api/v1/orders', { as: 'alice', body: sydneyRequest('SMOKE-1', { size: 'MVE 8/32' }) });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const waiting = await waitFor(async () => {
    const r = await call('GET', '/api/v1/approvals', { as: 'fiona' });
    return r.body.approvals?.length ? r.body : undefined;
  });
  t.log(JSON.stringify(waiting));
  const order = await call('GET', '/api/v1/orders/SMOKE-1', { as: 'alice' });
  t.log(JSON.stringify(order.body).slice(0, 500));
  const approve = await call('POST', '/api/v1/orders/SMOKE-1/approve', { as: 'fiona', body: { monthlyRate: order.body.quote.monthlyRate, currency: order.body.quote.currency } });
  t.is(approve.status, 200, JSON.stringify(approve.body));
  const history = await call('GET', '/api/v1/orders/SMOKE-1/history', { as: 'olga' });
  t.is(history.status, 200, JSON.stringify(history.body).slice(0, 500));
  t.log(JSON.stringify(history.body.events[0]).slice(0, 800));
  const openapi = await call('GET', '/openapi.json');
  t.log(Object.keys(openapi.body.paths));
});
