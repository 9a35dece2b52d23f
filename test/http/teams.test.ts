/**
 * Whose money an order spends, through real HTTP against the real worker, under a staging policy that lists teams:
 * the request's `costCentre` when it names one of them, else the requester's team in the approver directory; an order
 * whose team is unknown is refused at intake with 422 TEAM_UNKNOWN naming `costCentre` and the rule, and nothing is
 * registered, started or recorded.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { joinTeams, networkTeam, secOpsTeam, teamedPolicies } from '../helpers/teams.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

const TEAMED_POLICIES = teamedPolicies({
  version: 'test-teams-1',
  teams: [networkTeam({ monthlyNew: { AUD: 5000 } }), secOpsTeam()],
  budgetTimeZone: 'Australia/Sydney',
});

test.before(async (t) => {
  const api = await startApiEngine(pg, { policies: TEAMED_POLICIES });
  t.context.api = api;
  // quinn's team is one the policy does not list; pat has none.
  await joinTeams(api.repository, { alice: 'network', quinn: 'lab' });
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
}

test("without a costCentre, the order is charged to the requester's team in the directory", async (t) => {
  const { api } = t.context;
  const response = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('TEAM-DIR') });
  t.is(response.status, 201, JSON.stringify(response.body));
  t.is((await api.records('TEAM-DIR'))?.order.team, 'network');
  // The workers run it under the policy with its teams (the workflow parses that policy too).
  await waitForApiState(api, 'TEAM-DIR', 'BOUGHT');
});

test("a costCentre of the policy's teams is the order's team, for a ticket system's requester too", async (t) => {
  const { api } = t.context;
  const response = await api.call('POST', '/api/v1/orders', {
    as: 'ticket-bot',
    body: namedRequest('TEAM-CC', { requestedBy: 'pat', costCentre: 'sec-ops' }),
  });
  t.is(response.status, 201, JSON.stringify(response.body));
  t.is((await api.records('TEAM-CC'))?.order.team, 'sec-ops');
});

test('an order whose team is unknown is refused 422 TEAM_UNKNOWN on costCentre, and nothing is kept', async (t) => {
  const { api } = t.context;
  const cases: Array<[ticketId: string, as: 'alice' | 'ticket-bot', extra: Record<string, unknown>, rule: RegExp]> = [
    [
      'TEAM-WRONG',
      'alice',
      { costCentre: 'marketing' },
      /^"marketing" is not a team of the staging policy; the staging policy's teams are network, sec-ops$/,
    ],
    ['TEAM-NONE', 'ticket-bot', { requestedBy: 'pat' }, /^is required: .*pat has no team in the approver directory/],
    [
      'TEAM-OTHER',
      'ticket-bot',
      { requestedBy: 'quinn' },
      /quinn's team in the approver directory, "lab", is not one of its teams/,
    ],
  ];
  for (const [ticketId, as, extra, rule] of cases) {
    const response = await api.call('POST', '/api/v1/orders', { as, body: namedRequest(ticketId, extra) });
    t.is(response.status, 422, `${ticketId}: ${JSON.stringify(response.body)}`);
    const { error } = json<ErrorBody>(response);
    t.is(error.code, 'TEAM_UNKNOWN', ticketId);
    t.deepEqual(
      error.details.map((detail) => detail.path),
      ['costCentre'],
      ticketId,
    );
    t.regex(error.details[0].message, rule, ticketId);
    t.true(error.message.startsWith('costCentre: '), error.message);
    await expectNothingFor(t, ticketId);
  }
});

test('a costCentre that is not one line of text is refused 400 with the rest of the request check', async (t) => {
  const { api } = t.context;
  for (const costCentre of [42, '', 'x'.repeat(65)]) {
    const response = await api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest('TEAM-FORM', { costCentre }),
    });
    t.is(response.status, 400, JSON.stringify(response.body));
    const { error } = json<ErrorBody>(response);
    t.is(error.code, 'INVALID_REQUEST');
    t.true(
      error.details.some((detail) => detail.path === 'costCentre'),
      JSON.stringify(error),
    );
  }
  await expectNothingFor(t, 'TEAM-FORM');
});
