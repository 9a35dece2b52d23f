/**
 * The commitments read model over the records: run-rate and approved-this-month per team and currency, at exact
 * cents, with the month taken in the budget's time zone (January 2026 in Sydney runs from 13:00 UTC on 31 December to
 * 13:00 UTC on 31 January), terms starting at BOUGHT, and approvals as committed (budget_commitments) by orders whose approval still stands.
 */
import test from 'ava';
import { createRepository, type Repository } from '../../infra/db/index.js';
import { JANUARY_ORDERS, seedCommitted } from '../helpers/commitments.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);
let repo: Repository;

const BUDGETS = [
  { team: 'network', currency: 'AUD', monthlyNew: 3236.41, runRateCap: 1618.23 },
  { team: 'network', currency: 'USD', monthlyNew: 100, runRateCap: null },
];
const JANUARY = { environment: 'production' as const, month: '2026-01', timeZone: 'Australia/Sydney' };

test.before(async () => {
  repo = createRepository((await postgres.database()).sql);
  for (const order of JANUARY_ORDERS) await seedCommitted(repo, order);
});

test('per team and currency: run-rate, approved this month, budgets and what remains, at exact cents', async (t) => {
  const totals = await repo.commitmentTotals({ ...JANUARY, budgets: BUDGETS });
  t.is(totals.monthStart, '2025-12-31T13:00:00.000Z');
  t.is(totals.monthEnd, '2026-01-31T13:00:00.000Z');
  t.is(totals.asOf, totals.monthEnd, 'a month gone by is taken at its end');
  t.deepEqual(totals.teams, [
    {
      team: 'network',
      currency: 'AUD',
      runRate: '1618.22',
      runningOrders: 2,
      approvedThisMonth: '3236.42',
      approvedOrders: 2,
      approvedNotBought: '3336.41',
      budget: { monthlyNew: '3236.41', runRateCap: '1618.23' },
      // The cap counts what is approved and not bought yet, as the budget check does: 1618.23 - 1618.22 - 3336.41.
      remaining: { monthlyNew: '-0.01', runRateCap: '-3336.4' },
    },
    {
      team: 'network',
      currency: 'USD',
      runRate: '0',
      runningOrders: 0,
      approvedThisMonth: '0',
      approvedOrders: 0,
      approvedNotBought: '0',
      budget: { monthlyNew: '100', runRateCap: null },
      remaining: { monthlyNew: '100', runRateCap: null },
    },
    {
      team: null,
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
});

test("February in Sydney holds the order approved at its first midnight, and the run-rate at February's end", async (t) => {
  const totals = await repo.commitmentTotals({ ...JANUARY, month: '2026-02', team: 'network', currency: 'AUD' });
  t.deepEqual(
    totals.teams.map(({ team, runRate, approvedThisMonth, approvedOrders }) => [
      team,
      runRate,
      approvedThisMonth,
      approvedOrders,
    ]),
    [['network', '1618.22', '100.01', 1]],
  );
});

test('in UTC the same approvals fall in other months', async (t) => {
  const totals = await repo.commitmentTotals({ ...JANUARY, timeZone: 'UTC', team: 'network' });
  // E (31 December in UTC) leaves January; D (31 January in UTC) joins it.
  t.like(totals.teams[0], { currency: 'AUD', approvedThisMonth: '3336.41', approvedOrders: 2 });
});

test('the orders behind the figures, newest first, with their term totals and ends, paged by keyset', async (t) => {
  const orders = await repo.listCommittedOrders({ ...JANUARY, team: 'network' });
  t.deepEqual(
    orders.map((order) => [order.ticketId, order.inRunRate, order.approvedThisMonth]),
    [
      ['E', true, true],
      ['C', false, true],
      ['A', true, false],
    ],
  );
  t.like(orders[2], {
    monthlyRate: '1618.2',
    termMonths: 12,
    termTotal: '19418.4',
    boughtAt: '2025-12-20T01:00:00.000Z',
    // Twelve calendar months later in Sydney, where the term started on 20 December at 12:00 (summer time both ends).
    termEndsAt: '2026-12-20T01:00:00.000Z',
    status: 'LIVE',
  });
  t.like(orders[1], { boughtAt: null, termEndsAt: null, approvedAt: '2026-01-31T12:59:59.999Z', status: 'APPROVED' });

  const first = await repo.listCommittedOrders({ ...JANUARY, team: 'network', limit: 2 });
  const last = first.at(-1)!;
  const rest = await repo.listCommittedOrders({
    ...JANUARY,
    team: 'network',
    after: { createdAt: last.createdAt, workflowId: last.workflowId },
  });
  t.deepEqual(
    [...first, ...rest].map((order) => order.ticketId),
    ['E', 'C', 'A'],
  );
});

test('a term runs calendar months in the budget time zone: in the run-rate until it ends', async (t) => {
  // B: one month from 10 December, 11:00 in Sydney, to 10 January, 11:00: running at December's end, not January's.
  const december = await repo.listCommittedOrders({ ...JANUARY, month: '2025-12', team: 'network' });
  t.like(
    december.find((order) => order.ticketId === 'B'),
    { termEndsAt: '2026-01-10T00:00:00.000Z', inRunRate: true, approvedThisMonth: true },
  );
  const january = await repo.listCommittedOrders({ ...JANUARY, team: 'network' });
  t.false(january.some((order) => order.ticketId === 'B'));
});

test('bad queries are refused naming the field and the rule', async (t) => {
  const error = await t.throwsAsync(
    repo.commitmentTotals({ ...JANUARY, month: '2026-13', currency: 'aud', team: 'a team' }),
  );
  t.regex(error.message, /month: must be a month as YYYY-MM/);
  t.regex(error.message, /currency: must be a three-letter ISO 4217 code/);
  t.regex(error.message, /team: must be 1 to 64 letters/);
});
