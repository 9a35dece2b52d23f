/**
 * Budgets at the approval gate, in the worker on Temporal's real server with PostgreSQL (docs/approval-policy.md,
 * "Teams and budgets"): a price one cent under its team's budget takes its tier as usual, one cent over takes the
 * policy's overBudget tier with the reason shown (an automatic approval too), and two approvals landing at once against
 * the last of a budget commit exactly one: the other goes to the higher tier. A policy that refuses: budget-refusal.test.ts.
 */
import anyTest, { type TestFn } from 'ava';
import type { OrderIntake } from '../../client/orders/index.js';
import { BUDGET_TEST_POLICIES, intakeOf, monthly } from '../helpers/budgets.js';
import { usePostgres } from '../helpers/postgres.js';
import { teamedPolicies } from '../helpers/teams.js';
import { orderOf, startOrderEngine, sydneyRequest, workflowOf, type OrderEngine } from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine; intake: OrderIntake }>;
const pg = usePostgres(test);

const POLICIES = teamedPolicies({
  version: 'budgets-1',
  base: BUDGET_TEST_POLICIES,
  teams: [
    { id: 'under', name: 'One cent under', budget: monthly(1618.21) },
    { id: 'over', name: 'One cent over', budget: monthly(1618.19) },
    { id: 'shared', name: 'Room for one', budget: monthly(3236.39) },
    { id: 'small', name: 'Below an automatic approval', budget: monthly(809.09) },
    { id: 'rising', name: 'A rise crosses the line', budget: monthly(1618.21) },
  ],
});

const MVE_8_32 = { monthlyRate: 1618.2, currency: 'AUD' };

