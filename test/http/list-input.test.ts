/**
 * The list's query, as a caller may bend it. The cursor is handed out by the API and handed back by the caller, who
 * may have changed it: one that is not a cursor the API gave (above all one whose date is not a date, which reached
 * the database and answered 500) is 400 in the API's error shape, naming the field and the rule; the API's own
 * cursors still page. A blank `requester` filter, which also reached the database, is 400 too.
 */
import anyTest, { type TestFn } from 'ava';
import { ApiError } from '../../client/http/errors.js';
import { decodeCursor, encodeCursor } from '../../client/http/cursor.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Cursors the API never gave, each with the words its refusal must hold. */
const FORGED: Array<[string, string, RegExp]> = [
  ['not base64url JSON', 'garbage', /not base64url JSON/],
  ['a number for the date', cursorOf([1, 'mve-order-A']), /does not hold a date and a workflow id/],
  ['an object', cursorOf({ createdAt: '2030-01-01T00:00:00.000Z' }), /does not hold a date and a workflow id/],
  ['three parts', cursorOf(['2030-01-01T00:00:00.000Z', 'mve-order-A', 'x']), /does not hold a date/],
  ['a date that is not a date', cursorOf(['not-a-date', 'mve-order-A']), /its date is not a date/],
  ['the 30th of February', cursorOf(['2030-02-30T00:00:00.000Z', 'mve-order-A']), /its date is not a date/],
  ['hour 25', cursorOf(['2030-01-01T25:00:00.000Z', 'mve-order-A']), /its date is not a date/],
  ['a date without time', cursorOf(['2030-01-01', 'mve-order-A']), /its date is not a date/],
  ['SQL in the date', cursorOf(["2030-01-01'; DROP TABLE orders; --", 'mve-order-A']), /its date is not a date/],
  ['an empty workflow id', cursorOf(['2030-01-01T00:00:00.000Z', '']), /its workflow id/],
  ['a NUL in the workflow id', cursorOf(['2030-01-01T00:00:00.000Z', 'mve\u0000order']), /its workflow id/],
  ['a workflow id too long', cursorOf(['2030-01-01T00:00:00.000Z', 'x'.repeat(256)]), /its workflow id/],
];

test('decodeCursor: what encodeCursor wrote comes back; anything else is ApiError 400 naming the field', (t) => {
  const cursor = { createdAt: '2030-01-01T00:00:00.000Z', workflowId: 'mve-order-CHG-1' };
  t.deepEqual(decodeCursor(encodeCursor(cursor)), cursor);
  for (const [name, value, rule] of FORGED) {
    const error = t.throws<ApiError>(() => decodeCursor(value), { instanceOf: ApiError }, name);
    t.is(error.status, 400, name);
    t.is(error.code, 'INVALID_INPUT', name);
    t.is(error.details.length, 1, name);
    t.is(error.details[0].path, 'querystring.cursor', name);
    t.regex(error.details[0].message, rule, name);
    t.regex(error.message, /^the querystring is invalid: querystring\.cursor: must be the nextCursor/, name);
  }
  t.is(t.throws<ApiError>(() => decodeCursor('garbage', 'after')).details[0].path, 'querystring.after');
});

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test('GET /api/v1/orders with a forged cursor is 400 in the error shape, never 500', async (t) => {
  const { api } = t.context;
  for (const [name, value, rule] of FORGED) {
    for (const user of ['olga', 'alice', 'ticket-bot'] as const) {
      const response = await api.call('GET', `/api/v1/orders?cursor=${encodeURIComponent(value)}`, { as: user });
      t.is(response.status, 400, `${name} as ${user}: ${JSON.stringify(response.body)}`);
      t.is(json<ErrorBody>(response).error.code, 'INVALID_INPUT', name);
      t.deepEqual(
        json<ErrorBody>(response).error.details.map((detail) => detail.path),
        ['querystring.cursor'],
        name,
      );
      t.regex(json<ErrorBody>(response).error.details[0].message, rule, name);
    }
  }
});

test('GET /api/v1/orders with a cursor the API could have given answers the page after it', async (t) => {
  const { api } = t.context;
  const cursor = encodeCursor({ createdAt: '2000-01-01T00:00:00.000Z', workflowId: 'mve-order-NONE' });
  const response = await api.call('GET', `/api/v1/orders?cursor=${cursor}`, { as: 'olga' });
  t.is(response.status, 200, JSON.stringify(response.body));
  t.deepEqual(response.body, { orders: [], nextCursor: null }, 'nothing was recorded before 2000');
});

test('GET /api/v1/orders with a blank requester filter is 400 naming it, never 500', async (t) => {
  const response = await t.context.api.call('GET', '/api/v1/orders?requester=%20%20', { as: 'olga' });
  t.is(response.status, 400, JSON.stringify(response.body));
  t.is(json<ErrorBody>(response).error.code, 'INVALID_INPUT');
  t.deepEqual(
    json<ErrorBody>(response).error.details.map((detail) => detail.path),
    ['querystring.requester'],
  );
});
