import type { QuoteRecord } from './activity-types.js';
import {
  overBudgetReason,
  REFUSE_OVER_BUDGET,
  type ApprovalPolicy,
  type ApprovalTier,
  type BudgetFit,
} from '../../domain/approval/index.js';
import { budgets } from './activities.js';
import type { RoundStart } from './progress.js';
import type { Ending, GovernedRun } from './run.js';

/**
 * The team's budget at the approval gate (docs/approval-policy.md, "Teams and budgets"). A price that would take the
 * team over a budget needs the policy's `overBudget` tier, or is refused; each approval commits the price under the
 * team's lock (the `commitBudget` activity), and one that no longer fits — another approval took the budget meanwhile —
 * goes to that tier too. Only for a policy whose teams have budgets, on runs that check them (`checksTeamBudgets`).
 */

/** What the gate does with a price over budget: approve it as it stands, ask the higher tier, or end the order. */
export type BudgetVerdict =
  | { kind: 'approve'; details: Record<string, unknown> }
  | { kind: 'escalate'; start: RoundStart }
  | { kind: 'end'; ending: NonNullable<Ending> };

export function checksBudgets(run: GovernedRun): boolean {
  return (run.policy.teams ?? []).some((team) => team.budget !== undefined) && run.changes.checksTeamBudgets();
}

/**
 * Before a round opens on `quote` (or before it is approved by the policy on its own, `tier` null): the tier its
 * round needs once its budget is counted, and why; or the end of an order the policy refuses over budget. Undefined:
 * the budget changes nothing.
 */
export async function budgetRound(
  run: GovernedRun,
  quote: QuoteRecord,
  tier: ApprovalTier | null,
): Promise<Exclude<BudgetVerdict, { kind: 'approve' }> | undefined> {
  if (!checksBudgets(run)) return undefined;
  const preview = await budgets.previewBudget(priceOf(quote));
  if (!preview.overBudget || !preview.fit) return undefined;
  return overBudget(run, quote, tier, preview.fit, overBudgetReason(preview.fit));
}

/**
 * An approval of `quote` by `tier` (null: by the policy on its own) commits it against the budget: approved when it
 * is committed; when it no longer fits and `tier` is below the policy's `overBudget` tier, escalated or refused, saying
 * `why` it no longer fits (another approval took the budget meanwhile, or the price rose).
 */
export async function commitApproval(
  run: GovernedRun,
  quote: QuoteRecord,
  tier: ApprovalTier | null,
  why = 'the budget was used meanwhile',
): Promise<BudgetVerdict> {
  if (!checksBudgets(run)) return { kind: 'approve', details: {} };
  const answer = await budgets.commitBudget({ ...priceOf(quote), tier: tier?.name ?? null });
  if (answer.committed) return { kind: 'approve', details: answer.fit ? { budget: answer.fit } : {} };
  const fit = answer.fit!;
  return overBudget(run, quote, tier, fit, `${why}: ${overBudgetReason(fit)}`);
}

function overBudget(
  run: GovernedRun,
  quote: QuoteRecord,
  tier: ApprovalTier | null,
  fit: BudgetFit,
  reason: string,
): Exclude<BudgetVerdict, { kind: 'approve' }> {
  const rule = run.policy.overBudget;
  if (rule === undefined || rule === REFUSE_OVER_BUDGET) {
    return { kind: 'end', ending: { state: 'REJECTED', actor: 'policy', reason: `${reason}; the policy refuses it` } };
  }
  const needed = tierNamed(run.policy, rule.tier);
  const higher = tier && tier.index > needed.index ? tier : needed;
  return {
    kind: 'escalate',
    start: { tier: higher, quote, reason: `${reason}: it needs the "${higher.name}" tier`, budget: fit },
  };
}

function tierNamed(policy: ApprovalPolicy, name: string): ApprovalTier {
  const index = policy.tiers.findIndex((tier) => tier.name === name);
  const tier = policy.tiers[index];
  return { index, name: tier.name, roles: [...tier.roles], approvals: tier.approvals };
}

function priceOf(quote: QuoteRecord) {
  return { monthlyRate: quote.monthlyRate, currency: quote.currency };
}
