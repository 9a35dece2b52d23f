/**
 * A team's figures beside an order's price (client/orders/service/decision-figures.ts): the block on the decision page,
 * and the one-line summary of the inbox and of each vote. Over budget is said in words, never by colour alone.
 */
import type { DecisionFigures } from '../orders/index.js';
import { html, money, moneyInText, type Html } from './html.js';

type Limit = 'monthlyNew' | 'runRateCap';

const LIMIT_WORDS: Record<Limit, string> = {
  monthlyNew: "this month's budget for new commitments",
  runRateCap: 'the run-rate cap',
};

/** The same, in a line of a list. */
const SHORT_LIMIT_WORDS: Record<Limit, string> = { monthlyNew: "month's budget", runRateCap: 'run-rate cap' };

/** The block the decision page shows: team, run-rate, approved, budget, what would remain; over budget and why. */
export function budgetFiguresBlock(figures: DecisionFigures): Html {
  const { currency, overBudget } = figures;
  const limits = (['monthlyNew', 'runRateCap'] as const).filter((limit) => figures.budget[limit] !== null);
  const budget = limits.length
    ? limits.map((limit) => html`${money(figures.budget[limit], currency)} ${LIMIT_WORDS[limit]}`)
    : ['no budget in this currency'];
  const remaining = limits.map((limit) => remainingWords(figures, limit));
  return html`<div class="budget-figures${overBudget ? ' over' : ''}" data-testid="budget-figures" data-over-budget="${overBudget ? 'true' : 'false'}">
    ${overBudget ? html`<p class="notice error" data-testid="over-budget" role="note"><strong>Over budget.</strong> ${moneyInText(overBudget.reason, [currency])}</p>` : ''}
    <dl class="facts">
      <dt>Team</dt><dd data-testid="budget-team"><strong>${figures.teamName ?? figures.team}</strong>${figures.teamName ? html` <span class="muted">(${figures.team})</span>` : ''}</dd>
      <dt>Run-rate</dt><dd data-testid="budget-run-rate">${money(figures.runRate, currency)} a month${Number(figures.approvedNotBought) > 0 ? html` <span class="muted">and ${money(figures.approvedNotBought, currency)} approved, not bought yet</span>` : ''}</dd>
      <dt>Approved this month</dt><dd data-testid="budget-approved">${money(figures.approvedThisMonth, currency)} <span class="muted">(${figures.month}, ${figures.timeZone})</span></dd>
      <dt>Budget</dt><dd data-testid="budget-limits">${joined(budget)}</dd>
      ${remaining.length ? html`<dt>Remaining after this order</dt><dd data-testid="budget-remaining">${joined(remaining)}</dd>` : ''}
    </dl>
  </div>`;
}

/** One line for a row of the inbox or a vote: the team and the tightest remaining, or by how much it is over. */
export function budgetFiguresLine(figures: DecisionFigures | null | undefined, testId: string): Html | string {
  if (!figures) return '';
  const { currency, overBudget } = figures;
  if (overBudget) {
    const worst = overBudget.overruns.reduce((a, b) => (Number(b.over) > Number(a.over) ? b : a));
    return html`<span data-testid="${testId}" data-over-budget="true">${figures.team}: <strong class="urgent">over budget</strong> by ${money(worst.over, currency)} <span class="muted">(${SHORT_LIMIT_WORDS[worst.limit]})</span></span>`;
  }
  const limits = (['monthlyNew', 'runRateCap'] as const).filter((limit) => figures.remainingAfter[limit] !== null);
  if (limits.length === 0)
    return html`<span data-testid="${testId}" data-over-budget="false">${figures.team}: no budget</span>`;
  const tightest = limits.reduce((a, b) =>
    Number(figures.remainingAfter[b]) < Number(figures.remainingAfter[a]) ? b : a,
  );
  return html`<span data-testid="${testId}" data-over-budget="false">${figures.team}: ${money(figures.remainingAfter[tightest], currency)} left after <span class="muted">(${SHORT_LIMIT_WORDS[tightest]})</span></span>`;
}

/** "1,381.80 AUD of this month's budget for new commitments", or what it would be over by. */
function remainingWords(figures: DecisionFigures, limit: Limit): Html {
  const left = figures.remainingAfter[limit]!;
  const over = left.startsWith('-');
  return over
    ? html`<strong class="urgent">${money(left.slice(1), figures.currency)} over</strong> ${LIMIT_WORDS[limit]}`
    : html`${money(left, figures.currency)} of ${LIMIT_WORDS[limit]}`;
}

function joined(parts: Array<Html | string>): Html {
  return html`${parts.map((part, index) => html`${index ? html`; ` : ''}${part}`)}`;
}
