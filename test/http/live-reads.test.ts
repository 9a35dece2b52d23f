/**
 * Reads of an order never starve the actions: a server has at most MVE_LIVE_READS reads at Temporal at once (each a
 * workflow query the workers answer beside the orders' votes and buys); a read past that bound answers at once from
 * the records (`source: records`), votes still go to the workflow, and /metrics counts what was passed over.
 */
import anyTest, { type TestFn } from 'ava';
import { buildApiServer } from '../../client/http/index.js';
import type { ApiOrder, VoteResult } from '../../client/http-client/index.js';
import { LiveReads, liveReadsFromEnv, type OrderClient } from '../../client/orders/index.js';
import {
  contextWith,
  namedRequest,
  startApiEngine,
  waitForApiState,
  type ApiEngine,
  type TestUser,
} from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { callApi } from '../helpers/api-call.js';
import { json } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** The engine's order client, whose next status read waits at Temporal until `release` (a slow query). */
function holdingNextRead(orders: OrderClient) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const holding = Object.create(orders) as OrderClient;
  holding.status = async (orderId) => {
    if (!held) {
      held = true;
      await released;
    }
    return orders.status(orderId);
  };
  return { holding, release };
}

test('past the bound a read answers from the records at once, and a vote still reaches the workflow', async (t) => {
  const { api } = t.context;
  t.is(
    (
      await api.call('POST', '/api/v1/orders', {
        as: 'alice',
        body: namedRequest('BOUND-1', { size: 'MVE 8/32' }),
      })
    ).status,
    201,
  );
  await waitForApiState(api, 'BOUND-1', 'AWAITING_APPROVAL');

  const { holding, release } = holdingNextRead(api.parts.orders);
  const context = contextWith(api, { orders: holding, liveReads: new LiveReads(1) });
  const app = await buildApiServer({
    context,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
  });
  t.teardown(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const call = async (method: string, path: string, as: TestUser | undefined, body?: unknown) => {
    const started = Date.now();
    const answer = await callApi(url, method, path, { token: as && api.tokens[as], body });
    return { ...answer, ms: Date.now() - started };
  };

  const held = call('GET', '/api/v1/orders/BOUND-1', 'olga');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const passed = await call('GET', '/api/v1/orders/BOUND-1', 'olga');
  t.is(passed.status, 200);
  t.like(passed.body, { ticketId: 'BOUND-1', state: 'AWAITING_APPROVAL', source: 'records' });
  t.true(passed.ms < 2_000, `answered at once (${passed.ms} ms)`);
  // The records' answer is given only to whom the live one would be: not to a ticket system that did not submit it,
  // not without a token.
  t.is((await call('GET', '/api/v1/orders/BOUND-1', 'ticket-bot')).status, 404);
  t.is((await call('GET', '/api/v1/orders/BOUND-1', undefined)).status, 401);

  const vote = await call('POST', '/api/v1/orders/BOUND-1/approve', 'fiona', TEAM);
  t.is(vote.status, 200, JSON.stringify(vote.body));
  t.is(json<VoteResult>(vote).state, 'APPROVED', 'the vote went to the workflow, past the held read');

  release();
  t.like((await held).body, { ticketId: 'BOUND-1', source: 'workflow' });
  t.is(
    json<ApiOrder>(await call('GET', '/api/v1/orders/BOUND-1', 'olga')).source,
    'workflow',
    'within the bound again',
  );

  const metrics = await (await fetch(`${url}/metrics`)).text();
  t.regex(metrics, /^mve_api_live_reads_passed_over_total 2$/m);
});

test('MVE_LIVE_READS is a whole number of 1 or more, 8 when left out', (t) => {
  t.is(liveReadsFromEnv({}), 8);
  t.is(liveReadsFromEnv({ MVE_LIVE_READS: '32' }), 32);
  t.throws(() => liveReadsFromEnv({ MVE_LIVE_READS: '0' }), { message: /MVE_LIVE_READS: must be 1 or more/ });
  t.throws(() => liveReadsFromEnv({ MVE_LIVE_READS: 'many' }), {
    message: /MVE_LIVE_READS: must be a whole number of reads/,
  });
});
