/**
 * Per-credential rate limits on a real server over HTTP: a noisy credential is answered 429 with Retry-After while
 * another goes on; health, metrics and refused credentials are not counted; MVE_RATE_LIMIT is read with its rule.
 * Failed authentications per source address: past the limit a source is answered 429 without its credential being
 * looked at, until the window ends, while other sources go on; behind a trusted proxy the source is the forwarded one.
 */
import { request as httpRequest } from 'node:http';
import anyTest, { type TestFn } from 'ava';
import type { FastifyInstance } from 'fastify';
import {
  authFailureLimitFromEnv,
  buildApiServer,
  requestsPerMinuteFromEnv,
  trustProxyFromEnv,
  type ApiContext,
} from '../../client/http/index.js';
import { ConfigError } from '../../config/env.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { callApi, type ApiAnswer } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; limited: FastifyInstance; url: string }>;
const pg = usePostgres(test);
const PER_MINUTE = 5;

test.before(async (t) => {
  const api = await startApiEngine(pg, { worker: false });
  const limited = await buildApiServer({
    context: api.context,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
    requestsPerMinute: PER_MINUTE,
  });
  t.context = { api, limited, url: await limited.listen({ host: '127.0.0.1', port: 0 }) };
});
test.after.always(async (t) => {
  await t.context.limited?.close();
  await t.context.api?.stop();
});

/** GET `path` from the rate-limited server, as `as` (or with no credentials). */
function get(
  t: { context: { url: string; api: ApiEngine } },
  path: string,
  as?: 'alice' | 'fiona',
): Promise<ApiAnswer> {
  return callApi(t.context.url, 'GET', path, { token: as && t.context.api.tokens[as] });
}

test.serial('a credential over its budget gets 429 with Retry-After; another credential goes on', async (t) => {
  for (let i = 0; i < PER_MINUTE; i++) t.is((await get(t, '/api/v1/orders', 'alice')).status, 200);
  const refused = await get(t, '/api/v1/orders', 'alice');
  t.is(refused.status, 429);
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter > 0 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
  const { error } = json<ErrorBody>(refused);
  t.is(error.code, 'RATE_LIMITED');
  t.regex(error.message, /at most 5 a minute; try again in \d+ (seconds?|minutes?)/);
  t.is((await get(t, '/api/v1/approvals', 'alice')).status, 429, 'the budget is the credential’s, on every route');

  t.is((await get(t, '/api/v1/approvals', 'fiona')).status, 200, 'an approver is not starved by a noisy caller');
});

test.serial('health, readiness, metrics and refused credentials are not counted', async (t) => {
  for (let i = 0; i < PER_MINUTE + 3; i++) {
    t.is((await get(t, '/healthz')).status, 200);
    t.is((await get(t, '/metrics')).status, 200);
    t.is((await get(t, '/api/v1/orders')).status, 401, 'no credential: 401, never 429');
  }
});

test('MVE_RATE_LIMIT: 600 a minute by default, 0 for none, anything else named with its rule', (t) => {
  t.is(requestsPerMinuteFromEnv({}), 600);
  t.is(requestsPerMinuteFromEnv({ MVE_RATE_LIMIT: '0' }), 0);
  t.is(requestsPerMinuteFromEnv({ MVE_RATE_LIMIT: '1200' }), 1200);
  const bad = t.throws(() => requestsPerMinuteFromEnv({ MVE_RATE_LIMIT: 'lots' }), { instanceOf: ConfigError });
  t.regex(bad.message, /MVE_RATE_LIMIT: must be a whole number of requests a minute/);
  t.throws(() => requestsPerMinuteFromEnv({ MVE_RATE_LIMIT: '-1' }), { message: /MVE_RATE_LIMIT: must be 0/ });
});

test('the OpenAPI document names 429 on every route of the API', async (t) => {
  const document = json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
    await t.context.api.call('GET', '/openapi.json'),
  );
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/') && !path.startsWith('/codec/')) continue;
    for (const [method, operation] of Object.entries(operations))
      t.truthy(operation.responses['429'], `${method.toUpperCase()} ${path} documents 429`);
  }
});

// ---- failed authentications per source ----

const FAILURES = 3;
const WINDOW_MS = 2_000;

/** A server counting failed authentications (FAILURES in WINDOW_MS), and how often it looked a credential up. */
async function guardedServer(
  t: { context: { api: ApiEngine }; teardown(fn: () => Promise<void>): void },
  trustProxy?: string,
) {
  const { api } = t.context;
  const lookups = { count: 0 };
  const context: ApiContext = {
    ...api.context,
    authenticator: {
      authenticate: (authorization) => {
        lookups.count += 1;
        return api.context.authenticator.authenticate(authorization);
      },
    },
  };
  const app = await buildApiServer({
    context,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
    authFailures: { failures: FAILURES, windowMs: WINDOW_MS },
    ...(trustProxy ? { trustProxy } : {}),
  });
  t.teardown(() => app.close());
  return { url: await app.listen({ host: '127.0.0.1', port: 0 }), lookups };
}

