/**
 * Votes and the approvals inbox through real HTTP against the real worker: approve and reject (the approver
 * is the authenticated caller, never a field of the body), every refusal with its status and code, and
 * GET /api/v1/approvals (what each approver is asked to decide).
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { issueApiToken } from '../../client/http/index.js';
import type { ApiOrder, PendingApproval, VoteResult } from '../../client/http-client/index.js';
import {
  namedRequest,
  productsFor,
  startApiEngine,
  waitForApiState,
  type ApiEngine,
  type TestUser,
} from '../helpers/api.js';
import { replayEveryHistory, orderOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { expectError } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; fionaUpperCase: string; mallory: string }>;
const pg = usePostgres(test);

/** What GET /api/v1/approvals answers. */
interface ApprovalsPage {
  approvals: PendingApproval[];
}

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' }; // MVE 16/64: two approvers, finance-approver or finance-director

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
  // Fiona as an identity provider might spell her: the vote must be recorded as the directory's "fiona".
  t.context.fionaUpperCase = (
    await issueApiToken(t.context.api.repository, { owner: 'FIONA', roles: ['finance-approver'] })
  ).token;
  // Someone with an approver role whom the approver directory does not know.
  t.context.mallory = (
    await issueApiToken(t.context.api.repository, { owner: 'mallory', roles: ['finance-approver'] })
  ).token;
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

async function recordsWhen(
  api: ApiEngine,
  ticketId: string,
  ready: (records: NonNullable<Awaited<ReturnType<ApiEngine['repository']['getOrder']>>>) => boolean,
) {
  return waitFor(
    async () => {
      const records = await api.records(ticketId);
      return records && ready(records) ? records : undefined;
    },
    20_000,
    `records of ${ticketId}`,
  );
}

/** Submits (as alice unless told) and waits until the order awaits approval, live and in the records. */
async function awaitingOrder(
  t: ExecutionContext,
  api: ApiEngine,
  ticketId: string,
  size: string,
  overrides: Record<string, unknown> = {},
  as: TestUser = 'alice',
): Promise<ApiOrder> {
  const response = await api.call('POST', '/api/v1/orders', {
    as,
    body: namedRequest(ticketId, { size, ...overrides }),
  });
  t.is(response.status, 201, JSON.stringify(response.body));
  const order = await waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
  await recordsWhen(api, ticketId, (records) => records.order.status === 'AWAITING_APPROVAL');
  return order;
}

/** Nothing was recorded for the order: no vote in the workflow, no row in Postgres, still waiting. */
async function expectNoVotes(t: ExecutionContext, api: ApiEngine, ticketId: string): Promise<void> {
  const order = await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' });
  t.is(json<ApiOrder>(order).state, 'AWAITING_APPROVAL');
  t.deepEqual(json<ApiOrder>(order).approval?.votes, []);
  t.deepEqual((await api.records(ticketId))?.approvals, []);
}

// ---- the inbox (first, while no other order waits) ----

