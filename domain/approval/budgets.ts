import type { ApprovalPolicy } from './policy.js';

/** One team's budget in one currency, as the commitments read lists it; null where the budget sets no such limit. */
export interface TeamCurrencyBudget {
  team: string;
  currency: string;
  monthlyNew: number | null;
  runRateCap: number | null;
}

/** The policy's budgets, one entry per team and currency either limit names, in the policy's order of teams. */
export function teamBudgets(policy: Pick<ApprovalPolicy, 'teams'>): TeamCurrencyBudget[] {
  return (policy.teams ?? []).flatMap(({ id, budget }) => {
    if (!budget) return [];
    const currencies = [...new Set([...Object.keys(budget.monthlyNew ?? {}), ...Object.keys(budget.runRateCap ?? {})])];
    return currencies.sort().map((currency) => ({
      team: id,
      currency,
      monthlyNew: budget.monthlyNew?.[currency] ?? null,
      runRateCap: budget.runRateCap?.[currency] ?? null,
    }));
  });
}

/** The time zone an environment's months run by: the policy's `budgetTimeZone`, UTC for a policy without teams. */
export function budgetTimeZone(policy: Pick<ApprovalPolicy, 'budgetTimeZone'>): string {
  return policy.budgetTimeZone ?? 'UTC';
}

/** The calendar month (`YYYY-MM`) that `epochMs` falls in, in `timeZone`. */
export function calendarMonth(timeZone: string, epochMs: number): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric', month: '2-digit' }).formatToParts(epochMs);
  const part = (type: 'year' | 'month') => parts.find((entry) => entry.type === type)!.value;
  return `${part('year')}-${part('month')}`;
}