/** GET `path` from the local address `from` (any of 127.0.0.0/8 on Linux), with `token` and any other headers. */
function getFrom(
  url: string,
  from: string,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | undefined; json(): unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}/api/v1/orders`,
      { localAddress: from, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            json: () => JSON.parse(text) as unknown,
          }),
        );
      },
    );
    request.on('error', reject).end();
  });
}

/** A token of the right form that no one was issued. */
const forged = (token: string) => `${token.slice(0, -6)}AAAAAA`;

test.serial(
  'past the failed authentications of a source, it is refused 429 without a lookup; other sources go on',
  async (t) => {
    const { api } = t.context;
    const { url, lookups } = await guardedServer(t);
    const attacker = '127.0.0.2';
    for (let i = 0; i < FAILURES; i++) t.is((await getFrom(url, attacker, forged(api.tokens.alice))).status, 401);
    t.is(lookups.count, FAILURES, 'each failure cost one lookup');

    const refused = await getFrom(url, attacker, forged(api.tokens.alice));
    t.is(refused.status, 429);
    const { error } = json<ErrorBody>(refused);
    t.is(error.code, 'RATE_LIMITED');
    t.regex(error.message, /too many failed authentications from this address: 3 within 2 s/);
    const retryAfter = Number(refused.retryAfter);
    t.true(retryAfter >= 1 && retryAfter <= 2, `Retry-After: ${refused.retryAfter}`);
    t.is((await getFrom(url, attacker, api.tokens.alice)).status, 429, 'a good token from there too');
    t.is((await getFrom(url, attacker, undefined)).status, 429, 'and no token at all');
    t.is(lookups.count, FAILURES, 'no credential was looked up once the source was refused');

    t.is((await getFrom(url, '127.0.0.1', api.tokens.alice)).status, 200, 'another source is not refused');
    for (let i = 0; i < FAILURES + 2; i++) t.is((await getFrom(url, '127.0.0.4', undefined)).status, 401);
    t.is(
      (await getFrom(url, '127.0.0.4', api.tokens.alice)).status,
      200,
      'requests with no credential are not counted',
    );
    t.is((await getFrom(url, '127.0.0.1', forged(api.tokens.fiona))).status, 401, 'and counts its own failures');

    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 100));
    t.is((await getFrom(url, attacker, api.tokens.alice)).status, 200, 'once the window ended, the source is heard');
  },
);

test.serial('behind a trusted proxy the source is the address it forwards; otherwise the connection’s', async (t) => {
  const { api } = t.context;
  const behindProxy = await guardedServer(t, '127.0.0.1');
  const forwardedFor = (address: string) => ({ 'x-forwarded-for': address });
  for (let i = 0; i < FAILURES; i++) {
    const failed = await getFrom(behindProxy.url, '127.0.0.1', forged(api.tokens.alice), forwardedFor('203.0.113.7'));
    t.is(failed.status, 401);
  }
  t.is((await getFrom(behindProxy.url, '127.0.0.1', api.tokens.alice, forwardedFor('203.0.113.7'))).status, 429);
  t.is(
    (await getFrom(behindProxy.url, '127.0.0.1', api.tokens.alice, forwardedFor('203.0.113.8'))).status,
    200,
    'another client behind the same proxy is not refused',
  );

  const direct = await guardedServer(t);
  for (let i = 0; i < FAILURES; i++) {
    await getFrom(direct.url, '127.0.0.3', forged(api.tokens.alice), forwardedFor(`198.51.100.${i}`));
  }
  const untrusted = await getFrom(direct.url, '127.0.0.3', api.tokens.alice, forwardedFor('198.51.100.99'));
  t.is(untrusted.status, 429, 'an X-Forwarded-For no proxy is trusted for changes nothing');
});

test('MVE_RATE_LIMIT_AUTH_FAILURES and _WINDOW: 20 a minute by default, 0 for none; MVE_TRUST_PROXY: addresses', (t) => {
  t.deepEqual(authFailureLimitFromEnv({}), { failures: 20, windowMs: 60_000 });
  t.deepEqual(authFailureLimitFromEnv({ MVE_RATE_LIMIT_AUTH_FAILURES: '0', MVE_RATE_LIMIT_AUTH_WINDOW: '15m' }), {
    failures: 0,
    windowMs: 900_000,
  });
  t.throws(() => authFailureLimitFromEnv({ MVE_RATE_LIMIT_AUTH_FAILURES: 'many' }), {
    instanceOf: ConfigError,
    message: /MVE_RATE_LIMIT_AUTH_FAILURES: must be a whole number of failed authentications/,
  });
  t.throws(() => authFailureLimitFromEnv({ MVE_RATE_LIMIT_AUTH_WINDOW: 'soon' }), {
    message: /MVE_RATE_LIMIT_AUTH_WINDOW: must be a positive whole number of milliseconds/,
  });
  t.is(trustProxyFromEnv({}), undefined);
  t.is(trustProxyFromEnv({ MVE_TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,::1' }), '10.0.0.0/8,192.168.1.5,::1');
  for (const bad of ['true', '*', '10.0.0.0/33', 'balancer.internal'])
    t.throws(
      () => trustProxyFromEnv({ MVE_TRUST_PROXY: bad }),
      { message: /MVE_TRUST_PROXY: must be the load balancers/ },
      bad,
    );
});