test.serial(
  'GET /api/v1/approvals: each approver sees what awaits their role, oldest first, not their own, not voted',
  async (t) => {
    const { api } = t.context;
    await awaitingOrder(t, api, 'INBOX-1', 'MVE 8/32');
    await awaitingOrder(t, api, 'INBOX-2', 'MVE 16/64');
    await awaitingOrder(t, api, 'INBOX-3', 'MVE 8/32', { requestedBy: 'FIONA' }, 'ticket-bot'); // fiona's own order
    await awaitingOrder(t, api, 'INBOX-4', 'MVE 16/64');
    const fionaVote = await api.call('POST', '/api/v1/orders/INBOX-4/approve', { as: 'fiona', body: FINANCE });
    t.is(fionaVote.status, 200, JSON.stringify(fionaVote.body));
    await recordsWhen(api, 'INBOX-4', (records) => records.approvals.length === 1);

    const inbox = async (user: TestUser) => {
      const response = await api.call('GET', '/api/v1/approvals', { as: user });
      t.is(response.status, 200, `${user}: ${JSON.stringify(response.body)}`);
      return json<ApprovalsPage>(response).approvals;
    };
    const tickets = (items: PendingApproval[]) => items.map((item) => item.ticketId);

    const fionas = await inbox('fiona');
    t.deepEqual(
      tickets(fionas),
      ['INBOX-1', 'INBOX-2'],
      'oldest first; not her own (INBOX-3), not one she voted on (INBOX-4)',
    );
    t.true(fionas[0].waitingSince <= fionas[1].waitingSince);
    t.deepEqual(Object.keys(fionas[0]).sort(), [
      'approvalsGiven',
      'approvalsNeeded',
      'budget',
      'currency',
      'deadline',
      'environment',
      'monthlyRate',
      'orderId',
      'ordered',
      'requestedBy',
      'stillNeeded',
      'team',
      'ticketId',
      'tier',
      'waitingSince',
    ]);
    t.like(fionas[0], {
      orderId: orderOf('INBOX-1'),
      ticketId: 'INBOX-1',
      requestedBy: 'alice',
      environment: 'staging',
      ...TEAM,
      tier: 'team',
      approvalsNeeded: 1,
      approvalsGiven: 0,
      stillNeeded: 1,
      // The test policy lists no teams: no team, no figures.
      team: null,
      budget: null,
    });
    const ordered = {
      productName: 'INBOX-1 firewall',
      size: 'MVE 8/32',
      term: 12,
      place: 'Sydney, AU',
      image: 'Fortinet FortiGate-VM latest',
      vnics: ['WAN', 'LAN 1'],
    };
    t.deepEqual(fionas[0].ordered, ordered, 'what it asks for, in words; vendorConfig never');
    t.deepEqual(json<ApiOrder>(await api.call('GET', '/api/v1/orders/INBOX-1', { as: 'alice' })).ordered, ordered);
    t.like(fionas[1], {
      ticketId: 'INBOX-2',
      requestedBy: 'alice',
      ...FINANCE,
      tier: 'finance',
      approvalsNeeded: 2,
      approvalsGiven: 0,
      stillNeeded: 2,
    });
    const deadline = Date.parse(fionas[0].deadline!) - Date.parse(fionas[0].waitingSince);
    t.is(deadline, 72 * 3600_000, "the policy's 72 h deadline");
    const live = await api.call('GET', '/api/v1/orders/INBOX-1', { as: 'fiona' });
    t.is(fionas[0].deadline, json<ApiOrder>(live).approval!.deadline);

    const daves = await inbox('dave');
    t.deepEqual(tickets(daves), ['INBOX-2', 'INBOX-4'], 'the two-approver tier only');
    t.like(daves[1], { ticketId: 'INBOX-4', tier: 'finance', approvalsNeeded: 2, approvalsGiven: 1, stillNeeded: 1 });

    t.deepEqual(await inbox('erin'), [], 'no tier names her role');
    t.deepEqual(tickets(await inbox('aliceApprover')), ['INBOX-3'], 'alice as an approver: not her own orders');
    t.deepEqual(
      tickets(
        json<ApprovalsPage>(await api.call('GET', '/api/v1/approvals', { token: t.context.fionaUpperCase })).approvals,
      ),
      ['INBOX-1', 'INBOX-2'],
    );
    t.deepEqual(
      tickets(json<ApprovalsPage>(await api.call('GET', '/api/v1/approvals?limit=1', { as: 'fiona' })).approvals),
      ['INBOX-1'],
    );

    for (const user of ['alice', 'olga', 'ticket-bot'] as TestUser[])
      expectError(t, await api.call('GET', '/api/v1/approvals', { as: user }), 403, 'FORBIDDEN');
    expectError(t, await api.call('GET', '/api/v1/approvals'), 401, 'UNAUTHENTICATED');
    expectError(t, await api.call('GET', '/api/v1/approvals?limit=0', { as: 'fiona' }), 400, 'INVALID_INPUT');

    // A decision takes the order out of the inbox.
    t.is((await api.call('POST', '/api/v1/orders/INBOX-1/approve', { as: 'fiona', body: TEAM })).status, 200);
    await recordsWhen(api, 'INBOX-1', (records) => records.order.status !== 'AWAITING_APPROVAL');
    t.deepEqual(tickets(await inbox('fiona')), ['INBOX-2']);
    // Tidy: nothing else of this test waits for a vote.
    for (const ticketId of ['INBOX-2', 'INBOX-3', 'INBOX-4']) {
      t.is(
        (
          await api.call('POST', `/api/v1/orders/${ticketId}/cancel`, {
            as: 'olga',
            body: { reason: 'inbox test done' },
          })
        ).status,
        200,
      );
      await waitForApiState(api, ticketId, 'CANCELLED');
    }
  },
);

// ---- approve / reject ----

