/**
 * A dependency that does not answer, for real (a loopback port nothing listens on): PostgreSQL down is 503 with
 * Retry-After on every authenticated route, never a 500 or a stack; Temporal down, reads answer from the records within
 * seconds and actions are 503 with Retry-After.
 */
import anyTest, { type TestFn } from 'ava';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApiServer, createAuthenticator, type ApiContext } from '../../client/http/index.js';
import type { OrderServiceParts } from '../../client/orders/index.js';
import type { ApiOrder } from '../../client/http-client/index.js';
import { connectDatabase, createRepository } from '../../infra/db/index.js';
import { contextWith, partsOver, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { sydneyRequest } from '../helpers/orders.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { json, type ErrorBody, type ReadinessBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** A server on the engine's context with some of it swapped for parts whose dependency is down. */
async function serverWith(
  t: { teardown(fn: () => Promise<void>): void; context: { api: ApiEngine } },
  parts: Partial<OrderServiceParts>,
  own: Partial<Omit<ApiContext, 'service'>> = {},
) {
  const { api } = t.context;
  const { temporal, repository } = { ...api.parts, ...parts };
  const app: FastifyInstance = await buildApiServer({
    context: contextWith(api, parts, own),
    readiness: {
      temporal: async () => void (await temporal.connection.workflowService.getSystemInfo({})),
      postgres: async () => void (await repository.listOrders({ limit: 1 })),
    },
  });
  t.teardown(() => app.close());
  return app;
}

const noStack = (text: string) => !/\n\s+at |Error:|ECONNREFUSED/.test(text);

test('PostgreSQL down: 503 with Retry-After and a clear message, on reads and writes; /readyz says which', async (t) => {
  const { api } = t.context;
  const sql = connectDatabase(`postgres://nobody:nothing@127.0.0.1:${await closedPort()}/orders`);
  t.teardown(() => sql.end({ timeout: 1 }));
  const repository = createRepository(sql);
  const app = await serverWith(t, { repository }, { authenticator: createAuthenticator({ tokens: repository }) });
  const alice = { authorization: `Bearer ${api.tokens.alice}` };
  for (const [method, url] of [
    ['GET', '/api/v1/orders'],
    ['GET', '/api/v1/approvals'],
    ['POST', '/api/v1/orders'],
  ] as const) {
    const response = await app.inject({ method, url, headers: alice, ...(method === 'POST' ? { payload: {} } : {}) });
    t.is(response.statusCode, 503, `${method} ${url}: ${response.body}`);
    t.is(response.headers['retry-after'], '5');
    const { error } = json<ErrorBody>(response);
    t.is(error.code, 'SERVICE_UNAVAILABLE');
    t.regex(error.message, /^PostgreSQL does not answer this server now; try again in 5 s/);
    t.true(noStack(response.body), response.body);
  }
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.is(ready.statusCode, 503);
  t.false(json<ReadinessBody>(ready).checks.postgres.ok);
  t.is((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

test('Temporal down: an order reads from the records; a vote is 503 with Retry-After and changes nothing', async (t) => {
  const { api } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest('UNAV-1', { size: 'MVE 8/32' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const waiting = await waitForApiState(api, 'UNAV-1', 'AWAITING_APPROVAL');

  const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, connectTimeout: '1s' });
  t.teardown(() => connection.close().catch(() => undefined));
  const deadTemporal = new Client({ connection, namespace: api.temporal.namespace });
  const app = await serverWith(t, partsOver(api, deadTemporal));
  const as = (user: 'alice' | 'fiona') => ({ authorization: `Bearer ${api.tokens[user]}` });

  // The read gives up on Temporal after a few seconds (READ_DEADLINE_MS), not after the client's own ~20 s of retries.
  const asked = Date.now();
  const read = await app.inject({ method: 'GET', url: '/api/v1/orders/UNAV-1', headers: as('alice') });
  const tookMs = Date.now() - asked;
  t.is(read.statusCode, 200, read.body);
  const order = json<ApiOrder>(read);
  t.is(order.source, 'records');
  t.is(order.state, 'AWAITING_APPROVAL');
  t.true(tookMs < 10_000, `answered from the records after ${tookMs} ms`);

  const vote = await app.inject({
    method: 'POST',
    url: '/api/v1/orders/UNAV-1/approve',
    headers: as('fiona'),
    payload: { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency },
  });
  t.is(vote.statusCode, 503, vote.body);
  t.is(vote.headers['retry-after'], '5');
  const { error } = json<ErrorBody>(vote);
  t.regex(error.message, /^Temporal does not answer this server now/);
  t.regex(error.message, /\(the approval did not take effect: nothing changed\)$/);
  t.false(error.mayHaveTakenEffect, 'the read before it failed: the vote was never sent');
  t.true(noStack(vote.body), vote.body);
  const after = await api.call('GET', '/api/v1/orders/UNAV-1', { as: 'alice' });
  t.is(json<ApiOrder>(after).state, 'AWAITING_APPROVAL');
  t.deepEqual(json<ApiOrder>(after).approval!.votes, [], 'the vote did not reach the order');
});
