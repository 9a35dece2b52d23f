/** Policies with team budgets for the worker's tests (test/orders/budgets.test.ts, budget-refusal.test.ts). */
import { OrderIntake } from '../../client/orders/index.js';
import { parseApprovalPolicy, type ApprovalPolicies, type PoliciesInForce } from '../../domain/approval/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import type { OrderEngine } from './orders.js';

/** The simulator's Sydney prices (AUD, 12 months): MVE 4/16 = 809.10 (auto-approved), MVE 8/32 = 1618.20 (team). */
export const BUDGET_TEST_RULES = {
  autoApproveBelow: { AUD: 1000 },
  tiers: [
    { name: 'team', roles: ['finance-approver'], approvals: 1, upTo: { AUD: 3000 } },
    { name: 'finance', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  ],
  deadline: '72h',
  reminders: { beforeDeadline: ['24h'] },
  maxRiseWithoutApproval: { percent: 2 },
  maxQuoteAge: '12h',
};

/** Both environments under those rules, without teams: what test/helpers/teams.ts adds teams to. */
export const BUDGET_TEST_POLICIES: ApprovalPolicies = {
  staging: parseApprovalPolicy(BUDGET_TEST_RULES),
  production: parseApprovalPolicy(BUDGET_TEST_RULES),
};

/** A monthly budget for new commitments in AUD. */
export const monthly = (AUD: number) => ({ monthlyNew: { AUD } });

/** The intake charges each order to its costCentre, checked against the workers' policies. */
export function intakeOf(engine: OrderEngine, policies: PoliciesInForce): OrderIntake {
  const { orders, repository, actionKeys } = engine;
  return new OrderIntake({
    orders,
    repository,
    fingerprintKeys: actionKeys,
    kindMap: SIM_KIND_MAP,
    policies: policies.policies,
  });
}
