import { parseApprovalPolicy, type ApprovalPolicyInput } from '../../domain/approval/index.js';

/** A small policy the tests reason about, independent of the shipped defaults. */
export const TEST_POLICY_INPUT: ApprovalPolicyInput = {
  autoApproveBelow: { USD: 1000, AUD: 1500 },
  tiers: [
    { name: 'manager', roles: ['finance-approver'], approvals: 1, upTo: { USD: 5000, AUD: 7500 } },
    { name: 'director', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  ],
  deadline: '72h',
  reminders: { beforeDeadline: ['24h', '1h'] },
  maxRiseWithoutApproval: { percent: 5, amount: { USD: 30 } },
  maxQuoteAge: '24h',
};

export const testPolicy = (overrides: Partial<ApprovalPolicyInput> = {}) =>
  parseApprovalPolicy({ ...TEST_POLICY_INPUT, ...overrides });

export const HOUR = 3_600_000;
