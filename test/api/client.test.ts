import test from 'ava';
import {
  ApiAuthenticationError,
  ApiInvalidResponseError,
  ApiNetworkError,
  ApiNotFoundError,
  ApiPermissionError,
  ApiRateLimitedError,
  ApiRejectedError,
  ApiRequestInvalidError,
  ApiServerError,
  createApiClient,
  type ApiError,
  type ApiLogEntry,
} from '../../infra/ordering-api/index.js';
import { vendorConfigSchema, type OrderObject } from '../../schemas/index.js';
import { priceOf, startSimulator } from '../../tooling/sim/index.js';
import { configFor, keyWithRole, rawApi, simWithClient, validOrder } from './helpers.js';

test('every endpoint answers over HTTP: locations, images, variants, validate, buy', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const locations = await client.listLocations();
  t.true(locations.length >= 300);
  const images = await client.listImages();
  t.true(images.data.mveImages.length >= 17);
  const variants = await client.listVariants();
  t.true(Array.isArray((variants as { data: unknown[] }).data));

  const { order, location } = await validOrder(client);
  const quote = await client.validate([order]);
  t.is(quote.message, 'Validation passed');
  t.deepEqual(
    { monthlyRate: quote.data[0].price.monthlyRate, currency: quote.data[0].price.currency },
    priceOf('MVE 4/16', 12, location.market!),
  );

  const bought = await client.buy({ networkDesign: [order], discountCodes: [] });
  t.is(bought.data[0].provisioningStatus, 'DEPLOYABLE');
  t.regex(bought.data[0].technicalServiceUid, /^[0-9a-f-]{36}$/);
  t.deepEqual(
    sim.state().products.map((product) => product.technicalServiceUid),
    [bought.data[0].technicalServiceUid],
  );
});

test('a rejected order carries the message, the data and the trace id, and is not retried', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const { order } = await validOrder(client);
  const withoutToken = { ...order.vendorConfig };
  delete withoutToken.token;
  const error = await t.throwsAsync(client.validate([{ ...order, vendorConfig: withoutToken }]), {
    instanceOf: ApiRejectedError,
  });
  t.is(error.status, 400);
  t.regex(error.message, /vendorConfig\.token/);
  t.truthy((error.data as Array<{ path: string }>).find((issue) => issue.path === 'vendorConfig.token'));
  t.regex(error.traceId ?? '', /^[0-9a-f-]{36}$/);
  t.false(error.retrySafe);
  t.is(sim.state().calls.validate, 1);
});

test('50 concurrent calls cost one token request', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const results = await Promise.all(Array.from({ length: 50 }, () => client.listVariants()));
  t.is(results.length, 50);
  t.is(sim.state().tokensIssued, 1);
  t.is(client.tokenProvider.requestCount, 1);
  t.is(sim.state().calls.variants, 50);
});

test('a token that expires mid-run is refreshed and the call succeeds', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  await client.listVariants();
  sim.expireTokens();
  await t.notThrowsAsync(client.listLocations());
  t.is(sim.state().tokensIssued, 2);
  t.is(sim.state().calls.locations, 2, 'the refused call and its one retry');

  sim.injectFault({ kind: 'expire-token', endpoint: 'buy' });
  const { order } = await validOrder(client);
  await t.notThrowsAsync(client.buy({ networkDesign: [order], discountCodes: [] }));
  t.is(sim.state().products.length, 1, 'a 401 comes before processing: the retried buy creates one product');
});

test('Retry-After is honoured: the call waits as told, then succeeds', async (t) => {
  const waits: number[] = [];
  const { sim, client, close } = await simWithClient(
    {},
    {
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    },
  );
  t.teardown(close);
  sim.injectFault({ kind: 'rate-limit', endpoint: 'images', retryAfterSeconds: 3 });
  await t.notThrowsAsync(client.listImages());
  t.deepEqual(waits, [3000]);
  t.is(sim.state().calls.images, 2);
});

