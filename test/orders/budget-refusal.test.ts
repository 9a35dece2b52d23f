/**
 * A policy that refuses an order over its team's budget (docs/approval-policy.md, "Teams and budgets"): in the worker
 * on Temporal's real server, the order ends REJECTED by the policy with the reason, and nothing is committed.
 */
import test from 'ava';
import { BUDGET_TEST_POLICIES, intakeOf, monthly } from '../helpers/budgets.js';
import { usePostgres } from '../helpers/postgres.js';
import { teamedPolicies } from '../helpers/teams.js';
import { orderOf, startOrderEngine, sydneyRequest, workflowOf, type OrderEngine } from '../helpers/orders.js';

const pg = usePostgres(test);
let engine: OrderEngine | undefined;

const REFUSING = teamedPolicies({
  version: 'budgets-refusing-1',
  base: BUDGET_TEST_POLICIES,
  teams: [{ id: 'strict', name: 'Refused over budget', budget: monthly(1618.19) }],
  overBudget: 'refuse',
});

test.after.always(async () => {
  await engine?.stop();
});

test('a policy that refuses over budget rejects the order, saying why, and commits nothing', async (t) => {
  engine = await startOrderEngine(pg, { policies: REFUSING });
  const { orders, repository } = engine;
  const request = sydneyRequest('BUDGET-REFUSED', { size: 'MVE 8/32', costCentre: 'strict' });
  await intakeOf(engine, REFUSING).submit(request, 'alice');
  t.is((await orders.result(orderOf('BUDGET-REFUSED'))).state, 'REJECTED');
  const status = await orders.status(orderOf('BUDGET-REFUSED'));
  t.like(status.timeline.at(-1), {
    state: 'REJECTED',
    actor: 'policy',
    reason:
      '1618.2 AUD a month would take team strict over its budget for new commitments this month of 1618.19 AUD ' +
      '(1618.2 AUD with this order, 0.01 AUD over); the policy refuses it',
  });
  t.is(await repository.budgetCommitment(workflowOf('BUDGET-REFUSED')), null);
});