test.before(async (t) => {
  const engine = await startOrderEngine(pg, { policies: POLICIES });
  t.context = { engine, intake: intakeOf(engine, POLICIES) };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

function submit(t: { context: { intake: OrderIntake } }, ticketId: string, costCentre: string, extra = {}) {
  return t.context.intake.submit(sydneyRequest(ticketId, { size: 'MVE 8/32', costCentre, ...extra }), 'alice');
}

test.serial('one cent under the budget: the tier its price needs, and the commitment fits', async (t) => {
  const { orders, repository } = t.context.engine;
  await submit(t, 'BUDGET-UNDER', 'under');
  const waiting = await waitForState(orders, 'BUDGET-UNDER', 'AWAITING_APPROVAL');
  t.is(waiting.approval?.tier.name, 'team');
  t.is(waiting.approval?.overBudget, undefined);

  await orders.approve(orderOf('BUDGET-UNDER'), { approverId: 'fiona', ...MVE_8_32 });
  t.is((await orders.result(orderOf('BUDGET-UNDER'))).state, 'BOUGHT');
  const commitment = await repository.budgetCommitment(workflowOf('BUDGET-UNDER'));
  t.like(commitment, { team: 'under', monthlyRate: '1618.2', tier: 'team', overBudget: false });
  t.deepEqual(commitment?.fit?.remainingAfter, { monthlyNew: '0.01', runRateCap: null });
  const approved = (await repository.getOrder(workflowOf('BUDGET-UNDER')))?.events.find(
    (event) => event.to === 'APPROVED',
  );
  t.like(approved?.details, { budget: { price: '1618.2', overruns: [] } }, 'the figures checked are journaled');
});

test.serial("one cent over: the overBudget tier's round, with the reason shown, and its approval buys", async (t) => {
  const { orders, repository } = t.context.engine;
  await submit(t, 'BUDGET-OVER', 'over');
  const waiting = await waitForState(orders, 'BUDGET-OVER', 'AWAITING_APPROVAL');
  const reason =
    '1618.2 AUD a month would take team over over its budget for new commitments this month of 1618.19 AUD ' +
    '(1618.2 AUD with this order, 0.01 AUD over): it needs the "finance" tier';
  t.is(waiting.approval?.tier.name, 'finance');
  t.is(waiting.approval?.overBudget, reason);
  t.is(waiting.timeline.at(-1)?.reason, reason, 'the timeline says why');

  await orders.approve(orderOf('BUDGET-OVER'), { approverId: 'fiona', ...MVE_8_32 });
  t.is((await orders.status(orderOf('BUDGET-OVER'))).state, 'AWAITING_APPROVAL', 'one vote is not the tier');
  await orders.approve(orderOf('BUDGET-OVER'), { approverId: 'dave', ...MVE_8_32 });
  t.is((await orders.result(orderOf('BUDGET-OVER'))).state, 'BOUGHT');
  t.like(await repository.budgetCommitment(workflowOf('BUDGET-OVER')), { tier: 'finance', overBudget: true });
});

test.serial('an automatic approval over budget goes to the overBudget tier too', async (t) => {
  const { orders } = t.context.engine;
  await submit(t, 'BUDGET-AUTO', 'small', { size: 'MVE 4/16' });
  const waiting = await waitForState(orders, 'BUDGET-AUTO', 'AWAITING_APPROVAL');
  t.is(waiting.approval?.tier.name, 'finance');
  t.regex(waiting.approval?.overBudget ?? '', /^809\.1 AUD a month would take team small over .* 0\.01 AUD over\)/);
  await orders.cancel(orderOf('BUDGET-AUTO'), { actor: 'alice', reason: 'not needed' });
});

test.serial('two approvals at once against the last of a budget: one commits, the other escalates', async (t) => {
  const { orders, repository } = t.context.engine;
  const tickets = ['BUDGET-RACE-1', 'BUDGET-RACE-2'];
  for (const ticket of tickets) await submit(t, ticket, 'shared');
  for (const ticket of tickets) {
    t.is((await waitForState(orders, ticket, 'AWAITING_APPROVAL')).approval?.tier.name, 'team', 'each fits alone');
  }
  await Promise.all(tickets.map((ticket) => orders.approve(orderOf(ticket), { approverId: 'fiona', ...MVE_8_32 })));

  const settled = await waitFor(async () => {
    const views = await Promise.all(tickets.map((ticket) => orders.status(orderOf(ticket))));
    const bought = views.filter((view) => view.state === 'BOUGHT');
    const escalated = views.filter((view) => view.approval?.tier.name === 'finance');
    return bought.length === 1 && escalated.length === 1 ? { escalated: escalated[0] } : undefined;
  }, 30_000);
  t.regex(
    settled.escalated.approval?.overBudget ?? '',
    /^the budget was used meanwhile: 1618\.2 AUD a month would take team shared over .*\(3236\.4 AUD with this order, 0\.01 AUD over\)/,
  );
  const commitments = await Promise.all(tickets.map((ticket) => repository.budgetCommitment(workflowOf(ticket))));
  t.is(commitments.filter((commitment) => commitment !== null).length, 1, 'exactly one committed');
  const totals = await repository.commitmentTotals({
    environment: 'staging',
    month: new Date().toISOString().slice(0, 7),
    timeZone: 'UTC',
    team: 'shared',
  });
  t.is(totals.teams[0]?.approvedThisMonth, '1618.2');
});

test.serial('a re-quote whose rise crosses the line is checked again and goes to the overBudget tier', async (t) => {
  const { orders, sim, repository } = t.context.engine;
  await submit(t, 'BUDGET-RISE', 'rising');
  t.is((await waitForState(orders, 'BUDGET-RISE', 'AWAITING_APPROVAL')).approval?.tier.name, 'team');
  sim.setPriceFactor(1.01); // within the policy's 2 % allowance: the tier alone would buy it
  try {
    await orders.approve(orderOf('BUDGET-RISE'), { approverId: 'fiona', ...MVE_8_32 });
    const again = await waitFor(async () => {
      const view = await orders.status(orderOf('BUDGET-RISE'));
      return view.approval?.tier.name === 'finance' ? view : undefined;
    });
    const risen = again.quote!.monthlyRate;
    t.true(risen > 1618.2 && risen <= 1618.2 * 1.02);
    t.is(again.state, 'AWAITING_APPROVAL');
    t.true(
      again.approval?.overBudget?.startsWith(
        `the price rose from 1618.2 to ${risen} AUD: ${risen} AUD a month would take team rising over its budget`,
      ),
      again.approval?.overBudget,
    );
    t.like(await repository.budgetCommitment(workflowOf('BUDGET-RISE')), { monthlyRate: '1618.2', overBudget: false });
    await orders.cancel(orderOf('BUDGET-RISE'), { actor: 'alice', reason: 'not needed' });
  } finally {
    sim.setPriceFactor(1);
  }
});
