/**
 * The operational surface of the API: liveness and readiness (and readiness failing, naming Temporal, when it
 * cannot be reached), Prometheus metrics fed by real traffic and real orders, /api/v1/me for an API token, and
 * the JSON error body for an unknown route and for bodies fastify itself refuses.
 */
import anyTest, { type TestFn } from 'ava';
import { Connection } from '@temporalio/client';
import { buildApiServer } from '../../client/http/index.js';
import type { Me } from '../../client/http-client/index.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { sydneyRequest } from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';
import { json, type ErrorBody, type ReadinessBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** The samples of one metric whose labels include all of `labels`, with their values. */
function samples(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): Array<{ line: string; value: number }> {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
    .map((line) => ({ line, value: Number(line.slice(line.lastIndexOf(' ') + 1)) }));
}

const sum = (list: Array<{ value: number }>) => list.reduce((total, sample) => total + sample.value, 0);

test('/healthz answers 200 without credentials', async (t) => {
  const response = await t.context.api.call('GET', '/healthz');
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'ok' });
  t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
});

test('/readyz answers 200 with both checks ok when Temporal and PostgreSQL answer', async (t) => {
  const response = await t.context.api.call('GET', '/readyz');
  t.is(response.status, 200, JSON.stringify(response.body));
  t.deepEqual(response.body, { status: 'ready', checks: { temporal: { ok: true }, postgres: { ok: true } } });
});

test('/readyz answers 503 naming temporal when its check fails, and postgres still ok', async (t) => {
  const { api } = t.context;
  const app = await buildApiServer({
    context: api.context,
    readiness: {
      temporal: () => Promise.reject(new Error('14 UNAVAILABLE: No connection established')),
      postgres: async () => void (await api.db.sql`SELECT 1`),
    },
  });
  t.teardown(() => app.close());
  const response = await app.inject({ method: 'GET', url: '/readyz' });
  t.is(response.statusCode, 503);
  t.deepEqual(json<ReadinessBody>(response), {
    status: 'not ready',
    checks: { temporal: { ok: false, error: '14 UNAVAILABLE: No connection established' }, postgres: { ok: true } },
  });
  t.is((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'alive all the same');
});

test('/readyz answers 503 naming temporal when its frontend is a closed port (a real client, a real failure)', async (t) => {
  const { api } = t.context;
  const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, connectTimeout: '1s' });
  // The client retries an unreachable server in the background; the deadline ends its retries, and the
  // connection is closed only once the call has settled (closing under a pending retry throws).
  const pending: Array<Promise<unknown>> = [];
  t.teardown(async () => {
    await Promise.allSettled(pending);
    await connection.close().catch(() => undefined);
  });
  const app = await buildApiServer({
    context: api.context,
    readiness: {
      temporal: async () => {
        const call = connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
        pending.push(call);
        await call;
      },
      postgres: async () => void (await api.db.sql`SELECT 1`),
    },
  });
  t.teardown(() => app.close());
  const started = Date.now();
  const response = await app.inject({ method: 'GET', url: '/readyz' });
  t.is(response.statusCode, 503, response.body);
  const body = json<ReadinessBody>(response);
  t.is(body.status, 'not ready');
  t.false(body.checks.temporal.ok);
  t.true(
    typeof body.checks.temporal.error === 'string' && body.checks.temporal.error.length > 0,
    body.checks.temporal.error,
  );
  t.deepEqual(body.checks.postgres, { ok: true });
  t.log(`temporal check: ${body.checks.temporal.error}`);
  t.true(Date.now() - started < 10_000, 'readiness answers within its own timeout');
});

