/**
 * `GET /api/v1/commitments` over real HTTP with real tokens, on records of orders approved and bought at chosen
 * moments (test/helpers/commitments.ts): the figures at exact cents, January taken in the policy's time zone (Sydney),
 * who reads which team's, the orders behind the figures page by page, and the CSV whose columns add up to the JSON.
 */
import anyTest, { type TestFn } from 'ava';
import { COMMITMENTS_CSV_COLUMNS } from '../../client/http/routes/commitments.js';
import { calendarMonth } from '../../domain/approval/index.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { JANUARY_ORDERS, millionths, seedCommitted } from '../helpers/commitments.js';
import { usePostgres } from '../helpers/postgres.js';
import { joinTeams, networkTeam, requesterToken, secOpsTeam, teamedPolicies } from '../helpers/teams.js';
import type { TeamCommitmentFigures } from '../../client/http-client/index.js';
import { json, type ErrorBody } from '../helpers/json.js';

type Figures = TeamCommitmentFigures;
interface CommitmentsBody {
  environment: string;
  month: string;
  timeZone: string;
  monthStart: string;
  monthEnd: string;
  asOf: string;
  teams: Figures[];
  orders: Array<{ orderId: string; ticketId: string; team: string | null; inRunRate: boolean; state: string }>;
  nextCursor: string | null;
}

const test = anyTest as TestFn<{ api: ApiEngine; pat: string }>;
const pg = usePostgres(test);

const TEAMED_POLICIES = teamedPolicies({
  version: 'test-teams-1',
  environment: 'production',
  teams: [networkTeam({ monthlyNew: { AUD: 3236.41, USD: 100 }, runRateCap: { AUD: 1618.23 } }), secOpsTeam()],
  budgetTimeZone: 'Australia/Sydney',
  overBudget: { tier: 'finance-senior' },
});

