import {
  budgetTimeZone,
  calendarMonth,
  defaultApprovalPolicies,
  ENVIRONMENTS,
  teamBudgets,
  type ApprovalPolicy,
  type Environment,
} from '../../../domain/approval/index.js';
import type { CommittedOrderRecord, CommitmentsQuery, RenewalRecord, TeamCommitment } from '../../../infra/db/index.js';
import { allow, COMMITMENTS_NEED_ROLE, mayReadAllCommitments } from '../access.js';
import { hasRole, sameIdentity, type Principal } from '../principal.js';
import { AccessRefused } from '../refusals.js';
import type { OrderServiceParts } from './parts.js';

/** Which commitments: an environment's, in a calendar month (the current one when left out), of a team, in a currency. */
export interface CommitmentsFilter {
  environment: Environment;
  month?: string | undefined;
  team?: string | undefined;
  currency?: string | undefined;
  /** How far ahead the renewals look from `asOf`, in days (default RENEWAL_DAYS). */
  renewalDays?: number | undefined;
}

/** The renewals' window by default, and the most renewals one answer lists (the soonest first). */
export const RENEWAL_DAYS = 90;
export const MAX_RENEWALS = 500;

/** Which of the orders behind the figures, newest first: at most `limit`, after where the previous page ended. */
export interface CommitmentsPage {
  limit: number;
  /** Read only once the caller may read commitments (as ./list.ts's). */
  after?: () => { createdAt: string; workflowId: string };
}

/** What the teams of an environment have committed to (infra/db/orders/commitments.ts), as the caller may read it. */
export interface Commitments {
  environment: Environment;
  month: string;
  timeZone: string;
  monthStart: string;
  monthEnd: string;
  asOf: string;
  /** Per team and currency, with the team's name in the policy (null: a team it no longer lists, or no team). */
  teams: Array<TeamCommitment & { name: string | null }>;
  orders: CommittedOrderRecord[];
  /** The terms that end within `renewalDays` days of `asOf`, the soonest first (at most MAX_RENEWALS). */
  renewalDays: number;
  renewals: RenewalRecord[];
  /** Whether more terms end in the window than `renewals` lists. */
  moreRenewals: boolean;
}

/** The commitments of the environment the filter names, limited to the caller's team for a requester. */
export async function readCommitments(
  parts: OrderServiceParts,
  principal: Principal,
  filter: CommitmentsFilter,
  page: CommitmentsPage,
): Promise<Commitments> {
  const team = await teamScope(parts, principal, filter.team);
  const policy = policyOf(parts, filter.environment);
  const timeZone = budgetTimeZone(policy);
  const month = filter.month ?? calendarMonth(timeZone, Date.now());
  const query: CommitmentsQuery = {
    environment: filter.environment,
    month,
    timeZone,
    ...(team === undefined ? {} : { team }),
    ...(filter.currency === undefined ? {} : { currency: filter.currency }),
    budgets: teamBudgets(policy),
  };
  const after = page.after?.();
  const renewalDays = filter.renewalDays ?? RENEWAL_DAYS;
  // The renewals' window opens at the run-rate's moment, which the totals give.
  const [{ totals, renewals }, orders] = await Promise.all([
    parts.repository.commitmentTotals(query).then(async (totals) => ({
      totals,
      renewals: await parts.repository.listRenewals({
        environment: query.environment,
        timeZone,
        from: totals.asOf,
        days: renewalDays,
        ...(team === undefined ? {} : { team }),
        ...(filter.currency === undefined ? {} : { currency: filter.currency }),
        limit: MAX_RENEWALS + 1,
      }),
    })),
    parts.repository.listCommittedOrders({ ...query, limit: page.limit, ...(after ? { after } : {}) }),
  ]);
  const names = new Map((policy.teams ?? []).map((entry) => [entry.id, entry.name]));
  return {
    environment: filter.environment,
    month,
    timeZone,
    ...totals,
    teams: totals.teams.map((figures) => ({ ...figures, name: names.get(figures.team ?? '') ?? null })),
    orders,
    renewalDays,
    renewals: renewals.slice(0, MAX_RENEWALS),
    moreRenewals: renewals.length > MAX_RENEWALS,
  };
}

/** One figure of the metrics: a team's run-rate and approved-this-month in one currency, this month. */
export interface CommitmentFigure {
  environment: Environment;
  /** null: orders charged to no team. */
  team: string | null;
  currency: string;
  runRate: string;
  approvedThisMonth: string;
}

/** Every environment's figures for its current month, for the metrics: totals only, never an order. */
export async function commitmentFigures(parts: OrderServiceParts): Promise<CommitmentFigure[]> {
  const perEnvironment = await Promise.all(
    ENVIRONMENTS.map(async (environment) => {
      const timeZone = budgetTimeZone(policyOf(parts, environment));
      const month = calendarMonth(timeZone, Date.now());
      const { teams } = await parts.repository.commitmentTotals({ environment, month, timeZone });
      return teams.map(({ team, currency, runRate, approvedThisMonth }) => ({
        environment,
        team,
        currency,
        runRate,
        approvedThisMonth,
      }));
    }),
  );
  return perEnvironment.flat();
}

function policyOf(parts: OrderServiceParts, environment: Environment): ApprovalPolicy {
  return (parts.policies ?? defaultApprovalPolicies())[environment];
}

/**
 * The team the caller's read is limited to (undefined: every team). Approvers and ops read any team, or all; a
 * requester reads their own team's, as the approver directory gives it, and naming another team is refused.
 */
async function teamScope(
  parts: OrderServiceParts,
  principal: Principal,
  named: string | undefined,
): Promise<string | undefined> {
  if (mayReadAllCommitments(principal)) return named;
  allow(hasRole(principal, 'requester'), COMMITMENTS_NEED_ROLE);
  const directory = await parts.repository.listApprovers({ activeOnly: false });
  const own = directory.find((person) => sameIdentity(person.id, principal.id))?.team;
  if (!own) {
    throw new AccessRefused(
      `a requester reads their own team's commitments, and the approver directory gives ${principal.id} no team`,
    );
  }
  if (named !== undefined && named !== own) {
    const rule = `must be your own team, ${own}, or left out: a requester reads no other team's commitments`;
    throw new AccessRefused(`querystring.team: ${rule}`, [{ path: 'querystring.team', message: rule }]);
  }
  return own;
}
