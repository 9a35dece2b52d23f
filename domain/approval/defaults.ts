import { policySchemas, type ApprovalPolicies, type ApprovalPolicyInput } from './policy.js';

/**
 * The shipped policy, documented in docs/approval-policy.md; override it per environment with
 * MVE_APPROVAL_POLICY_FILE or MVE_APPROVAL_POLICY. Staging orders are not charged, so staging is lenient.
 * Amounts in other currencies are round figures near the USD ones; any currency not listed takes the top tier.
 */
const staging: ApprovalPolicyInput = {
  alwaysRequireHuman: false,
  autoApproveBelow: {
    USD: 2000,
    EUR: 2000,
    GBP: 1600,
    AUD: 3000,
    NZD: 3400,
    CAD: 2750,
    SGD: 2700,
    HKD: 15500,
    JPY: 300000,
  },
  tiers: [
    {
      name: 'team',
      roles: ['finance-approver', 'engineering-manager'],
      approvals: 1,
      upTo: {
        USD: 10000,
        EUR: 10000,
        GBP: 8000,
        AUD: 15000,
        NZD: 17000,
        CAD: 13800,
        SGD: 14000,
        HKD: 79000,
        JPY: 1550000,
      },
    },
    { name: 'finance', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  ],
  deadline: '72h',
  reminders: { beforeDeadline: ['24h', '1h'] },
  maxRiseWithoutApproval: { percent: 5 },
  maxQuoteAge: '24h',
};

const production: ApprovalPolicyInput = {
  alwaysRequireHuman: false,
  autoApproveBelow: { USD: 500, EUR: 500, GBP: 400, AUD: 750, NZD: 850, CAD: 700, SGD: 700, HKD: 3950, JPY: 77500 },
  tiers: [
    {
      name: 'finance',
      roles: ['finance-approver'],
      approvals: 1,
      upTo: { USD: 5000, EUR: 5000, GBP: 4000, AUD: 7500, NZD: 8500, CAD: 6900, SGD: 7000, HKD: 39500, JPY: 775000 },
    },
    { name: 'finance-senior', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  ],
  deadline: '72h',
  reminders: { beforeDeadline: ['48h', '24h', '1h'] },
  maxRiseWithoutApproval: {
    percent: 2,
    amount: { USD: 50, EUR: 50, GBP: 40, AUD: 75, NZD: 85, CAD: 70, SGD: 70, HKD: 395, JPY: 7750 },
  },
  maxQuoteAge: '12h',
};

let parsed: ApprovalPolicies | undefined;

/**
 * The shipped policies, parsed on first use: the workflow bundle holds this module (through the approval barrel)
 * and evaluates it for every order run, which never reads the defaults (its policy comes from the worker), so a
 * parse at import cost every run a zod parse.
 */
export function defaultApprovalPolicies(): ApprovalPolicies {
  parsed ??= policySchemas().policies.parse({ staging, production });
  return parsed;
}