test.serial(
  "one approver's approval buys a one-approver order; the vote is recorded under the authenticated identity",
  async (t) => {
    const { api, fionaUpperCase } = t.context;
    const waiting = await awaitingOrder(t, api, 'APP-1', 'MVE 8/32');
    t.like(waiting, { quote: TEAM, approval: { tier: { name: 'team', approvals: 1 }, stillNeeded: 1, votes: [] } });

    const approved = await api.call('POST', '/api/v1/orders/APP-1/approve', {
      token: fionaUpperCase,
      body: { ...TEAM, comment: 'within budget' },
    });
    t.is(approved.status, 200, JSON.stringify(approved.body));
    t.deepEqual(json<VoteResult>(approved).approvedBy, ['fiona']);
    t.is(json<VoteResult>(approved).stillNeeded, 0);
    t.true(
      ['APPROVED', 'BUYING', 'BOUGHT'].includes(json<VoteResult>(approved).state),
      'the decisive vote answers with the state it led to',
    );

    const bought = await waitForApiState(api, 'APP-1', 'BOUGHT');
    t.like(bought.approval!.votes, [{ approverId: 'fiona', decision: 'approve', ...TEAM, comment: 'within budget' }]);
    t.is(productsFor(api, 'APP-1').length, 1);
    const records = await recordsWhen(api, 'APP-1', (r) => r.order.status === 'BOUGHT');
    t.like(records.approvals, [{ approverId: 'fiona', decision: 'approve', currency: 'AUD', quoteNumber: 1 }]);
    t.is(Number(records.approvals[0]?.monthlyRate), TEAM.monthlyRate);
    t.is(records.approvals.length, 1);
  },
);

test.serial('a two-approver order needs fiona then dave; her vote again is counted once, another is 409', async (t) => {
  const { api } = t.context;
  await awaitingOrder(t, api, 'APP-2', 'MVE 16/64');
  const first = await api.call('POST', '/api/v1/orders/APP-2/approve', { as: 'fiona', body: FINANCE });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.deepEqual(first.body, { state: 'AWAITING_APPROVAL', approvedBy: ['fiona'], stillNeeded: 1 });

  // The same vote sent again (after an answer she did not get) is answered as counted; a different one is refused.
  const twice = await api.call('POST', '/api/v1/orders/APP-2/approve', { as: 'fiona', body: FINANCE });
  t.is(twice.status, 200, JSON.stringify(twice.body));
  t.like(twice.body, { state: 'AWAITING_APPROVAL', approvedBy: ['fiona'], stillNeeded: 1 });
  t.regex(
    json<VoteResult>(twice).alreadyDone!,
    /^your approval of .+ was already counted: this repeats a vote that took effect/,
  );
  const twiceByReject = await api.call('POST', '/api/v1/orders/APP-2/reject', {
    as: 'fiona',
    body: { ...FINANCE, reason: 'changed my mind' },
  });
  expectError(t, twiceByReject, 409, 'ALREADY_VOTED');
  const stillOne = await api.call('GET', '/api/v1/orders/APP-2', { as: 'olga' });
  t.like(stillOne.body, { state: 'AWAITING_APPROVAL', approval: { stillNeeded: 1 } });
  t.is(json<ApiOrder>(stillOne).approval!.votes.length, 1);

  const second = await api.call('POST', '/api/v1/orders/APP-2/approve', {
    as: 'dave',
    body: { ...FINANCE, comment: 'budgeted' },
  });
  t.is(second.status, 200, JSON.stringify(second.body));
  t.deepEqual(json<VoteResult>(second).approvedBy, ['fiona', 'dave']);
  t.is(json<VoteResult>(second).stillNeeded, 0);
  t.not(json<VoteResult>(second).state, 'AWAITING_APPROVAL');

  const bought = await waitForApiState(api, 'APP-2', 'BOUGHT');
  t.deepEqual(
    bought.approval!.votes.map((vote) => vote.approverId),
    ['fiona', 'dave'],
  );
  t.is(productsFor(api, 'APP-2').length, 1);
  const records = await recordsWhen(api, 'APP-2', (r) => r.order.status === 'BOUGHT');
  t.deepEqual(
    records.approvals.map((vote) => [vote.approverId, vote.decision, Number(vote.monthlyRate)]),
    [
      ['fiona', 'approve', FINANCE.monthlyRate],
      ['dave', 'approve', FINANCE.monthlyRate],
    ],
  );
});

