/**
 * The commitments read model over the records: run-rate and approved-this-month per team and currency, at exact
 * cents, with the month taken in the budget's time zone (January 2026 in Sydney runs from 13:00 UTC on 31 December to
 * 13:00 UTC on 31 January), terms starting at BOUGHT, and only orders whose approval still stands.
 */
import test from 'ava';
import { createRepository, type Repository } from '../../infra/db/index.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);
let repo: Repository;

/** The path of each kind of order, as the workflow moves it. */
const PATHS: Record<string, OrderState[]> = {
  bought: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  live: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT', 'PROVISIONING', 'LIVE'],
  approved: ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'APPROVED'],
  cancelled: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'CANCELLED'],
  // Approved, then its stale quote was validated again and rose: it waits for a new approval.
  requoted: ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'VALIDATING', 'AWAITING_APPROVAL'],
};

interface Seed {
  ticketId: string;
  team: string | null;
  monthlyRate: string;
  currency?: string;
  term?: number;
  environment?: 'staging' | 'production';
  path: keyof typeof PATHS;
  /** When it was approved (its latest approval), and bought where its path buys. */
  approvedAt: string;
  boughtAt?: string;
}

async function seed(order: Seed): Promise<void> {
  const workflowId = `mve-order-${order.ticketId}`;
  await repo.recordOrderReceived({
    workflowId,
    ticketId: order.ticketId,
    environment: order.environment ?? 'production',
    requestedBy: 'alice',
    request: { ticketId: order.ticketId, term: order.term ?? 12 },
    team: order.team,
    at: '2025-11-01T00:00:00.000Z',
  });
  await repo.recordQuote({
    workflowId,
    quoteNumber: 1,
    monthlyRate: order.monthlyRate,
    currency: order.currency ?? 'AUD',
    quotedAt: order.approvedAt,
  });
  let from: OrderState = 'RECEIVED';
  for (const [index, to] of PATHS[order.path].entries()) {
    const bought = to === 'BUYING' || to === 'BOUGHT' || to === 'PROVISIONING' || to === 'LIVE';
    const at = bought ? order.boughtAt! : order.approvedAt;
    await repo.recordTransition({ workflowId, sequence: index + 1, from, to, actor: 'engine', at });
    from = to;
  }
}

const BUDGETS = [
  { team: 'network', currency: 'AUD', monthlyNew: 3236.41, runRateCap: 1618.23 },
  { team: 'network', currency: 'USD', monthlyNew: 100, runRateCap: null },
];
const JANUARY = { environment: 'production' as const, month: '2026-01', timeZone: 'Australia/Sydney' };

test.before(async () => {
  repo = createRepository((await postgres.database()).sql);
  const orders: Seed[] = [
    // Running all January: bought in December for 12 months.
    {
      ticketId: 'A',
      team: 'network',
      monthlyRate: '1618.2',
      path: 'live',
      approvedAt: '2025-12-20T00:00:00Z',
      boughtAt: '2025-12-20T01:00:00Z',
    },
    // One month, bought on 10 December: its term ended on 10 January, before the month's end.
    {
      ticketId: 'B',
      team: 'network',
      monthlyRate: '809.1',
      term: 1,
      path: 'bought',
      approvedAt: '2025-12-10T00:00:00Z',
      boughtAt: '2025-12-10T00:00:00Z',
    },
    // Approved at 23:59:59.999 on 31 January in Sydney: January's.
    { ticketId: 'C', team: 'network', monthlyRate: '3236.4', path: 'approved', approvedAt: '2026-01-31T12:59:59.999Z' },
    // Approved at midnight starting 1 February in Sydney (still 31 January in UTC): February's.
    { ticketId: 'D', team: 'network', monthlyRate: '100.01', path: 'approved', approvedAt: '2026-01-31T13:00:00Z' },
    // Approved at midnight starting 1 January in Sydney (still 31 December in UTC), bought on 5 January: both.
    {
      ticketId: 'E',
      team: 'network',
      monthlyRate: '0.02',
      path: 'bought',
      approvedAt: '2025-12-31T13:00:00Z',
      boughtAt: '2026-01-05T00:00:00Z',
    },
    // Approved in January, then cancelled; another approved and sent back for a new approval: neither stands.
    {
      ticketId: 'F',
      team: 'sec-ops',
      monthlyRate: '50.05',
      currency: 'USD',
      path: 'cancelled',
      approvedAt: '2026-01-10T00:00:00Z',
    },
    { ticketId: 'H', team: 'network', monthlyRate: '7', path: 'requoted', approvedAt: '2026-01-10T00:00:00Z' },
    // Staging's, and one charged to no team.
    {
      ticketId: 'G',
      team: 'network',
      monthlyRate: '10',
      environment: 'staging',
      path: 'bought',
      approvedAt: '2026-01-10T00:00:00Z',
      boughtAt: '2026-01-10T00:00:00Z',
    },
    {
      ticketId: 'N',
      team: null,
      monthlyRate: '5.5',
      path: 'bought',
      approvedAt: '2026-01-10T00:00:00Z',
      boughtAt: '2026-01-10T00:00:00Z',
    },
  ];
  for (const order of orders) await seed(order);
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
      budget: { monthlyNew: '3236.41', runRateCap: '1618.23' },
      remaining: { monthlyNew: '-0.01', runRateCap: '0.01' },
    },
    {
      team: 'network',
      currency: 'USD',
      runRate: '0',
      runningOrders: 0,
      approvedThisMonth: '0',
      approvedOrders: 0,
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
