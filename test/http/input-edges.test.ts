/**
 * Inputs at the edges of what the OpenAPI document allows, through real HTTP against the real worker: what
 * `npm run fuzz:api` (schemathesis) found answering 500, or in fastify's own error shape instead of the API's, or
 * with a status the document does not list.
 *
 * - A NUL character (U+0000), which PostgreSQL's text cannot hold: in a query or path parameter it failed the
 *   query (500); in a vote's comment, a reason or a note it was taken, and every retry of the journal write
 *   failed after it, holding the order where it was. Refused with 400 now, before anything reaches the workflow.
 * - Ticket ids over fastify's default path parameter limit (100 characters, under the 255 the document allows):
 *   414 in fastify's shape. A path that is not valid percent-encoding: 400 in fastify's shape.
 * - `GET /api/v1/approvals?limit=1001`: 400, which its document did not list.
 */
import anyTest, { type TestFn } from 'ava';
import type { ApiOrder, OrderHistory } from '../../client/http-client/index.js';
import { startApiEngine, namedRequest, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { expectError } from '../helpers/api-call.js';
import { json } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test('a NUL character in a query or path parameter is 400, not a failed query', async (t) => {
  const { api } = t.context;
  expectError(
    t,
    await api.call('GET', '/api/v1/orders?requester=a%00b', { as: 'olga' }),
    400,
    'INVALID_INPUT',
    'querystring.requester',
  );
  for (const path of ['/api/v1/orders/a%00b', '/api/v1/orders/a%00b/history']) {
    expectError(t, await api.call('GET', path, { as: 'olga' }), 400, 'INVALID_INPUT', 'params.orderId');
  }
  expectError(
    t,
    await api.call('POST', '/api/v1/orders/a%00b/cancel', { as: 'olga', body: { reason: 'duplicate' } }),
    400,
    'INVALID_INPUT',
    'params.orderId',
  );
  // The same parameters without one still answer as they did.
  t.is((await api.call('GET', '/api/v1/orders?requester=ab', { as: 'olga' })).status, 200);
  expectError(t, await api.call('GET', '/api/v1/orders/ab', { as: 'olga' }), 404, 'NOT_FOUND');
});

test('a NUL character in a comment, reason or note is 400; the order still waits, and takes a clean vote', async (t) => {
  const { api } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('NUL-1', { size: 'MVE 8/32' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const waiting = await waitForApiState(api, 'NUL-1', 'AWAITING_APPROVAL');
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  const refused: Array<[string, string, Record<string, unknown>, string]> = [
    ['approve', 'fiona', { ...quote, comment: 'budgeted\u0000' }, 'body.comment'],
    ['reject', 'fiona', { ...quote, reason: '\u0000too dear' }, 'body.reason'],
    ['cancel', 'olga', { reason: 'dup\u0000licate' }, 'body.reason'],
    ['resolve-buy', 'olga', { outcome: 'not-created', attempt: 1, note: 'checked\u0000' }, 'body.note'],
  ];
  for (const [action, as, body, path] of refused) {
    const response = await api.call('POST', `/api/v1/orders/NUL-1/${action}`, { as: as as 'fiona' | 'olga', body });
    expectError(t, response, 400, 'INVALID_INPUT', path);
  }

  const history = await api.call('GET', '/api/v1/orders/NUL-1/history?events=false', { as: 'olga' });
  t.is(history.status, 200, JSON.stringify(history.body));
  t.deepEqual(json<OrderHistory>(history).votes, [], 'no vote was taken');
  t.is(json<ApiOrder>(await api.call('GET', '/api/v1/orders/NUL-1', { as: 'olga' })).state, 'AWAITING_APPROVAL');

  // Line breaks and tabs are text like any other: only NUL is refused.
  const approved = await api.call('POST', '/api/v1/orders/NUL-1/approve', {
    as: 'fiona',
    body: { ...quote, comment: 'budgeted:\n\tline 42' },
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  await waitForApiState(api, 'NUL-1', 'BOUGHT');
  const after = await api.call('GET', '/api/v1/orders/NUL-1/history?events=false', { as: 'olga' });
  t.like(json<OrderHistory>(after).votes, [
    { approverId: 'fiona', decision: 'approve', reason: 'budgeted:\n\tline 42' },
  ]);
});

test('a ticket id of up to 255 characters reaches the route; a longer one is 400 in the API error shape', async (t) => {
  const { api } = t.context;
  // 101 and 255 characters: past fastify's default limit (100), within the document's (255). No such order: 404.
  for (const ticketId of ['x'.repeat(101), 'x'.repeat(255), '€'.repeat(255)]) {
    const encoded = encodeURIComponent(ticketId);
    expectError(t, await api.call('GET', `/api/v1/orders/${encoded}`, { as: 'olga' }), 404, 'NOT_FOUND');
    expectError(t, await api.call('GET', `/api/v1/orders/${encoded}/history`, { as: 'olga' }), 404, 'NOT_FOUND');
  }
  expectError(
    t,
    await api.call('GET', `/api/v1/orders/${'x'.repeat(256)}`, { as: 'olga' }),
    400,
    'INVALID_INPUT',
    'params.orderId',
  );
  // Past what the router takes at all: refused before any route, still in the API's shape.
  const huge = 'x'.repeat(5_000);
  expectError(t, await api.call('GET', `/api/v1/orders/${huge}`, { as: 'olga' }), 400, 'INVALID_INPUT', 'params');
  expectError(
    t,
    await api.call('POST', `/api/v1/orders/${huge}/approve`, {
      as: 'fiona',
      body: { monthlyRate: 1, currency: 'AUD' },
    }),
    400,
    'INVALID_INPUT',
    'params',
  );
});

test('a path that is not valid percent-encoding is 400 in the API error shape', async (t) => {
  const { api } = t.context;
  expectError(t, await api.call('GET', '/api/v1/orders/%E0%A4%A', { as: 'olga' }), 400, 'INVALID_INPUT', 'params');
  expectError(
    t,
    await api.call('POST', '/codec/%E0%A4%A', { as: 'olga', body: { payloads: [] } }),
    400,
    'INVALID_INPUT',
    'params',
  );
});

test('GET /api/v1/approvals answers 400 for a bad limit, and its document says so', async (t) => {
  const { api } = t.context;
  expectError(
    t,
    await api.call('GET', '/api/v1/approvals?limit=1001', { as: 'fiona' }),
    400,
    'INVALID_INPUT',
    'querystring.limit',
  );
  // Every operation that takes a parameter or a body can be sent a bad one: each documents its 400.
  const document = (await api.call('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { parameters?: unknown[]; requestBody?: unknown; responses: object }>>;
  };
  const undocumented = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/api/') || path.startsWith('/codec/'))
    .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })))
    .filter(({ operation }) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined)
    .filter(({ operation }) => !('400' in operation.responses))
    .map(({ path, method }) => `${method.toUpperCase()} ${path}`);
  t.deepEqual(undocumented, []);
});
