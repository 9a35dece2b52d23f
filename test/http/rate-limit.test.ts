/**
 * Per-credential rate limits on a real server over HTTP: a noisy credential is answered 429 with Retry-After while
 * another goes on; health, metrics and refused credentials are not counted; MVE_RATE_LIMIT is read with its rule.
 */
import anyTest, { type TestFn } from 'ava';
import type { FastifyInstance } from 'fastify';
import { buildApiServer, requestsPerMinuteFromEnv } from '../../client/http/index.js';
import { ConfigError } from '../../config/env.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';

const test = anyTest as TestFn<{ api: ApiEngine; limited: FastifyInstance; url: string }>;
const pg = usePostgres(test);
const PER_MINUTE = 5;

test.before(async (t) => {
  const api = await startApiEngine(pg, { worker: false });
  const limited = await buildApiServer({
    context: api.context,
    readiness: { temporal: async () => undefined, postgres: async () => undefined },
    requestsPerMinute: PER_MINUTE,
  });
  t.context = { api, limited, url: await limited.listen({ host: '127.0.0.1', port: 0 }) };
});
test.after.always(async (t) => {
  await t.context.limited?.close();
  await t.context.api?.stop();
});

async function get(t: { context: { url: string; api: ApiEngine } }, path: string, as?: 'alice' | 'fiona') {
  const headers: Record<string, string> = as ? { authorization: `Bearer ${t.context.api.tokens[as]}` } : {};
  const response = await fetch(`${t.context.url}${path}`, { headers });
  return { status: response.status, headers: response.headers, body: (await response.text()) || '' };
}

test.serial('a credential over its budget gets 429 with Retry-After; another credential goes on', async (t) => {
  for (let i = 0; i < PER_MINUTE; i++) t.is((await get(t, '/api/v1/orders', 'alice')).status, 200);
  const refused = await get(t, '/api/v1/orders', 'alice');
  t.is(refused.status, 429);
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter > 0 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
  const { error } = JSON.parse(refused.body) as { error: { code: string; message: string } };
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
  const document = (await t.context.api.call('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/') && !path.startsWith('/codec/')) continue;
    for (const [method, operation] of Object.entries(operations))
      t.truthy(operation.responses['429'], `${method.toUpperCase()} ${path} documents 429`);
  }
});