test.before(async (t) => {
  const api = await startApiEngine(pg, { policies: TEAMED_POLICIES });
  t.context.api = api;
  await joinTeams(api.repository, { alice: 'network' });
  // pat is a person of the directory with no team.
  t.context.pat = await requesterToken(api.repository, 'pat');
  for (const order of JANUARY_ORDERS) await seedCommitted(api.repository, order);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

const NETWORK_AUD: Figures = {
  team: 'network',
  name: 'Network engineering',
  currency: 'AUD',
  runRate: '1618.22',
  runningOrders: 2,
  approvedThisMonth: '3236.42',
  approvedOrders: 2,
  approvedNotBought: '3336.41',
  budget: { monthlyNew: '3236.41', runRateCap: '1618.23' },
  // The cap counts what is approved and not bought yet, as the budget check does: 1618.23 - 1618.22 - 3336.41.
  remaining: { monthlyNew: '-0.01', runRateCap: '-3336.4' },
};
const NETWORK_USD: Figures = {
  team: 'network',
  name: 'Network engineering',
  currency: 'USD',
  runRate: '0',
  runningOrders: 0,
  approvedThisMonth: '0',
  approvedOrders: 0,
  approvedNotBought: '0',
  budget: { monthlyNew: '100', runRateCap: null },
  remaining: { monthlyNew: '100', runRateCap: null },
};

test('finance reads every team: figures at exact cents against budget, January taken in Sydney', async (t) => {
  const response = await t.context.api.call('GET', '/api/v1/commitments?month=2026-01', { as: 'fiona' });
  t.is(response.status, 200, JSON.stringify(response.body));
  const body = json<CommitmentsBody>(response);
  t.like(body, {
    environment: 'production',
    month: '2026-01',
    timeZone: 'Australia/Sydney',
    monthStart: '2025-12-31T13:00:00.000Z',
    monthEnd: '2026-01-31T13:00:00.000Z',
    asOf: '2026-01-31T13:00:00.000Z',
  });
  t.deepEqual(body.teams, [
    NETWORK_AUD,
    NETWORK_USD,
    {
      team: null,
      name: null,
      currency: 'AUD',
      runRate: '5.5',
      runningOrders: 1,
      approvedThisMonth: '5.5',
      approvedOrders: 1,
      approvedNotBought: '0',
      budget: { monthlyNew: null, runRateCap: null },
      remaining: { monthlyNew: null, runRateCap: null },
    },
  ]);
  t.deepEqual(
    body.orders.map((order) => order.ticketId),
    ['N', 'E', 'C', 'A'],
  );
  t.is(body.nextCursor, null);
});

test('the first midnight of February in Sydney is February: the order approved then counts there', async (t) => {
  const response = await t.context.api.call('GET', '/api/v1/commitments?month=2026-02&team=network&currency=AUD', {
    as: 'olga',
  });
  t.is(response.status, 200, JSON.stringify(response.body));
  const [figures] = json<CommitmentsBody>(response).teams;
  t.like(figures, { approvedThisMonth: '100.01', approvedOrders: 1, runRate: '1618.22' });
  t.is(figures.remaining.monthlyNew, '3136.4');
});

test("a requester reads their own team's only: left out it is theirs, another is 403", async (t) => {
  const { api, pat } = t.context;
  const own = await api.call('GET', '/api/v1/commitments?month=2026-01', { as: 'alice' });
  t.is(own.status, 200, JSON.stringify(own.body));
  const body = json<CommitmentsBody>(own);
  t.deepEqual(body.teams, [NETWORK_AUD, NETWORK_USD]);
  t.true(body.orders.every((order) => order.team === 'network'));

  const other = await api.call('GET', '/api/v1/commitments?month=2026-01&team=sec-ops', { as: 'alice' });
  t.is(other.status, 403);
  const { error } = json<ErrorBody>(other);
  t.is(error.code, 'FORBIDDEN');
  t.deepEqual(error.details, [
    {
      path: 'querystring.team',
      message: "must be your own team, network, or left out: a requester reads no other team's commitments",
    },
  ]);

  const teamless = await api.call('GET', '/api/v1/commitments', { token: pat });
  t.is(teamless.status, 403);
  t.regex(json<ErrorBody>(teamless).error.message, /the approver directory gives pat no team/);
  const machine = await api.call('GET', '/api/v1/commitments', { as: 'ticket-bot' });
  t.is(machine.status, 403);
  t.regex(json<ErrorBody>(machine).error.message, /reading commitments needs a role/);
  t.is((await api.call('GET', '/api/v1/commitments')).status, 401);
});

test('the orders behind the figures page by cursor, none twice and none lost', async (t) => {
  const { api } = t.context;
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `month=2026-01&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await api.call('GET', `/api/v1/commitments?${query}`, { as: 'fiona' });
    t.is(response.status, 200, JSON.stringify(response.body));
    const page = json<CommitmentsBody>(response);
    t.deepEqual(page.teams[0], NETWORK_AUD, 'every page carries the whole figures');
    seen.push(...page.orders.map((order) => order.ticketId));
    cursor = page.nextCursor;
  } while (cursor);
  t.deepEqual(seen, ['N', 'E', 'C', 'A']);
});

test('the CSV has the documented columns and its amounts add up to the JSON, per team and currency', async (t) => {
  const { api } = t.context;
  const byFormat = await fetch(`${api.url}/api/v1/commitments?month=2026-01&format=csv`, {
    headers: { authorization: `Bearer ${api.tokens.fiona}` },
  });
  const byAccept = await fetch(`${api.url}/api/v1/commitments?month=2026-01`, {
    headers: { authorization: `Bearer ${api.tokens.fiona}`, accept: 'text/csv' },
  });
  for (const response of [byFormat, byAccept]) {
    t.is(response.status, 200);
    t.is(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    t.is(response.headers.get('content-disposition'), 'attachment; filename="commitments-production-2026-01.csv"');
  }
  const text = await byFormat.text();
  t.is(await byAccept.text(), text);
  const [header, ...lines] = text.split('\r\n').filter((line) => line !== '');
  t.deepEqual(header.split(','), [...COMMITMENTS_CSV_COLUMNS]);
  const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [header.split(',')[i], cell])));
  t.deepEqual(
    rows.map((row) => row['ticket_id']),
    ['N', 'E', 'C', 'A'],
  );
  t.like(rows[3], { team: 'network', team_name: 'Network engineering', term_total: '19418.4', state: 'LIVE' });

  const figures = json<CommitmentsBody>(await api.call('GET', '/api/v1/commitments?month=2026-01', { as: 'fiona' }));
  for (const team of figures.teams) {
    const mine = rows.filter((row) => row['team'] === (team.team ?? '') && row['currency'] === team.currency);
    const total = (column: string) => mine.reduce((sum, row) => sum + millionths(row[column]), 0n);
    t.is(total('run_rate'), millionths(team.runRate), `${team.team} ${team.currency} run-rate`);
    t.is(total('approved_this_month'), millionths(team.approvedThisMonth), `${team.team} ${team.currency} approved`);
  }
});

test('bad queries are 400 naming the field and the rule; the month defaults to the current one in Sydney', async (t) => {
  const { api } = t.context;
  const cases: Array<[string, string, RegExp]> = [
    ['month=2026-13', 'querystring.month', /must be a month as YYYY-MM/],
    ['month=0000-01', 'querystring.month', /must be a month as YYYY-MM/],
    ['currency=aud', 'querystring.currency', /three-letter/],
    ['team=a%20team', 'querystring.team', /letters, digits and \. _ -/],
    ['limit=501', 'querystring.limit', /must be at most 500 for JSON \(a CSV takes up to 10000\)/],
    ['environment=prod', 'querystring.environment', /./],
    ['cursor=garbage', 'querystring.cursor', /must be the nextCursor of a previous page/],
  ];
  for (const [query, path, rule] of cases) {
    const response = await api.call('GET', `/api/v1/commitments?${query}`, { as: 'olga' });
    t.is(response.status, 400, query);
    const { error } = json<ErrorBody>(response);
    t.is(error.code, 'INVALID_INPUT', query);
    t.is(error.details[0]?.path, path, query);
    t.regex(error.details[0]?.message ?? '', rule, query);
  }
  const csv = await fetch(`${api.url}/api/v1/commitments?format=csv&limit=501`, {
    headers: { authorization: `Bearer ${api.tokens.olga}` },
  });
  t.is(csv.status, 200);

  const current = json<CommitmentsBody>(await api.call('GET', '/api/v1/commitments', { as: 'olga' }));
  const expected = calendarMonth('Australia/Sydney', Date.now());
  // Read just after a month turned in Sydney, the answer may be a moment older than `expected`.
  t.true([expected, calendarMonth('Australia/Sydney', Date.now() - 60_000)].includes(current.month), current.month);
  const staging = json<CommitmentsBody>(
    await api.call('GET', '/api/v1/commitments?environment=staging&month=2026-01', { as: 'olga' }),
  );
  t.like(staging, { environment: 'staging', timeZone: 'UTC' });
  t.deepEqual(
    staging.teams.map((figures) => [figures.team, figures.runRate, figures.budget.monthlyNew]),
    [['network', '10', null]],
  );
});

test("/metrics carries this month's run-rate and approvals per environment, team and currency", async (t) => {
  const { api } = t.context;
  const justNow = new Date(Date.now() - 1000).toISOString();
  await seedCommitted(api.repository, {
    ticketId: 'M',
    team: 'sec-ops',
    monthlyRate: '50.05',
    currency: 'USD',
    path: 'bought',
    approvedAt: justNow,
    boughtAt: justNow,
  });
  const response = await fetch(`${api.url}/metrics`);
  t.is(response.status, 200);
  const text = await response.text();
  const labels = 'environment="production",team="sec-ops",currency="USD"';
  t.true(text.includes(`mve_commitments_run_rate{${labels}} 50.05`), text);
  t.true(text.includes(`mve_commitments_approved_this_month{${labels}} 50.05`), text);
  t.regex(text, /# HELP mve_commitments_run_rate Monthly prices of each team's bought orders/);
});