test('a Retry-After beyond the policy surfaces as a rate-limit error that is safe to retry, even for buy', async (t) => {
  const { sim, client, close } = await simWithClient({}, { rateLimit: { maxWaits: 2, maxWaitMs: 5_000 } });
  t.teardown(close);
  const { order } = await validOrder(client);
  sim.injectFault({ kind: 'rate-limit', endpoint: 'buy', retryAfterSeconds: 30 });
  const error = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiRateLimitedError,
  });
  t.is(error.retryAfterMs, 30_000);
  t.true(error.retrySafe);
  t.false(error.outcomeUnknown);
  t.is(sim.state().products.length, 0);
});

test('a buy cut after being applied is outcome-unknown, not safe to retry, and made exactly one product', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const { order } = await validOrder(client);
  sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  const error = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiNetworkError,
  });
  t.true(error.requestSent);
  t.true(error.outcomeUnknown);
  t.false(error.retrySafe);
  t.true(error.nonRetryable);
  t.regex(error.message, /outcome is unknown/);
  t.is(sim.state().products.length, 1);
  t.is(sim.state().calls.buy, 1, 'the client did not send the buy again');
});

test('a dropped read is a network error that is safe to retry', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  sim.injectFault({ kind: 'drop', endpoint: 'locations' });
  const error = await t.throwsAsync(client.listLocations(), { instanceOf: ApiNetworkError });
  t.true(error.requestSent);
  t.true(error.retrySafe);
  t.false(error.outcomeUnknown);
});

test('5xx: a read may be retried; a buy is outcome-unknown', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  sim.injectFault({ kind: 'error', endpoint: 'images', status: 502 });
  const read = await t.throwsAsync(client.listImages(), { instanceOf: ApiServerError });
  t.is(read.status, 502);
  t.true(read.retrySafe);

  const { order } = await validOrder(client);
  sim.injectFault({ kind: 'error', endpoint: 'buy', status: 500 });
  const buy = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiServerError,
  });
  t.false(buy.retrySafe);
  t.true(buy.outcomeUnknown);
});

test('a response slower than the timeout is a sent network failure; for buy the outcome is unknown', async (t) => {
  // A timeout short enough to test, long enough for a loaded machine to fetch the catalogs in.
  const { sim, client, close } = await simWithClient({}, { config: { responseTimeoutMs: 1_500 } });
  t.teardown(close);
  await client.listVariants(); // token and connection ready
  sim.injectFault({ kind: 'latency', endpoint: 'variants', ms: 5_000 });
  const read = await t.throwsAsync(client.listVariants(), { instanceOf: ApiNetworkError });
  t.is(read.reason, 'response-timeout');
  t.true(read.requestSent);
  t.true(read.retrySafe);

  const { order } = await validOrder(client);
  sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: 5_000 });
  const buy = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiNetworkError,
  });
  t.true(buy.outcomeUnknown);
  t.false(buy.retrySafe);
});

test('connection refused: the request was not sent, so even a buy is safe to retry', async (t) => {
  const { sim, client, close } = await simWithClient();
  const { order } = await validOrder(client);
  await close(); // the client keeps its token; the server is gone
  const error = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiNetworkError,
  });
  t.false(error.requestSent);
  t.is(error.reason, 'refused');
  t.true(error.retrySafe);
  t.false(error.outcomeUnknown);
  t.true(error.message.includes(new URL(sim.baseUrl).origin), 'the message names the URL');
});

test('a Read Only key asked to buy gets a clear permission error', async (t) => {
  const sim = await startSimulator();
  const client = createApiClient({ config: configFor(sim, keyWithRole(sim, 'Read Only')) });
  t.teardown(async () => {
    client.close();
    await sim.close();
  });
  const { order } = await validOrder(client);
  const error = await t.throwsAsync(client.buy({ networkDesign: [order], discountCodes: [] }), {
    instanceOf: ApiPermissionError,
  });
  t.is(error.status, 403);
  t.regex(error.message, /Read Only/);
  t.regex(error.message, /Company Admin/);
  t.false(error.retrySafe);
  t.is(sim.state().products.length, 0);
});