test.serial(
  'refusals of a vote change nothing: stale quote 409, requester 422, role 422, no approver role 403, bad body 400',
  async (t) => {
    const { api, mallory } = t.context;
    await awaitingOrder(t, api, 'APP-3', 'MVE 8/32');

    const stale = await api.call('POST', '/api/v1/orders/APP-3/approve', {
      as: 'fiona',
      body: { monthlyRate: 1600, currency: 'AUD' },
    });
    expectError(t, stale, 409, 'QUOTE_NOT_CURRENT');
    t.regex(json<ErrorBody>(stale).error.message, /1618\.2 AUD/, 'the message gives the current price');
    t.regex(json<ErrorBody>(stale).error.message, /1600/);
    t.deepEqual(json<ErrorBody>(stale).error.details, [
      { path: 'monthlyRate', message: 'the current quote is 1618.2 AUD' },
    ]);
    const otherCurrency = await api.call('POST', '/api/v1/orders/APP-3/approve', {
      as: 'fiona',
      body: { monthlyRate: 1618.2, currency: 'USD' },
    });
    expectError(t, otherCurrency, 409, 'QUOTE_NOT_CURRENT');
    t.regex(json<ErrorBody>(otherCurrency).error.message, /1618\.2 AUD/);
    const staleReject = await api.call('POST', '/api/v1/orders/APP-3/reject', {
      as: 'fiona',
      body: { monthlyRate: 1700, currency: 'AUD', reason: 'too dear' },
    });
    expectError(t, staleReject, 409, 'QUOTE_NOT_CURRENT');

    const selfApproval = await api.call('POST', '/api/v1/orders/APP-3/approve', { as: 'aliceApprover', body: TEAM });
    expectError(t, selfApproval, 422, 'REQUESTER_CANNOT_VOTE');
    const selfRejection = await api.call('POST', '/api/v1/orders/APP-3/reject', {
      as: 'aliceApprover',
      body: { ...TEAM, reason: 'mine' },
    });
    expectError(t, selfRejection, 422, 'REQUESTER_CANNOT_VOTE');

    const erin = await api.call('POST', '/api/v1/orders/APP-3/approve', { as: 'erin', body: TEAM });
    expectError(t, erin, 422, 'APPROVER_LACKS_ROLE');
    t.regex(json<ErrorBody>(erin).error.message, /finance-approver/);
    // A finance director is not in the one-approver tier either.
    expectError(
      t,
      await api.call('POST', '/api/v1/orders/APP-3/approve', { as: 'dave', body: TEAM }),
      422,
      'APPROVER_LACKS_ROLE',
    );
    expectError(
      t,
      await api.call('POST', '/api/v1/orders/APP-3/approve', { token: mallory, body: TEAM }),
      422,
      'APPROVER_UNKNOWN',
    );

    for (const user of ['alice', 'olga', 'ticket-bot'] as TestUser[]) {
      expectError(
        t,
        await api.call('POST', '/api/v1/orders/APP-3/approve', { as: user, body: TEAM }),
        403,
        'FORBIDDEN',
      );
      expectError(
        t,
        await api.call('POST', '/api/v1/orders/APP-3/reject', { as: user, body: { ...TEAM, reason: 'no' } }),
        403,
        'FORBIDDEN',
      );
    }
    expectError(t, await api.call('POST', '/api/v1/orders/APP-3/approve', { body: TEAM }), 401, 'UNAUTHENTICATED');

    // A body naming an approver is refused, whoever it names: the approver is the caller.
    for (const [user, approverId] of [
      ['fiona', 'fiona'],
      ['erin', 'fiona'],
      ['aliceApprover', 'fiona'],
    ] as Array<[TestUser, string]>) {
      const naming = await api.call('POST', '/api/v1/orders/APP-3/approve', {
        as: user,
        body: { ...TEAM, approverId },
      });
      expectError(t, naming, 400, 'INVALID_INPUT');
      t.regex(json<ErrorBody>(naming).error.message, /approverId/);
    }
    const namingInReject = await api.call('POST', '/api/v1/orders/APP-3/reject', {
      as: 'erin',
      body: { ...TEAM, reason: 'no', approverId: 'fiona' },
    });
    expectError(t, namingInReject, 400, 'INVALID_INPUT');
    const noReason = await api.call('POST', '/api/v1/orders/APP-3/reject', { as: 'fiona', body: TEAM });
    expectError(t, noReason, 400, 'INVALID_INPUT');
    t.true(
      json<ErrorBody>(noReason).error.details.some((detail) => detail.path === 'body.reason'),
      JSON.stringify(noReason.body),
    );
    const blankReason = await api.call('POST', '/api/v1/orders/APP-3/reject', {
      as: 'fiona',
      body: { ...TEAM, reason: '  ' },
    });
    expectError(t, blankReason, 400, 'INVALID_INPUT');
    const noRate = await api.call('POST', '/api/v1/orders/APP-3/approve', { as: 'fiona', body: { currency: 'AUD' } });
    expectError(t, noRate, 400, 'INVALID_INPUT');
    t.true(
      json<ErrorBody>(noRate).error.details.some((detail) => detail.path === 'body.monthlyRate'),
      JSON.stringify(noRate.body),
    );
    expectError(
      t,
      await api.call('POST', '/api/v1/orders/APP-3/approve', {
        as: 'fiona',
        body: { monthlyRate: '1618.2', currency: 'AUD' },
      }),
      400,
      'INVALID_INPUT',
    );
    expectError(
      t,
      await api.call('POST', '/api/v1/orders/NO-SUCH/approve', { as: 'fiona', body: TEAM }),
      404,
      'NOT_FOUND',
    );

    await expectNoVotes(t, api, 'APP-3');
    t.is(productsFor(api, 'APP-3').length, 0);
  },
);

