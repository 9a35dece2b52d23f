/**
 * The decision figures of many orders at once, as the inbox asks for them (client/orders/service/decision-figures.ts):
 * one read of the commitments per environment, team and currency however many orders share them, one more for an
 * order quoted again (read without its own earlier commitment), none for orders without a team or under a policy
 * without teams; each order's own price weighed against its team's budget.
 */
import test from 'ava';
import type { OrderServiceParts } from '../../client/orders/index.js';
import { decisionFigures, type FiguredOrder } from '../../client/orders/service/decision-figures.js';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import type { CommitmentsQuery, CommitmentTotals } from '../../infra/db/index.js';
import { TEST_POLICIES } from '../helpers/orders.js';

const STAGING = parseApprovalPolicy({
  ...TEST_POLICIES.staging,
  teams: [
    { id: 'network', name: 'Network engineering', budget: { monthlyNew: { AUD: 3000, USD: 100 } } },
    { id: 'lab', name: 'Lab' },
  ],
  budgetTimeZone: 'UTC',
  overBudget: { tier: 'finance' },
});

/** Parts whose records say every team has 1000 approved this month in every currency; the reads are counted. */
function partsCounting(reads: CommitmentsQuery[]): OrderServiceParts {
  const repository = {
    commitmentTotals: (query: CommitmentsQuery): Promise<CommitmentTotals> => {
      reads.push(query);
      const budget = query.budgets?.find((entry) => entry.team === query.team && entry.currency === query.currency);
      return Promise.resolve({
        monthStart: '2026-11-01T00:00:00.000Z',
        monthEnd: '2026-12-01T00:00:00.000Z',
        asOf: '2026-11-29T12:00:00.000Z',
        teams: [
          {
            team: query.team ?? null,
            currency: query.currency ?? 'AUD',
            runRate: '0',
            runningOrders: 0,
            approvedThisMonth: '1000',
            approvedOrders: 1,
            approvedNotBought: '1000',
            budget: {
              monthlyNew: budget?.monthlyNew == null ? null : String(budget.monthlyNew),
              runRateCap: null,
            },
            remaining: { monthlyNew: null, runRateCap: null },
          },
        ],
      });
    },
  };
  return { repository, policies: { ...TEST_POLICIES, staging: STAGING } } as unknown as OrderServiceParts;
}

const order = (team: string | null, monthlyRate: number, currency = 'AUD', quoteNumber = 1): FiguredOrder => ({
  workflowId: `order-${team}-${monthlyRate}-${currency}-${quoteNumber}`,
  environment: 'staging',
  team,
  quote: { monthlyRate, currency },
  quoteNumber,
});

test('a page of orders reads each team and currency once, and an order quoted again on its own', async (t) => {
  const reads: CommitmentsQuery[] = [];
  const page = [
    order('network', 1618.2),
    order('network', 2000),
    order('network', 50, 'USD'),
    order('lab', 500),
    order('network', 1700, 'AUD', 2),
    order(null, 900),
  ];
  const figures = await decisionFigures(partsCounting(reads), page);
  t.deepEqual(
    reads.map(({ team, currency, excluding }) => [team, currency, excluding ?? null]),
    [
      ['network', 'AUD', null],
      ['network', 'USD', null],
      ['lab', 'AUD', null],
      ['network', 'AUD', 'order-network-1700-AUD-2'],
    ],
  );
  t.deepEqual(
    figures.map((entry) => entry && [entry.team, entry.price, entry.remainingAfter.monthlyNew, !!entry.overBudget]),
    [
      ['network', '1618.2', '381.8', false],
      ['network', '2000', '0', false],
      ['network', '50', '-950', true],
      ['lab', '500', null, false],
      ['network', '1700', '300', false],
      null,
    ],
  );
});

test('under a policy without teams, no order has figures and nothing is read', async (t) => {
  const reads: CommitmentsQuery[] = [];
  const parts = { ...partsCounting(reads), policies: TEST_POLICIES } as OrderServiceParts;
  t.deepEqual(await decisionFigures(parts, [order('network', 1618.2)]), [null]);
  t.is(reads.length, 0);
});
