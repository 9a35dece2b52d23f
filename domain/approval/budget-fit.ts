/**
 * Whether an order's monthly price fits its team's budget in its currency, and what would remain after it
 * (docs/approval-policy.md, "Teams and budgets"). Amounts are decimal strings, as PostgreSQL's numeric sums them,
 * and are compared exactly in millionths (the finest price the API quotes); nothing is converted between currencies.
 */

/** A team's commitments in one currency, as the records stand, beside its budget (null: no such limit). */
export interface BudgetStanding {
  team: string;
  currency: string;
  /** The monthly prices of its bought orders whose term runs. */
  runRate: string;
  /** The monthly prices of its orders approved and not bought yet: they run once bought, so the cap counts them. */
  approvedNotBought: string;
  /** The monthly prices approved in the budget's calendar month. */
  approvedThisMonth: string;
  budget: { monthlyNew: string | null; runRateCap: string | null };
}

export type BudgetLimit = 'monthlyNew' | 'runRateCap';

/** One limit the order would pass: the budget, the figure with the order, and by how much it would be over. */
export interface BudgetOverrun {
  limit: BudgetLimit;
  budget: string;
  withOrder: string;
  over: string;
}

export interface BudgetFit {
  standing: BudgetStanding;
  /** The order's monthly price. */
  price: string;
  /** Budget less the figure with this order counted (null: no such limit); negative when over. */
  remainingAfter: { monthlyNew: string | null; runRateCap: string | null };
  /** The limits it would pass; empty when it fits (a figure equal to its budget fits). */
  overruns: BudgetOverrun[];
}

/** How `price` sits against the team's budgets: the run-rate cap counts running and approved orders plus this one. */
export function budgetFit(standing: BudgetStanding, price: number): BudgetFit {
  const priceMicros = BigInt(Math.round(price * 1_000_000));
  const withOrder: Record<BudgetLimit, bigint> = {
    monthlyNew: micros(standing.approvedThisMonth) + priceMicros,
    runRateCap: micros(standing.runRate) + micros(standing.approvedNotBought) + priceMicros,
  };
  const remainingAfter: BudgetFit['remainingAfter'] = { monthlyNew: null, runRateCap: null };
  const overruns: BudgetOverrun[] = [];
  for (const limit of ['monthlyNew', 'runRateCap'] as const) {
    const budget = standing.budget[limit];
    if (budget === null) continue;
    const left = micros(budget) - withOrder[limit];
    remainingAfter[limit] = decimal(left);
    if (left < 0n) overruns.push({ limit, budget, withOrder: decimal(withOrder[limit]), over: decimal(-left) });
  }
  return { standing, price: decimal(priceMicros), remainingAfter, overruns };
}

const LIMIT_NAMES: Record<BudgetLimit, string> = {
  monthlyNew: 'budget for new commitments this month',
  runRateCap: 'run-rate cap',
};

/** Why the order is over budget, in words shown on the timeline, the approver's page and the ticket. */
export function overBudgetReason(fit: BudgetFit): string {
  const { team, currency } = fit.standing;
  const passed = fit.overruns.map(
    ({ limit, budget, withOrder, over }) =>
      `its ${LIMIT_NAMES[limit]} of ${budget} ${currency} (${withOrder} ${currency} with this order, ${over} ${currency} over)`,
  );
  return `${fit.price} ${currency} a month would take team ${team} over ${passed.join(' and ')}`;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** A decimal string in millionths; digits past the sixth are dropped (no price or sum of prices has them). */
function micros(value: string): bigint {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`not a decimal amount: "${value}"`);
  const [, sign, whole, fraction = ''] = match;
  const magnitude = BigInt(whole) * 1_000_000n + BigInt(fraction.slice(0, 6).padEnd(6, '0'));
  return sign ? -magnitude : magnitude;
}

/** Millionths as a decimal string without trailing zeros, e.g. 1234500000n → "1234.5". */
function decimal(value: bigint): string {
  const sign = value < 0n ? '-' : '';
  const magnitude = value < 0n ? -value : value;
  const whole = magnitude / 1_000_000n;
  const fraction = (magnitude % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}
