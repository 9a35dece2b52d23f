/**
 * The renewals of `GET /api/v1/commitments` over real HTTP: the terms ending within `renewalDays` of the month's
 * `asOf`, counted in calendar months on Sydney's clock, the soonest first, and a requester seeing their team's only.
 */
import anyTest, { type TestFn } from 'ava';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { seedCommitmentsView, TEAMED_POLICIES } from '../helpers/commitments-view.js';
import type { Renewal } from '../../client/http-client/index.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';

interface Body {
  asOf: string;
  renewalDays: number;
  renewals: Renewal[];
  moreRenewals: boolean;
}

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { policies: TEAMED_POLICIES });
  await seedCommitmentsView(t.context.api);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test('the terms ending within 90 days of the month, soonest first, their end on Sydney’s clock', async (t) => {
  const response = await t.context.api.call('GET', '/api/v1/commitments?month=2026-01', { as: 'fiona' });
  t.is(response.status, 200, JSON.stringify(response.body));
  const body = json<Body>(response);
  t.is(body.asOf, '2026-01-31T13:00:00.000Z');
  t.is(body.renewalDays, 90);
  t.false(body.moreRenewals);
  t.deepEqual(body.renewals, [
    {
      orderId: 'R2',
      ticketId: 'R2',
      team: 'sec-ops',
      currency: 'USD',
      monthlyRate: '250.5',
      termMonths: 12,
      boughtAt: '2025-02-01T00:00:00.000Z',
      termEndsAt: '2026-02-01T00:00:00.000Z',
      daysLeft: 1,
    },
    {
      orderId: 'R3',
      ticketId: 'R3',
      team: 'network',
      currency: 'AUD',
      monthlyRate: '20',
      termMonths: 6,
      boughtAt: '2025-08-10T00:00:00.000Z',
      // 10:00 in Sydney, bought in its winter (UTC+10) and ending in its summer (UTC+11).
      termEndsAt: '2026-02-09T23:00:00.000Z',
      daysLeft: 10,
    },
    {
      orderId: 'R1',
      ticketId: 'R1',
      team: 'network',
      currency: 'AUD',
      monthlyRate: '100',
      termMonths: 12,
      boughtAt: '2025-03-15T00:00:00.000Z',
      termEndsAt: '2026-03-15T00:00:00.000Z',
      daysLeft: 43,
    },
  ]);
});

test('renewalDays widens or narrows the window, to the day', async (t) => {
  const { api } = t.context;
  const tickets = async (query: string) => {
    const response = await api.call('GET', `/api/v1/commitments?month=2026-01&${query}`, { as: 'olga' });
    t.is(response.status, 200, JSON.stringify(response.body));
    return json<Body>(response).renewals.map((renewal) => renewal.ticketId);
  };
  t.deepEqual(await tickets('renewalDays=1'), ['R2']);
  t.deepEqual(await tickets('renewalDays=120'), ['R2', 'R3', 'R1']);
  t.deepEqual(await tickets('renewalDays=121'), ['R2', 'R3', 'R1', 'R4']);
  t.deepEqual(await tickets('renewalDays=366&currency=USD'), ['R2', 'R4']);
  for (const days of ['0', '367', 'soon']) {
    const response = await api.call('GET', `/api/v1/commitments?renewalDays=${days}`, { as: 'olga' });
    t.is(response.status, 400, days);
    t.is(json<ErrorBody>(response).error.details[0]?.path, 'querystring.renewalDays', days);
  }
});

test("a requester sees their own team's renewals only", async (t) => {
  const response = await t.context.api.call('GET', '/api/v1/commitments?month=2026-01&renewalDays=366', {
    as: 'alice',
  });
  t.is(response.status, 200, JSON.stringify(response.body));
  t.deepEqual(
    json<Body>(response).renewals.map((renewal) => [renewal.ticketId, renewal.team]),
    [
      ['R3', 'network'],
      ['R1', 'network'],
      ['A', 'network'],
      ['E', 'network'],
    ],
  );
});
