/**
 * The set-up of the tests of teams and budgets: the tests' policies with one environment's rules given teams, the
 * time zone of their budget months and what an order over budget needs; and the approver directory's teams.
 */
import { issueApiToken } from '../../client/http/index.js';
import {
  parseApprovalPolicy,
  type ApprovalPolicies,
  type ApprovalPolicyInput,
  type PoliciesInForce,
} from '../../domain/approval/index.js';
import type { Repository } from '../../infra/db/index.js';
import { TEST_POLICIES } from './orders.js';

type Team = NonNullable<ApprovalPolicyInput['teams']>[number];

/** Team "network", with the budget the test gives it. */
export const networkTeam = (budget: Team['budget']): Team => ({ id: 'network', name: 'Network engineering', budget });

/** Team "sec-ops", without a budget unless the test gives it one. */
export const secOpsTeam = (budget?: Team['budget']): Team => ({
  id: 'sec-ops',
  name: 'Security operations',
  ...(budget && { budget }),
});

export interface TeamedPolicyOptions {
  /** The version label the workers record with each decision. */
  version: string;
  teams: Team[];
  /** The environment whose rules get the teams: staging unless told. */
  environment?: keyof ApprovalPolicies;
  /** The policies the teams are added to: the tests' own (TEST_POLICIES) unless told. */
  base?: ApprovalPolicies;
  /** The calendar the monthly budgets run by: UTC unless told. */
  budgetTimeZone?: string;
  /** What an order over budget needs: the finance tier's round unless told. */
  overBudget?: ApprovalPolicyInput['overBudget'];
}

/** The policies in force with `teams` in one environment's rules; the other environment's as in `base`. */
export function teamedPolicies(options: TeamedPolicyOptions): PoliciesInForce {
  const { version, teams, environment = 'staging', base = TEST_POLICIES } = options;
  const { budgetTimeZone = 'UTC', overBudget = { tier: 'finance' } } = options;
  return {
    version,
    source: 'test',
    policies: {
      ...base,
      [environment]: parseApprovalPolicy({ ...base[environment], teams, budgetTimeZone, overBudget }),
    },
  };
}

/** Puts each approver in the directory's team named beside it (a team the policy need not list). */
export async function joinTeams(repository: Repository, teamOf: Record<string, string>): Promise<void> {
  for (const [id, team] of Object.entries(teamOf)) await repository.updateApprover({ id, team });
}

/** A bearer token for `owner` as a requester. */
export async function requesterToken(repository: Repository, owner: string): Promise<string> {
  return (await issueApiToken(repository, { owner, roles: ['requester'] })).token;
}
