import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiInvalidResponseError,
  ApiNetworkError,
  ApiRateLimitedError,
  ApiRejectedError,
  ApiRequestInvalidError,
  ApiServerError,
  type ApiClient,
  type ApiLogEntry,
  type ProductRead,
} from '../../infra/ordering-api/index.js';
import { rawApi, simWithClient, validOrder } from './helpers.js';

/** Buys one product through the client; its uid. */
async function bought(client: ApiClient): Promise<string> {
  const { order } = await validOrder(client);
  return (await client.buy({ networkDesign: [order], discountCodes: [] })).data[0].technicalServiceUid;
}

/** Reads the product once it is `ms` old, by the creation time the API gave. */
async function readAt(client: ApiClient, productUid: string, ms: number): Promise<ProductRead> {
  const first = await client.readProduct(productUid);
  if (!first.found) throw new Error(`product read answered ${first.status}`);
  await sleep(Math.max(0, Date.parse(first.product.createdAt!) + ms - Date.now()));
  return client.readProduct(productUid);
}

test('a bought product is read as DEPLOYABLE, CONFIGURED, then LIVE as the time passes', async (t) => {
  const log: ApiLogEntry[] = [];
  const { sim, client, close } = await simWithClient(
    { provisioning: { configuredAfterMs: 1_000, liveAfterMs: 2_000 } },
    { log: (entry) => log.push(entry) },
  );
  t.teardown(close);
  const { order, location } = await validOrder(client);
  const uid = (await client.buy({ networkDesign: [order], discountCodes: [] })).data[0].technicalServiceUid;

  const first = await client.readProduct(uid);
  t.true(first.found);
  const product = first.found ? first.product : undefined;
  t.like(product, {
    productUid: uid,
    productName: order.productName,
    productType: 'MVE',
    provisioningStatus: 'DEPLOYABLE',
    contractTermMonths: 12,
    locationId: location.id,
  });
  t.regex(product?.createdAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.false('liveAt' in product!, 'no live date before it is live');

  t.like(await readAt(client, uid, 1_050), { found: true, product: { provisioningStatus: 'CONFIGURED' } });
  const live = await readAt(client, uid, 2_050);
  t.like(live, { found: true, product: { provisioningStatus: 'LIVE' } });
  if (live.found) t.is(Date.parse(live.product.liveAt!), Date.parse(live.product.createdAt!) + 2_000);

  t.is(client.callCounts.product, 5);
  t.is(sim.state().calls.product, 5);
  const reads = log.filter((entry) => entry.call === 'product');
  t.deepEqual(
    reads.map((entry) => `${entry.request} ${entry.status}`),
    Array(5).fill(`GET /v2/product/${uid} 200`),
  );
});

test('a failed status reaches the caller as sent', async (t) => {
  const { sim, client, close } = await simWithClient({ provisioning: { configuredAfterMs: 0, liveAfterMs: 0 } });
  t.teardown(close);
  sim.injectFault({ kind: 'provisioning', outcome: 'fail', status: 'CANCELLED' });
  const uid = await bought(client);
  t.like(await client.readProduct(uid), { found: true, product: { provisioningStatus: 'CANCELLED' } });
});

test('a provider with more states and looser fields: the status passes through, unreadable extras are dropped', async (t) => {
  const client = await rawApi(t, (res) =>
    res.end(
      JSON.stringify({
        message: 'ok',
        data: {
          productUid: 'abc',
          provisioningStatus: 'Provisioning-Pending',
          productName: null,
          contractTermMonths: '24',
          locationId: '61',
          createDate: 1_700_000_000_000,
          liveDate: 'soon',
          vendorConfig: { adminPassword: 'x' },
        },
      }),
    ),
  );
  t.deepEqual(await client.readProduct('abc'), {
    found: true,
    product: {
      productUid: 'abc',
      provisioningStatus: 'Provisioning-Pending',
      contractTermMonths: 24,
      locationId: 61,
      createdAt: '2023-11-14T22:13:20.000Z',
    },
  });
  const missing = await rawApi(t, (res) => res.end(JSON.stringify({ data: { productUid: 'abc' } })));
  const error = await t.throwsAsync(missing.readProduct('abc'), { instanceOf: ApiInvalidResponseError });
  t.regex(error.message, /data\.provisioningStatus/);
  t.false(error.retrySafe);
});

test('an unknown product, and an API that does not offer the read, answer found: false with 404 or 405', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const uid = await bought(client);
  t.deepEqual(await client.readProduct('6f1c2d3e-0000-4000-8000-000000000000'), { found: false, status: 404 });
  sim.setProductRead('not-found');
  t.deepEqual(await client.readProduct(uid), { found: false, status: 404 });
  sim.setProductRead('not-allowed');
  t.deepEqual(await client.readProduct(uid), { found: false, status: 405 });
  sim.setProductRead('offered');
  t.like(await client.readProduct(uid), { found: true, product: { productUid: uid } });
  t.is(sim.state().calls.product, 4, 'one request per read: a 404 or 405 is an answer, not retried');
});