test('/metrics: Prometheus text with order, approval, request and buy figures after real traffic', async (t) => {
  const { api } = t.context;
  // One order auto-approved and bought; one waiting for approval.
  t.is(
    (await api.call('POST', '/api/v1/orders', { as: 'alice', body: sydneyRequest('OPS-BOUGHT', { size: 'MVE 4/16' }) }))
      .status,
    201,
  );
  t.is(
    (
      await api.call('POST', '/api/v1/orders', {
        as: 'alice',
        body: sydneyRequest('OPS-WAITING', { size: 'MVE 8/32' }),
      })
    ).status,
    201,
  );
  await waitForState(api.orders, 'OPS-BOUGHT', 'BOUGHT');
  await waitForState(api.orders, 'OPS-WAITING', 'AWAITING_APPROVAL');
  for (let i = 0; i < 3; i++) t.is((await api.call('GET', '/api/v1/orders/OPS-BOUGHT', { as: 'alice' })).status, 200);
  t.is((await api.call('GET', '/api/v1/orders/OPS-NO-SUCH-TICKET', { as: 'alice' })).status, 404);

  // The order figures come from Postgres at scrape time (cached for a second): poll until the buy is recorded.
  const text = await waitFor(
    async () => {
      const response = await api.call('GET', '/metrics');
      const body = String(response.body);
      return sum(samples(body, 'mve_buy_attempts', { outcome: 'created' })) >= 1 &&
        sum(samples(body, 'mve_approvals_pending')) >= 1
        ? body
        : undefined;
    },
    20_000,
    'the bought order in /metrics',
  );
  const metrics = await api.call('GET', '/metrics');
  t.is(metrics.status, 200);
  t.regex(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);

  t.regex(text, /^# TYPE mve_orders gauge$/m);
  t.true(samples(text, 'mve_orders', { state: 'BOUGHT' })[0].value >= 1, 'mve_orders{state="BOUGHT"}');
  t.true(
    samples(text, 'mve_orders', { state: 'AWAITING_APPROVAL' })[0].value >= 1,
    'mve_orders{state="AWAITING_APPROVAL"}',
  );
  t.true(samples(text, 'mve_orders', { state: 'BUY_UNCERTAIN' }).length === 1, 'every state has a sample, zero or not');
  t.true(samples(text, 'mve_approvals_pending')[0].value >= 1);
  t.is(samples(text, 'mve_approvals_pending_oldest_seconds').length, 1);
  t.true(samples(text, 'mve_buy_attempts', { outcome: 'created' })[0].value >= 1);
  for (const outcome of ['not-created', 'uncertain', 'in-flight'])
    t.is(samples(text, 'mve_buy_attempts', { outcome }).length, 1, outcome);

  // Requests are labelled by route pattern, never by the URL: ticket ids do not become labels.
  const byRoute = { method: 'GET', route: '/api/v1/orders/:orderId' };
  t.true(
    sum(samples(text, 'mve_api_requests_total', { ...byRoute, status: '200' })) >= 3,
    samples(text, 'mve_api_requests_total')
      .map((s) => s.line)
      .join('\n'),
  );
  t.true(sum(samples(text, 'mve_api_requests_total', { ...byRoute, status: '404' })) >= 1);
  t.false(text.includes('OPS-BOUGHT') || text.includes('OPS-NO-SUCH-TICKET'), 'no ticket id in the metrics');
  t.regex(text, /^# TYPE mve_api_request_duration_seconds histogram$/m);
  const buckets = samples(text, 'mve_api_request_duration_seconds_bucket', byRoute);
  t.true(buckets.length >= 10, 'one sample per bucket');
  t.true(samples(text, 'mve_api_request_duration_seconds_bucket', { ...byRoute, le: '+Inf' })[0].value >= 4);
  t.true(samples(text, 'mve_api_request_duration_seconds_count', byRoute)[0].value >= 4);
});

test('GET /api/v1/me: who an API token is, and what it may do', async (t) => {
  const { api } = t.context;
  const me = async (user: 'alice' | 'fiona' | 'olga' | 'aliceApprover' | 'ticket-bot') => {
    const response = await api.call('GET', '/api/v1/me', { as: user });
    t.is(response.status, 200, JSON.stringify(response.body));
    return json<Me>(response);
  };
  t.deepEqual(await me('alice'), {
    id: 'alice',
    qualifiedId: 'alice',
    roles: ['requester'],
    via: 'token',
    can: {
      readOrders: true,
      submit: true,
      approve: false,
      seeAllOrders: false,
      resolveBuys: false,
      readHistoryPayloads: false,
    },
  });
  t.deepEqual(await me('fiona'), {
    id: 'fiona',
    qualifiedId: 'fiona',
    roles: ['finance-approver'],
    via: 'token',
    can: {
      readOrders: true,
      submit: false,
      approve: true,
      seeAllOrders: true,
      resolveBuys: false,
      readHistoryPayloads: false,
    },
  });
  t.deepEqual(await me('olga'), {
    id: 'olga',
    qualifiedId: 'olga',
    roles: ['ops'],
    via: 'token',
    can: {
      readOrders: true,
      submit: false,
      approve: false,
      seeAllOrders: true,
      resolveBuys: true,
      readHistoryPayloads: true,
    },
  });
  t.deepEqual((await me('aliceApprover')).can, {
    readOrders: true,
    submit: true,
    approve: true,
    seeAllOrders: true,
    resolveBuys: false,
    readHistoryPayloads: false,
  });
  t.deepEqual((await me('ticket-bot')).roles, ['ticket-system']);

  const anonymous = await api.call('GET', '/api/v1/me');
  t.is(anonymous.status, 401);
  t.is(json<ErrorBody>(anonymous).error.code, 'UNAUTHENTICATED');
});

test('an unknown route answers 404 with the JSON error body', async (t) => {
  const { api } = t.context;
  for (const [method, path] of [
    ['GET', '/nope'],
    ['POST', '/healthz'],
    ['DELETE', '/api/v1/orders/X'],
  ] as const) {
    const response = await api.call(method, path, { as: 'olga' });
    t.is(response.status, 404, `${method} ${path}`);
    t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
    t.is(json<ErrorBody>(response).error.code, 'NOT_FOUND');
    t.is(json<ErrorBody>(response).error.message, `no route ${method} ${path}`);
    t.deepEqual(json<ErrorBody>(response).error.details, []);
  }
  const unauthenticated = await api.call('GET', '/api/v1/nope');
  t.is(unauthenticated.status, 401, 'under /api/ the caller is authenticated before the router says no');
});

test('bodies fastify refuses (malformed JSON, wrong content type, too large) get a JSON error body and change nothing', async (t) => {
  const { api } = t.context;
  const post = (body: string, contentType: string) =>
    fetch(`${api.url}/api/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.tokens.alice}`, 'content-type': contentType },
      body,
    });

  const malformed = await post('{"ticketId": "OPS-MALFORMED", ', 'application/json');
  t.is(malformed.status, 400);
  const malformedBody = await json<ErrorBody>(malformed);
  t.is(malformedBody.error.code, 'INVALID_INPUT');
  t.regex(malformedBody.error.message, /JSON/i);
  t.deepEqual(malformedBody.error.details, []);

  const wrongType = await post('ticketId=OPS-FORM', 'application/x-www-form-urlencoded');
  t.is(wrongType.status, 415);
  t.is((await json<ErrorBody>(wrongType)).error.code, 'INVALID_INPUT');

  const huge = await post(
    JSON.stringify({ ...sydneyRequest('OPS-HUGE'), padding: 'x'.repeat(1_100_000) }),
    'application/json',
  );
  t.is(huge.status, 413);
  t.is((await json<ErrorBody>(huge)).error.code, 'INVALID_INPUT');

  for (const ticket of ['OPS-MALFORMED', 'OPS-FORM', 'OPS-HUGE'])
    t.is(await api.ticket(ticket), null, `${ticket} was not taken`);
});
