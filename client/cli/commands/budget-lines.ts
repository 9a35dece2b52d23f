import type { DecisionFigures } from '../../orders/index.js';

/**
 * A team's figures beside an order's price (docs/approval-policy.md, "What approvers see"), as `mve-orders status`,
 * `approvals` and `history` print them: exact amounts as the API gives them, over budget in words.
 */

const LIMIT_WORDS = { monthlyNew: 'month budget', runRateCap: 'run-rate cap' } as const;
type Limit = keyof typeof LIMIT_WORDS;

/** The rows of `mve-orders status`: team, run-rate, approved, budget, what would remain, and why it is over. */
export function budgetRows(figures: DecisionFigures): Array<[string, string]> {
  const { currency } = figures;
  const amount = (value: string) => `${value} ${currency}`;
  const limits = (['monthlyNew', 'runRateCap'] as const).filter((limit) => figures.budget[limit] !== null);
  const rows: Array<[string, string]> = [
    ['team', `${figures.team}${figures.teamName ? ` (${figures.teamName})` : ''}`],
    ['run-rate', `${amount(figures.runRate)} a month; ${amount(figures.approvedNotBought)} approved, not bought yet`],
    ['approved', `${amount(figures.approvedThisMonth)} this month (${figures.month}, ${figures.timeZone})`],
    [
      'budget',
      limits.length
        ? limits.map((limit) => `${LIMIT_WORDS[limit]} ${amount(figures.budget[limit]!)}`).join('; ')
        : `none in ${currency}`,
    ],
  ];
  if (limits.length) {
    const left = limits.map((limit) => `${LIMIT_WORDS[limit]} ${remaining(figures, limit)}`);
    rows.push(['after this', left.join('; ')]);
  }
  if (figures.overBudget) rows.push(['OVER BUDGET', figures.overBudget.reason]);
  return rows;
}

/** One cell: the team and the tightest remaining after the order, or OVER and by how much ('-' with no figures). */
export function budgetAfter(figures: DecisionFigures | null | undefined): string {
  if (!figures) return '-';
  const limits = (['monthlyNew', 'runRateCap'] as const).filter((limit) => figures.remainingAfter[limit] !== null);
  if (limits.length === 0) return `${figures.team}: no budget`;
  const tightest = limits.reduce((a, b) =>
    Number(figures.remainingAfter[b]) < Number(figures.remainingAfter[a]) ? b : a,
  );
  return `${figures.team}: ${remaining(figures, tightest)}`;
}

/**
 * A vote's recorded figures when they hold what `budgetAfter` prints (anything else: none). Checked here field by field,
 * not with the API's zod schema: the CLI starts without loading zod (test/cli/start-up.test.ts).
 */
export function recordedFigures(recorded: unknown): DecisionFigures | null {
  if (!recorded || typeof recorded !== 'object') return null;
  const { team, currency, remainingAfter } = recorded as Record<string, unknown>;
  if (typeof team !== 'string' || typeof currency !== 'string') return null;
  if (!remainingAfter || typeof remainingAfter !== 'object') return null;
  const left = remainingAfter as Record<string, unknown>;
  if (
    !(['monthlyNew', 'runRateCap'] as const).every((limit) => left[limit] === null || typeof left[limit] === 'string')
  )
    return null;
  return recorded as DecisionFigures;
}

function remaining(figures: DecisionFigures, limit: Limit): string {
  const left = figures.remainingAfter[limit]!;
  return left.startsWith('-') ? `OVER by ${left.slice(1)} ${figures.currency}` : `${left} ${figures.currency} left`;
}