test('a 5xx is a server error that is safe to retry; a 429 is waited out', async (t) => {
  const { sim, client, close } = await simWithClient({}, { sleep: () => Promise.resolve() });
  t.teardown(close);
  const uid = await bought(client);
  sim.injectFault({ kind: 'error', endpoint: 'product', status: 503 });
  const error = await t.throwsAsync(client.readProduct(uid), { instanceOf: ApiServerError });
  t.like(error, { call: 'product', status: 503, retrySafe: true, outcomeUnknown: false });
  t.regex(error.message, new RegExp(`^GET /v2/product/${uid} \\(staging\\) failed on the server \\(503\\)`));

  sim.injectFault({ kind: 'rate-limit', endpoint: 'product', retryAfterSeconds: 1, times: 2 });
  t.like(await client.readProduct(uid), { found: true });
  sim.injectFault({ kind: 'rate-limit', endpoint: 'product', retryAfterSeconds: 60 });
  const limited = await t.throwsAsync(client.readProduct(uid), { instanceOf: ApiRateLimitedError });
  t.like(limited, { retryAfterMs: 60_000, retrySafe: true });
});

test('a read slower than the response timeout is a network error that is safe to retry', async (t) => {
  const { sim, client, close } = await simWithClient({}, { config: { responseTimeoutMs: 500 } });
  t.teardown(close);
  const uid = await bought(client);
  sim.injectFault({ kind: 'latency', endpoint: 'product', ms: 2_000 });
  const error = await t.throwsAsync(client.readProduct(uid), { instanceOf: ApiNetworkError });
  t.like(error, { call: 'product', reason: 'response-timeout', requestSent: true, retrySafe: true });
  t.false(error.outcomeUnknown);
});

test('a token that expired is refreshed and the read succeeds', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const uid = await bought(client);
  sim.expireTokens();
  t.like(await client.readProduct(uid), { found: true, product: { provisioningStatus: 'DEPLOYABLE' } });
  sim.injectFault({ kind: 'expire-token', endpoint: 'product' });
  t.like(await client.readProduct(uid), { found: true });
  t.is(sim.state().tokensIssued, 3);
  t.is(sim.state().calls.product, 4, 'each 401 cost one more request');
});

test('a uid the API refuses is a rejection, not retried; an empty one is not sent', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const refused = await t.throwsAsync(client.readProduct('not-a-uid'), { instanceOf: ApiRejectedError });
  t.like(refused, { status: 400, retrySafe: false });
  t.regex(refused.message, /productUid must be a UUID/);
  const empty = await t.throwsAsync(client.readProduct('  '), { instanceOf: ApiRequestInvalidError });
  t.deepEqual(empty.problems, ['productUid: must not be empty']);
  t.is(sim.state().calls.product, 1);
});
