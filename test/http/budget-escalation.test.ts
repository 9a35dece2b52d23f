/**
 * Over budget through real HTTP against the real worker (docs/approval-policy.md, "Over budget"): an order one cent
 * over its team's budget waits for the policy's overBudget tier, the reason on its timeline; a vote of the tier its
 * price needs is not enough, and the overBudget tier's votes buy it.
 */
import anyTest, { type TestFn } from 'ava';
import type { ApiOrder } from '../../client/http-client/index.js';
import { parseApprovalPolicy, type PoliciesInForce } from '../../domain/approval/index.js';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { json } from '../helpers/json.js';
import { TEST_POLICIES } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

const POLICIES: PoliciesInForce = {
  version: 'test-budget-escalation-1',
  source: 'test',
  policies: {
    ...TEST_POLICIES,
    staging: parseApprovalPolicy({
      ...TEST_POLICIES.staging,
      teams: [{ id: 'network', name: 'Network engineering', budget: { monthlyNew: { AUD: 1618.19 } } }],
      budgetTimeZone: 'Australia/Sydney',
      overBudget: { tier: 'finance' },
    }),
  },
};

const PRICE = { monthlyRate: 1618.2, currency: 'AUD' };

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { policies: POLICIES });
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

test('one cent over the budget waits for the overBudget tier, saying why, and its votes buy it', async (t) => {
  const { api } = t.context;
  const body = namedRequest('BUDGET-HTTP-1', { size: 'MVE 8/32', costCentre: 'network' });
  t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201);
  const waiting = await waitForApiState(api, 'BUDGET-HTTP-1', 'AWAITING_APPROVAL');
  t.like(waiting, { approval: { tier: { name: 'finance', approvals: 2 }, stillNeeded: 2 } });
  const reason =
    '1618.2 AUD a month would take team network over its budget for new commitments this month of 1618.19 AUD ' +
    '(1618.2 AUD with this order, 0.01 AUD over): it needs the "finance" tier';
  t.is(waiting.timeline?.at(-1)?.reason, reason);
  t.is((waiting.approval as { overBudget?: string } | undefined)?.overBudget, reason, 'the round says why');

  const first = await api.call('POST', '/api/v1/orders/BUDGET-HTTP-1/approve', { as: 'fiona', body: PRICE });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(json<{ state: string; stillNeeded: number }>(first), { state: 'AWAITING_APPROVAL', stillNeeded: 1 });
  const second = await api.call('POST', '/api/v1/orders/BUDGET-HTTP-1/approve', { as: 'dave', body: PRICE });
  t.is(second.status, 200, JSON.stringify(second.body));
  const bought: ApiOrder = await waitForApiState(api, 'BUDGET-HTTP-1', 'BOUGHT');
  t.is(bought.state, 'BOUGHT');
  t.like(await api.repository.budgetCommitment(bought.workflowId), { tier: 'finance', overBudget: true });
});
