/**
 * Who an order is for, through real HTTP against the real worker: a ticket system's `requestedBy` must be a person of
 * the directory (unknown names, look-alikes and names with invisible characters are refused at intake, and nothing is
 * registered or started), a person is the requester of what they submit by authentication, and an approver cannot
 * vote on an order whose requester resolves to them.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { issueApiToken } from '../../client/http/index.js';
import type { ApiOrder, OrderList, SubmitResult } from '../../client/http-client/index.js';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { replayEveryHistory } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; bob: string }>;
const pg = usePostgres(test);

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FULLWIDTH_FIONA = '\uff26\uff29\uff2f\uff2e\uff21'; // ＦＩＯＮＡ

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
  // A requester whom the directory does not know: people order for themselves whether or not it knows them.
  t.context.bob = (await issueApiToken(t.context.api.repository, { owner: 'bob', roles: ['requester'] })).token;
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** Nothing of the ticket anywhere: not registered, no workflow run, no order to read. */
async function expectNothingFor(t: ExecutionContext<{ api: ApiEngine }>, ticketId: string): Promise<void> {
  const { api } = t.context;
  t.is(await api.ticket(ticketId), null, `${ticketId}: no ticket registered`);
  t.is((await api.orders.list(`TicketId = '${ticketId}'`)).length, 0, `${ticketId}: no workflow`);
  t.is(await api.records(ticketId), null, `${ticketId}: no order recorded`);
  t.is((await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' })).status, 404);
}

test.serial(
  "a ticket system's requester who is not a person of the directory is refused with 422 naming requestedBy, and nothing is registered",
  async (t) => {
    const { api } = t.context;
    const refused: Array<[ticketId: string, requestedBy: string, shown: string, rule: RegExp]> = [
      ['REQ-EMAIL', 'fiona@example.com', '"fiona@example.com"', /^is not a person in the directory; /],
      ['REQ-UNKNOWN', 'mallory', '"mallory"', /^is not a person in the directory; /],
      [
        'REQ-CYRILLIC',
        'f\u0456ona', // fiona with a Cyrillic і
        '"f\\u0456ona"',
        /^is not a person in the directory, only a look-alike of one \(U\+0456 merely resembles/,
      ],
      ['REQ-ZWSP', 'fiona\u200b', '"fiona\\u200b"', /^contains U\+200B, an invisible format character/],
      ['REQ-BIDI', 'fi\u202eona', '"fi\\u202eona"', /^contains U\+202E, .*bidi-control/],
    ];
    for (const [ticketId, requestedBy, shown, rule] of refused) {
      const response = await api.call('POST', '/api/v1/orders', {
        as: 'ticket-bot',
        body: namedRequest(ticketId, { requestedBy }),
      });
      t.is(response.status, 422, `${ticketId}: ${JSON.stringify(response.body)}`);
      const { error } = json<ErrorBody>(response);
      t.is(error.code, 'REQUESTER_UNKNOWN', ticketId);
      t.true(error.message.startsWith(`requestedBy: ${shown} `), error.message);
      t.regex(error.message, /a ticket system names the requester by their id in the directory/);
      t.is(error.details.length, 1, ticketId);
      t.is(error.details[0].path, 'requestedBy', ticketId);
      t.regex(error.details[0].message, rule, ticketId);
      await expectNothingFor(t, ticketId);
    }
    const submitted = await api.call('GET', '/api/v1/orders', { as: 'ticket-bot' });
    t.deepEqual(json<OrderList>(submitted).orders, [], 'the ticket system has no order');
  },
);

test.serial(
  "a ticket system's requester resolves to the directory's id, whatever the case or width, and is recorded so",
  async (t) => {
    const { api } = t.context;
    const response = await api.call('POST', '/api/v1/orders', {
      as: 'ticket-bot',
      body: namedRequest('REQ-WIDE', { requestedBy: FULLWIDTH_FIONA, size: 'MVE 8/32' }),
    });
    t.is(response.status, 201, JSON.stringify(response.body));
    t.like(json<SubmitResult>(response).order, { requestedBy: 'fiona', submittedBy: 'ticket-bot' });
    t.like(await api.ticket('REQ-WIDE'), { requestedBy: 'fiona', submittedBy: 'ticket-bot' });
    t.is((await waitForApiState(api, 'REQ-WIDE', 'AWAITING_APPROVAL')).requestedBy, 'fiona');
  },
);

test.serial('fiona cannot approve or reject an order whose requester resolves to her', async (t) => {
  const { api } = t.context;
  for (const [ticketId, requestedBy] of [
    ['REQ-WIDE', FULLWIDTH_FIONA],
    ['REQ-CAPS', 'Fiona'],
  ] as const) {
    if (ticketId !== 'REQ-WIDE') {
      const response = await api.call('POST', '/api/v1/orders', {
        as: 'ticket-bot',
        body: namedRequest(ticketId, { requestedBy, size: 'MVE 8/32' }),
      });
      t.is(response.status, 201, JSON.stringify(response.body));
    }
    await waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
    const approve = await api.call('POST', `/api/v1/orders/${ticketId}/approve`, { as: 'fiona', body: TEAM });
    t.is(approve.status, 422, JSON.stringify(approve.body));
    t.is(json<ErrorBody>(approve).error.code, 'REQUESTER_CANNOT_VOTE');
    t.regex(json<ErrorBody>(approve).error.message, /requested this order and cannot vote on it/);
    const reject = await api.call('POST', `/api/v1/orders/${ticketId}/reject`, {
      as: 'fiona',
      body: { ...TEAM, reason: 'mine' },
    });
    t.is(reject.status, 422, JSON.stringify(reject.body));
    t.is(json<ErrorBody>(reject).error.code, 'REQUESTER_CANNOT_VOTE');

    const order = await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' });
    t.is(json<ApiOrder>(order).state, 'AWAITING_APPROVAL');
    t.deepEqual(json<ApiOrder>(order).approval?.votes, [], 'no vote recorded');
    // Someone else may decide: alice holds finance-approver in the directory.
    const other = await api.call('POST', `/api/v1/orders/${ticketId}/approve`, { as: 'aliceApprover', body: TEAM });
    t.is(other.status, 200, JSON.stringify(other.body));
    await waitForApiState(api, ticketId, 'BOUGHT');
  }
});

test.serial(
  'a person is the requester of what they submit by authentication, known to the directory or not',
  async (t) => {
    const { api, bob } = t.context;
    const bobs = await api.call('POST', '/api/v1/orders', {
      token: bob,
      body: namedRequest('REQ-BOB', { requestedBy: 'BOB', size: 'MVE 4/16' }),
    });
    t.is(bobs.status, 201, JSON.stringify(bobs.body));
    t.is(json<SubmitResult>(bobs).order.requestedBy, 'bob');
    // A spelling of himself with an invisible character is someone else: refused as any other name would be.
    const hidden = await api.call('POST', '/api/v1/orders', {
      token: bob,
      body: namedRequest('REQ-BOB-2', { requestedBy: 'bob\u200b' }),
    });
    t.is(hidden.status, 403, JSON.stringify(hidden.body));
    t.is(json<ErrorBody>(hidden).error.details[0].path, 'requestedBy');
    await expectNothingFor(t, 'REQ-BOB-2');
    await waitForApiState(api, 'REQ-BOB', 'BOUGHT');
    await waitFor(
      async () => ((await api.records('REQ-BOB'))?.order.requestedBy === 'bob' ? true : undefined),
      20_000,
      'REQ-BOB recorded',
    );
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.api);
  t.true(replayed >= 3, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