test('a bad key is a clear, non-retryable authentication error naming the environment, without the secret', async (t) => {
  const sim = await startSimulator();
  const secret = 'not-the-right-secret-42';
  const client = createApiClient({
    config: configFor(sim, { ...keyWithRole(sim, 'Company Admin'), clientSecret: secret }),
  });
  t.teardown(async () => {
    client.close();
    await sim.close();
  });
  const error = await t.throwsAsync(client.listLocations(), { instanceOf: ApiAuthenticationError });
  t.is(error.call, 'token');
  t.regex(error.message, /staging/);
  t.regex(error.message, /MVE_CLIENT_ID and MVE_CLIENT_SECRET/);
  t.true(error.nonRetryable);
  t.false(JSON.stringify(error).includes(secret));
  t.false(error.message.includes(secret));
  t.is(sim.state().calls.locations, 0);
});

test('a token of another environment is refused, and the error says so', async (t) => {
  const sim = await startSimulator();
  const production = keyWithRole(sim, 'Company Admin', 'production');
  // Token host of production, API of staging: a misconfiguration the client must explain.
  const config = { ...configFor(sim, production), baseUrl: sim.environments.staging.baseUrl };
  const client = createApiClient({ config });
  t.teardown(async () => {
    client.close();
    await sim.close();
  });
  const error = await t.throwsAsync(client.listLocations(), { instanceOf: ApiAuthenticationError });
  t.regex(error.message, /issued for production, not staging/);
  t.is(sim.state().tokensIssued, 2, 'one fresh token was tried before giving up');
  t.false(error.retrySafe);
});

test('an unknown path is a not-found error that points at the base URL', async (t) => {
  const sim = await startSimulator();
  const client = createApiClient({ config: configFor(sim, undefined, { baseUrl: `${sim.url}/staging/wrong-prefix` }) });
  t.teardown(async () => {
    client.close();
    await sim.close();
  });
  const error = await t.throwsAsync(client.listImages(), { instanceOf: ApiNotFoundError });
  t.regex(error.message, /base URL/);
  t.false(error.retrySafe);
});

test('a body that is not an exact order is refused before anything is sent', async (t) => {
  const { sim, client, close } = await simWithClient();
  t.teardown(close);
  const { order } = await validOrder(client);
  const sloppy = { ...order, vendor: 'Meraki' } as unknown as typeof order;
  const error = await t.throwsAsync(client.buy({ networkDesign: [sloppy], discountCodes: [] }), {
    instanceOf: ApiRequestInvalidError,
  });
  t.regex(error.message, /networkDesign\.0/);
  t.true(error.outcomeUnknown === false);
  t.is(sim.state().calls.buy, 0);
});

const ANY_ORDER: OrderObject = {
  locationId: 1,
  productName: 'x',
  productType: 'MVE',
  term: 12,
  vendorConfig: vendorConfigSchema.parse({
    imageId: 1,
    mveLabel: 'MVE 2/8',
    adminPassword: 'Sup3rSecret!',
    sshPublicKey: 'ssh-rsa AAAA',
  }),
};

test('a 2xx buy with an unreadable body took effect: outcome unknown, not retry-safe', async (t) => {
  const client = await rawApi(t, (res) => res.end(JSON.stringify({ message: 'created', data: 'not a list' })));
  const error = await t.throwsAsync(client.buy({ networkDesign: [ANY_ORDER], discountCodes: [] }), {
    instanceOf: ApiInvalidResponseError,
  });
  t.true(error.outcomeUnknown);
  t.false(error.retrySafe);
  t.regex(error.message, /data/);
});

test('a buy goes out on a fresh connection, so an idle pooled one closed by the server cannot make it look uncertain', async (t) => {
  const seen: Array<{ url: string; connection: string | undefined; socket: unknown }> = [];
  const client = await rawApi(t, (res, req) => {
    seen.push({ url: req.url ?? '', connection: req.headers.connection, socket: req.socket });
    res.end(
      JSON.stringify(
        req.url?.endsWith('/buy') ? { message: 'ok', data: [{ technicalServiceUid: 'u-1' }] } : { data: [] },
      ),
    );
  });
  await client.listLocations();
  await client.listLocations();
  await client.buy({ networkDesign: [ANY_ORDER], discountCodes: [] });
  const [read1, read2, buy] = seen;
  t.is(read1.socket, read2.socket, 'reads share a pooled connection');
  t.not(buy.socket, read2.socket);
  t.is(buy.connection, 'close');
});

