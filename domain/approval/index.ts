/**
 * The approval policy and the pure decisions behind the order workflow's approval gate. Deterministic and
 * free of I/O, so the workflow may import it; times are epoch milliseconds supplied by the caller.
 */
export { DURATION_RULE } from '../lifecycle/index.js';
export {
  ENVIRONMENTS,
  MAX_REMINDERS,
  type ApprovalPolicies,
  type ApprovalPolicy,
  type ApprovalPolicyInput,
  type ApprovalTeam,
  type ApprovalTierPolicy,
  type Environment,
  type TeamBudget,
  DEFAULT_POLICY_VERSION,
  UNVERSIONED_POLICY,
} from './policy.js';
export { defaultApprovalPolicies } from './defaults.js';
export { isTimeZone, REFUSE_OVER_BUDGET, TEAM_ID_RULE, teamIdSchema } from './teams.js';
export { orderTeam, type OrderTeam, type TeamedRequest } from './order-team.js';
export { budgetTimeZone, calendarMonth, teamBudgets, type TeamCurrencyBudget } from './budgets.js';
export {
  budgetFit,
  overBudgetReason,
  type BudgetFit,
  type BudgetLimit,
  type BudgetOverrun,
  type BudgetStanding,
} from './budget-fit.js';
export {
  ApprovalPolicyError,
  POLICY_FILE_VARIABLE,
  POLICY_JSON_VARIABLE,
  loadApprovalPolicies,
  parseApprovalPolicy,
  type PoliciesInForce,
  type PolicyIssue,
} from './load.js';
export {
  approvalRequirement,
  formatQuote,
  requoteDecision,
  type ApprovalRequirement,
  type ApprovalTier,
  type HumanApprovalCause,
  type Quote,
  type RequoteDecision,
} from './requirement.js';
export {
  codePoint,
  findPerson,
  identityKey,
  identitySkeleton,
  lookAlikeIdentities,
  personNameProblem,
  quotedName,
  sameIdentity,
  type PersonMatch,
} from './identity.js';
export {
  notDecidable,
  quoteRefusal,
  tallyVotes,
  validateApprovalVote,
  voterRefusal,
  type ApprovalRound,
  type ApprovalState,
  type ApprovalVote,
  type Approver,
  type TallyResult,
  type VoteCheck,
  type VoteRefusal,
  type VoteRefusalCode,
} from './votes.js';
export {
  approverShortfall,
  approversFoundMessage,
  DEFAULT_DIRECTORY_RECHECK_MS,
  eligibleApprovers,
  type ApproverShortfall,
} from './eligible.js';
export { approvalRefusal, type ApprovalEvidence } from './approved.js';
export { approvalDeadline, isQuoteStale, reminderTimes } from './timing.js';
