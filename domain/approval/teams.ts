import { z } from 'zod';

/**
 * Whose money an order spends: the policy's teams (cost centres), each with an optional budget per currency, the time
 * zone whose calendar months the budgets run by, and what an order over budget needs. All optional: a policy without
 * them parses (and hashes) as it always did. Amounts stay per currency; nothing is converted.
 */

export const TEAM_ID_RULE = 'must be 1 to 64 letters, digits and . _ - (starting with a letter or digit)';

/**
 * A team's id, as a request's `costCentre` and the approver directory's `team` name it. A schema made on each call:
 * the workflow sandbox freezes what this module exports, and zod writes to a regular expression's `lastIndex`.
 */
export function teamIdSchema() {
  return z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, TEAM_ID_RULE);
}

/** What an order that would take its team over a budget needs: a named tier's approvals, or refusal. */
export const REFUSE_OVER_BUDGET = 'refuse';

/** Whether Intl knows `name` as an IANA time zone (e.g. `Australia/Sydney`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The schemas of the teams' fields, over the policy's own amount-per-currency schema. */
export function teamSchemas(amountsByCurrency: z.ZodType<Record<string, number>>) {
  const budget = z
    .strictObject({
      /** Most the team may newly commit to (monthly prices approved) in one calendar month, per currency. */
      monthlyNew: amountsByCurrency.optional(),
      /** Most the monthly prices of the team's running orders may add up to, per currency. */
      runRateCap: amountsByCurrency.optional(),
    })
    .refine((value) => value.monthlyNew !== undefined || value.runRateCap !== undefined, {
      message: 'must name monthlyNew, runRateCap or both (leave budget out for a team without one)',
    });
  const team = z.strictObject({
    id: teamIdSchema(),
    name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    budget: budget.optional(),
  });
  return {
    teams: z.array(team).min(1, 'must name at least one team; leave teams out for a policy without teams'),
    budgetTimeZone: z
      .string()
      .refine(isTimeZone, 'must be an IANA time zone name, e.g. "Australia/Sydney" or "UTC" (Intl does not know it)'),
    overBudget: z.union([
      z.literal(REFUSE_OVER_BUDGET),
      z.strictObject({ tier: z.string().min(1, 'must not be empty') }),
    ]),
  };
}

/** What the team checks read of a policy. */
interface TeamedPolicy {
  tiers: ReadonlyArray<{ name: string }>;
  teams?: ReadonlyArray<{ id: string; budget?: object | undefined }> | undefined;
  budgetTimeZone?: string | undefined;
  overBudget?: typeof REFUSE_OVER_BUDGET | { tier: string } | undefined;
}

/**
 * Team ids are unique; the time zone and the over-budget rule come with teams; a policy whose teams have budgets
 * names what an order over one needs, and a tier it names exists.
 */
export function checkTeams(policy: TeamedPolicy, ctx: z.RefinementCtx): void {
  const { teams, budgetTimeZone, overBudget } = policy;
  if (teams === undefined) {
    if (budgetTimeZone !== undefined)
      ctx.addIssue({ code: 'custom', path: ['budgetTimeZone'], message: 'is only for a policy with teams' });
    if (overBudget !== undefined)
      ctx.addIssue({ code: 'custom', path: ['overBudget'], message: 'is only for a policy with teams' });
    return;
  }
  // An empty list is refused by its schema already; what follows would only repeat it.
  if (teams.length === 0) return;
  const seen = new Set<string>();
  teams.forEach((team, index) => {
    if (seen.has(team.id))
      ctx.addIssue({
        code: 'custom',
        path: ['teams', index, 'id'],
        message: `must be unique; "${team.id}" is used twice`,
      });
    seen.add(team.id);
  });
  if (budgetTimeZone === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['budgetTimeZone'],
      message: 'is required with teams: budgets run by the calendar months of this time zone (e.g. "UTC")',
    });
  }
  checkOverBudget(policy, teams, ctx);
}

function checkOverBudget(policy: TeamedPolicy, teams: NonNullable<TeamedPolicy['teams']>, ctx: z.RefinementCtx): void {
  const { overBudget } = policy;
  const budgeted = teams.some((team) => team.budget !== undefined);
  if (overBudget === undefined) {
    if (budgeted) {
      ctx.addIssue({
        code: 'custom',
        path: ['overBudget'],
        message: `is required when a team has a budget: { "tier": "<a tier's name>" } or "${REFUSE_OVER_BUDGET}"`,
      });
    }
    return;
  }
  if (!budgeted) {
    ctx.addIssue({ code: 'custom', path: ['overBudget'], message: 'has no effect: no team has a budget' });
  }
  if (overBudget !== REFUSE_OVER_BUDGET && !policy.tiers.some((tier) => tier.name === overBudget.tier)) {
    const names = policy.tiers.map((tier) => `"${tier.name}"`).join(', ');
    ctx.addIssue({
      code: 'custom',
      path: ['overBudget', 'tier'],
      message: `must name a tier of this policy (${names}); "${overBudget.tier}" is none`,
    });
  }
}