test('an error body that echoes the order has its vendorConfig secrets redacted', async (t) => {
  const client = await rawApi(t, (res) => {
    res.statusCode = 400;
    res.setHeader('trace-id', 'trace-from-header');
    res.end(JSON.stringify({ message: 'Invalid order', data: { order: ANY_ORDER } }));
  });
  const error = await t.throwsAsync(client.validate([ANY_ORDER]), { instanceOf: ApiRejectedError });
  t.is(error.traceId, 'trace-from-header');
  const shown = JSON.stringify(error);
  t.false(shown.includes('Sup3rSecret!'));
  t.regex(shown, /"adminPassword":"\[redacted\]"/);
  t.regex(error.message, /Invalid order/);
});

test('a server that echoes the token or the client secret does not put them into our errors', async (t) => {
  const client = await rawApi(t, (res) => {
    res.statusCode = 500;
    res.end(JSON.stringify({ message: 'boom for Bearer opaque-token', data: { secret: 'raw-secret-value' } }));
  });
  const error = await t.throwsAsync(client.listImages(), { instanceOf: ApiServerError });
  const shown = `${error.message} ${JSON.stringify(error)}`;
  t.false(shown.includes('opaque-token'));
  t.false(shown.includes('raw-secret-value'));
  t.regex(error.message, /boom for Bearer \[redacted\]/);
});

test('errors serialise to plain details; neither errors nor logs carry the token or the client secret', async (t) => {
  const log: ApiLogEntry[] = [];
  const { sim, client, close } = await simWithClient({}, { log: (entry) => log.push(entry) });
  t.teardown(close);
  const { order } = await validOrder(client);
  const failures: ApiError[] = [];
  sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
  sim.injectFault({ kind: 'rate-limit', endpoint: 'validate', retryAfterSeconds: 60 });
  sim.injectFault({ kind: 'error', endpoint: 'images', status: 503 });
  for (const attempt of [
    () => client.buy({ networkDesign: [order], discountCodes: [] }),
    () => client.validate([order]),
    () => client.listImages(),
  ]) {
    await attempt().catch((error: ApiError) => failures.push(error));
  }
  t.deepEqual(
    failures
      .map(
        (error) => JSON.parse(JSON.stringify(error)) as { type: string; retrySafe: boolean; outcomeUnknown: boolean },
      )
      .map(({ type, retrySafe, outcomeUnknown }) => ({ type, retrySafe, outcomeUnknown })),
    [
      { type: 'ApiNetwork', retrySafe: false, outcomeUnknown: true },
      { type: 'ApiRateLimited', retrySafe: true, outcomeUnknown: false },
      { type: 'ApiServerError', retrySafe: true, outcomeUnknown: false },
    ],
  );
  const token = (await client.tokenProvider.getToken()).reveal();
  const everything = JSON.stringify({ failures, messages: failures.map((error) => error.message), log });
  t.false(everything.includes(token));
  t.false(everything.includes(sim.clientSecret));
  t.true(log.length > 0);
  t.true(log.every((entry) => !('headers' in entry)));
});

test("only 400 and 422 prove a buy was not carried out; any other 4xx (a proxy's 408, 409, 425, a 403 or 404) leaves it uncertain", async (t) => {
  for (const status of [400, 422, 403, 404, 408, 409, 425, 451]) {
    const client = await rawApi(t, (res) => {
      res.statusCode = status;
      res.end(JSON.stringify({ message: `answered ${status}` }));
    });
    const error = (await t.throwsAsync(
      client.buy({ networkDesign: [ANY_ORDER], discountCodes: [] }),
    )) as unknown as ApiError;
    const proof = status === 400 || status === 422;
    t.is(error.outcomeUnknown, !proof, `${status}`);
    t.false(error.retrySafe, `${status} is never retried`);
  }
});