test.serial(
  'a rejection with its reason ends the order; a vote on an order not awaiting approval is 409',
  async (t) => {
    const { api } = t.context;
    const rejected = await api.call('POST', '/api/v1/orders/APP-3/reject', {
      as: 'fiona',
      body: { ...TEAM, reason: 'not this quarter' },
    });
    t.is(rejected.status, 200, JSON.stringify(rejected.body));
    t.like(rejected.body, { state: 'REJECTED', approvedBy: [], stillNeeded: 0 });
    const order = await waitForApiState(api, 'APP-3', 'REJECTED');
    t.like(order.timeline!.at(-1), { state: 'REJECTED', actor: 'fiona', reason: 'not this quarter' });
    t.like(order.approval!.votes, [{ approverId: 'fiona', decision: 'reject', comment: 'not this quarter' }]);
    const records = await recordsWhen(api, 'APP-3', (r) => r.order.status === 'REJECTED');
    t.like(records.approvals, [
      { approverId: 'fiona', decision: 'reject', reason: 'not this quarter', currency: 'AUD' },
    ]);
    t.is(Number(records.approvals[0]?.monthlyRate), TEAM.monthlyRate);
    t.is(productsFor(api, 'APP-3').length, 0);

    // fiona rejected APP-3 and approved APP-1: another vote is refused; the same vote again is answered as counted.
    for (const [ticketId, cast, other] of [
      ['APP-3', 'reject', 'approve'],
      ['APP-1', 'approve', 'reject'],
    ] as const) {
      const vote = (decision: 'approve' | 'reject') =>
        api.call('POST', `/api/v1/orders/${ticketId}/${decision}`, {
          as: 'fiona',
          body: decision === 'reject' ? { ...TEAM, reason: 'late' } : TEAM,
        });
      expectError(t, await vote(other), 409, 'NOT_AWAITING_APPROVAL');
      const again = await vote(cast);
      t.is(again.status, 200, JSON.stringify(again.body));
      t.regex(
        json<VoteResult>(again).alreadyDone!,
        /was already counted: this repeats a vote that took effect; nothing changed$/,
      );
    }
    t.is((await api.records('APP-3'))?.approvals.length, 1, 'nothing more recorded');

    // An order still validating or looking up is not awaiting approval either.
    const submitted = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('APP-4') });
    t.is(submitted.status, 201);
    const early = await api.call('POST', '/api/v1/orders/APP-4/approve', {
      as: 'fiona',
      body: { monthlyRate: 809.1, currency: 'AUD' },
    });
    // 409 either way: before the workers admit the order (NOT_STARTED) or while it looks up and validates.
    t.is(early.status, 409, JSON.stringify(early.body));
    t.true(
      ['NOT_STARTED', 'NOT_AWAITING_APPROVAL'].includes(json<ErrorBody>(early).error.code),
      JSON.stringify(early.body),
    );
    await waitForApiState(api, 'APP-4', 'BOUGHT');
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.api);
  t.true(replayed >= 8, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
