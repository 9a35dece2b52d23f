import { ApplicationFailure } from '@temporalio/activity';
import type { Keyring } from '../../codec/index.js';
import {
  budgetFit,
  budgetTimeZone,
  REFUSE_OVER_BUDGET,
  type ApprovalPolicy,
  type BudgetStanding,
  type PoliciesInForce,
} from '../../domain/approval/index.js';
import type { CommitDecision, EvidenceRepository, OrdersRepository } from '../../infra/db/index.js';
import type { BudgetCommitInput, BudgetInput, OrderActivities } from '../../workflows/order/activity-types.js';
import { currentRun } from './order-requests.js';
import { quoteSealHolds } from './quote-seal.js';

export interface BudgetActivityDeps {
  repository: Pick<OrdersRepository, 'orderCharge' | 'budgetStanding' | 'commitBudget'> &
    Pick<EvidenceRepository, 'listWorkerQuotes'>;
  /** The quotes' seals are checked with them. */
  actionKeys: Keyring;
  /** The approval policies this worker enforces: the team's budget is its environment's. */
  policies: PoliciesInForce;
}

/** A price the check refuses to look at: not the order's last sealed quote. */
const PRICE_NOT_QUOTED = 'BudgetPriceNotQuoted';

/**
 * The budget check of the order in the activity's context (docs/approval-policy.md, "Teams and budgets"). Its team,
 * currency budget and the price come from what the worker can verify — the order's record, the policy it holds, the
 * last quote a worker obtained (sealed) — never from the input alone: a price that is not that quote is refused.
 * Which tier approved is the input's word: a commitment over budget is honoured by the buy only with that tier's
 * signed votes (buy-evidence.ts).
 */
export function createBudgetActivity(
  deps: BudgetActivityDeps,
): Pick<OrderActivities, 'previewBudget' | 'commitBudget'> {
  return {
    async previewBudget(input) {
      const subject = await budgetSubject(deps, input);
      if (!subject.check) return { fit: null, overBudget: false, committed: false };
      const { workflowId, environment, check } = subject;
      const standing = await deps.repository.budgetStanding({ workflowId, environment, ...check, ...input });
      const fit = budgetFit(standing, input.monthlyRate);
      return { fit, overBudget: fit.overruns.length > 0, committed: false };
    },

    async commitBudget(input) {
      const subject = await budgetSubject(deps, input);
      const { workflowId, environment, team, check } = subject;
      const decision = await deps.repository.commitBudget(
        { workflowId, environment, team, ...input, check },
        (standing) => decide(subject.policy, input, standing),
      );
      return { fit: decision.fit, overBudget: decision.overBudget, committed: decision.commit };
    },
  };
}

/** Under the team's lock: commit when it fits, or when the tier approving it may pass the budget. */
function decide(policy: ApprovalPolicy, input: BudgetCommitInput, standing: BudgetStanding | null): CommitDecision {
  if (!standing) return { commit: true, overBudget: false, fit: null };
  const fit = budgetFit(standing, input.monthlyRate);
  if (fit.overruns.length === 0) return { commit: true, overBudget: false, fit };
  return { commit: mayPassBudget(policy, input.tier), overBudget: true, fit };
}

/** Whether approval by `tier` is at or above the tier the policy names for an order over budget. */
function mayPassBudget(policy: ApprovalPolicy, tier: string | null): boolean {
  const rule = policy.overBudget;
  if (rule === undefined || rule === REFUSE_OVER_BUDGET || tier === null) return false;
  const rank = (name: string) => policy.tiers.findIndex((candidate) => candidate.name === name);
  return rank(tier) >= 0 && rank(tier) >= rank(rule.tier);
}

interface BudgetSubject {
  workflowId: string;
  environment: 'staging' | 'production';
  team: string | null;
  policy: ApprovalPolicy;
  /** What the price is checked against; null when there is nothing to check. */
  check: { team: string; timeZone: string; budget: { monthlyNew: number | null; runRateCap: number | null } } | null;
}

/** The order's team and budget in the price's currency, once the price is shown to be its last sealed quote. */
async function budgetSubject(deps: BudgetActivityDeps, price: BudgetInput): Promise<BudgetSubject> {
  const { workflowId } = currentRun();
  const charge = await deps.repository.orderCharge(workflowId);
  if (!charge) throw ApplicationFailure.nonRetryable(`no order is recorded for ${workflowId}`, 'BudgetOrderUnknown');
  const policy = deps.policies.policies[charge.environment];
  if (!policy)
    throw ApplicationFailure.nonRetryable(`this worker holds no approval policy for ${charge.environment}`, 'NoPolicy');
  await requireLastSealedQuote(deps, workflowId, price);
  const budget = policy.teams?.find((team) => team.id === charge.team)?.budget;
  const monthlyNew = budget?.monthlyNew?.[price.currency] ?? null;
  const runRateCap = budget?.runRateCap?.[price.currency] ?? null;
  const check =
    charge.team === null || (monthlyNew === null && runRateCap === null)
      ? null
      : { team: charge.team, timeZone: budgetTimeZone(policy), budget: { monthlyNew, runRateCap } };
  return { workflowId, environment: charge.environment, team: charge.team, policy, check };
}

async function requireLastSealedQuote(deps: BudgetActivityDeps, workflowId: string, price: BudgetInput) {
  const quotes = await deps.repository.listWorkerQuotes(workflowId);
  const sealed = quotes.filter((quote) =>
    quoteSealHolds(
      deps.actionKeys,
      {
        workflowId,
        monthlyRate: Number(quote.monthlyRate),
        currency: quote.currency,
        quotedAt: new Date(quote.quotedAt),
      },
      quote.seal,
    ),
  );
  const last = sealed.at(-1);
  const same =
    last !== undefined &&
    last.currency === price.currency &&
    Math.round(Number(last.monthlyRate) * 1e6) === Math.round(price.monthlyRate * 1e6);
  if (!same)
    throw ApplicationFailure.nonRetryable(
      `${price.monthlyRate} ${price.currency} is not the last quote a worker obtained for ${workflowId}`,
      PRICE_NOT_QUOTED,
    );
}
