/**
 * The commitments page: a month's figures per team and currency against budget (a bar each), the orders behind them a
 * page at a time, and the terms ending soon. What `GET /api/v1/commitments` answers, shown as it answers it.
 */
import { breakable, html, months, stateBadge, UTC_COLUMN, when, type Html } from '../html.js';
import { dataTable, type Column } from '../tables.js';
import { amount, budgetBar } from './bars.js';
import type {
  CommittedOrder,
  Commitments as CommitmentsAnswer,
  Renewal,
  TeamCommitmentFigures,
} from '../../http/schemas.js';

type TeamFigures = TeamCommitmentFigures;

/** The page's query: each set filter, as the API takes it. */
export interface CommitmentsFilters {
  environment?: string;
  month?: string;
  team?: string;
  currency?: string;
  cursor?: string;
}

export interface CommitmentsPageOptions {
  filters: CommitmentsFilters;
  /** Absent when the API refused the filters: the form is shown with the refusal. */
  answer?: CommitmentsAnswer;
  error?: Html;
  /** A requester: their own team's only, so no team to choose. */
  ownTeamOnly: boolean;
}

export function commitmentsView({ filters, answer, error, ownTeamOnly }: CommitmentsPageOptions): Html {
  const month = answer?.month ?? filters.month;
  return html`<h1>Commitments${month ? html` <span class="muted">· ${monthName(month)}</span>` : ''}</h1>
    ${answer ? monthPicker(filters, answer) : ''}
    ${filterForm(filters, answer, ownTeamOnly)}
    ${error ?? ''}
    ${answer ? html`${figuresSection(answer)}${ordersSection(filters, answer)}${renewalsSection(answer)}` : ''}`;
}

/** "January 2026". */
export function monthName(month: string): string {
  const [year, number] = month.split('-').map(Number);
  return new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    Date.UTC(year, number - 1, 1),
  );
}

/** The month `delta` months from `month` (`YYYY-MM`). */
export function shiftMonth(month: string, delta: number): string {
  const [year, number] = month.split('-').map(Number);
  const shifted = new Date(Date.UTC(year, number - 1 + delta, 1));
  return `${shifted.getUTCFullYear()}-${String(shifted.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The page's address with these filters (a month change starts the orders from their first page). */
export function pageLink(filters: CommitmentsFilters, path = '/commitments'): string {
  const search = new URLSearchParams(
    Object.entries(filters).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '',
    ),
  ).toString();
  return `${path}${search ? `?${search}` : ''}`;
}

function monthPicker(filters: CommitmentsFilters, answer: CommitmentsAnswer): Html {
  // Another month starts from its newest orders.
  const kept = { ...filters, cursor: undefined };
  const to = (delta: number) => shiftMonth(answer.month, delta);
  return html`<nav class="month-picker" aria-label="Month">
      <a href="${pageLink({ ...kept, month: to(-1) })}" data-testid="previous-month" rel="prev">← ${monthName(to(-1))}</a>
      <span class="muted">${answer.environment}, months in ${answer.timeZone}; run-rate as of ${when(answer.asOf)}</span>
      <a href="${pageLink({ ...kept, month: to(1) })}" data-testid="next-month" rel="next">${monthName(to(1))} →</a>
    </nav>`;
}

function filterForm(filters: CommitmentsFilters, answer: CommitmentsAnswer | undefined, ownTeamOnly: boolean): Html {
  const teams = [...new Set((answer?.teams ?? []).map((figures) => figures.team).filter((team) => team !== null))];
  const currencies = [...new Set((answer?.teams ?? []).map((figures) => figures.currency))];
  return html`<form method="get" action="/commitments" class="filters" role="search" aria-label="Filter commitments">
      <div><label for="c-month">Month</label><input type="month" id="c-month" name="month" value="${answer?.month ?? filters.month ?? ''}" data-testid="filter-month"></div>
      <div><label for="c-environment">Environment</label><select id="c-environment" name="environment" data-testid="filter-environment">
        ${['production', 'staging'].map((env) => html`<option value="${env}" ${(filters.environment ?? 'production') === env ? 'selected' : ''}>${env}</option>`)}
      </select></div>
      ${
        ownTeamOnly
          ? html`<div><span class="muted">Your team's commitments only</span></div>`
          : html`<div><label for="c-team">Team</label><input type="text" id="c-team" name="team" list="c-teams" value="${filters.team ?? ''}" placeholder="every team" data-testid="filter-team"><datalist id="c-teams">${teams.map((team) => html`<option value="${team}">`)}</datalist></div>`
      }
      <div><label for="c-currency">Currency</label><input type="text" id="c-currency" name="currency" list="c-currencies" value="${filters.currency ?? ''}" placeholder="every currency" maxlength="3" data-testid="filter-currency"><datalist id="c-currencies">${currencies.map((code) => html`<option value="${code}">`)}</datalist></div>
      <div><button type="submit" data-testid="filter-button">Show</button></div>
      ${filters.team || filters.currency ? html`<div><a href="${pageLink({ month: filters.month, environment: filters.environment })}">Clear filters</a></div>` : ''}
    </form>`;
}

/** Per team and currency: the run-rate against its cap, and what was approved in the month against its budget. */
function figuresSection(answer: CommitmentsAnswer): Html {
  return html`<section data-live="figures" aria-labelledby="figures-heading">
      <h2 id="figures-heading">Against budget</h2>
      ${
        answer.teams.length === 0
          ? html`<p class="muted" data-testid="no-figures">Nothing committed and no budget set in ${monthName(answer.month)}.</p>`
          : html`<div class="team-cards">${answer.teams.map(teamCard)}</div>`
      }
    </section>`;
}

function teamCard(figures: TeamFigures): Html {
  const title = figures.team === null ? 'No team' : (figures.name ?? figures.team);
  return html`<article class="team-card" data-testid="team-figures" data-team="${figures.team ?? ''}" data-currency="${figures.currency}">
      <h3>${title} <span class="muted">· ${figures.currency}${figures.team !== null && figures.name ? html` · <code>${figures.team}</code>` : ''}</span></h3>
      ${budgetBar({
        kind: 'run-rate',
        label: 'Run-rate',
        limitName: 'cap',
        currency: figures.currency,
        value: figures.runRate,
        pending: { label: 'approved, not bought', value: figures.approvedNotBought },
        limit: figures.budget.runRateCap,
        remaining: figures.remaining.runRateCap,
      })}
      ${budgetBar({
        kind: 'approved',
        label: 'Approved this month',
        limitName: 'budget',
        currency: figures.currency,
        value: figures.approvedThisMonth,
        limit: figures.budget.monthlyNew,
        remaining: figures.remaining.monthlyNew,
      })}
      <p class="muted">${figures.runningOrders} running, ${figures.approvedOrders} approved in the month</p>
    </article>`;
}

const ticketColumn = <Row extends { orderId: string; ticketId: string }>(): Column<Row> => ({
  label: 'Ticket',
  className: () => 'id ticket',
  cell: (row) => html`<a href="/orders/${encodeURIComponent(row.orderId)}">${breakable(row.ticketId)}</a>`,
});
const teamColumn = <Row extends { team: string | null }>(): Column<Row> => ({
  label: 'Team',
  className: () => 'id',
  cell: (row) => row.team ?? html`<span class="muted">none</span>`,
});

function ordersSection(filters: CommitmentsFilters, answer: CommitmentsAnswer): Html {
  const columns: Array<Column<CommittedOrder>> = [
    ticketColumn(),
    teamColumn(),
    { label: 'State', cell: (order) => stateBadge(order.state) },
    { label: 'Monthly', num: true, cell: (order) => amount(order.monthlyRate, order.currency) },
    { label: 'Term', className: () => 'term', cell: (order) => months(order.termMonths) },
    { label: 'Term total', num: true, cell: (order) => amount(order.termTotal, order.currency) },
    { label: 'Bought (UTC)', cell: (order) => when(order.boughtAt, UTC_COLUMN) },
    { label: 'Term ends (UTC)', cell: (order) => when(order.termEndsAt, UTC_COLUMN) },
    { label: 'Counts in', cell: countsIn },
  ];
  const next = answer.nextCursor ? pageLink({ ...filters, cursor: answer.nextCursor }) : undefined;
  const first = filters.cursor ? pageLink({ ...filters, cursor: undefined }) : undefined;
  const csv = pageLink({ ...filters, month: answer.month, cursor: undefined }, '/commitments.csv');
  return html`<section aria-labelledby="orders-heading">
      <h2 id="orders-heading">The orders behind the figures</h2>
      <p><a href="${csv}" download data-testid="csv-link">Download all of them as CSV</a> <span class="muted">(one row each, as the API gives it)</span></p>
      ${
        answer.orders.length === 0
          ? html`<p class="muted" data-testid="commitment-orders-empty">No orders.</p>`
          : dataTable({
              columns,
              rows: answer.orders,
              caption: 'In the run-rate or approved in the month, newest first',
              rowHeader: true,
              wide: true,
              testId: 'commitment-orders',
              rowAttributes: (order) => html`data-testid="commitment-order" data-ticket="${order.ticketId}"`,
            })
      }
      ${first || next ? html`<p class="buttons">${first ? html`<a href="${first}" data-testid="first-page">← Newest orders</a>` : ''}${next ? html`<a href="${next}" data-testid="next-page">Older orders →</a>` : ''}</p>` : ''}
    </section>`;
}

function countsIn(order: CommittedOrder): string {
  const where = [order.inRunRate && 'run-rate', order.approvedThisMonth && 'approved this month'].filter(Boolean);
  return where.join(', ');
}

function renewalsSection(answer: CommitmentsAnswer): Html {
  const columns: Array<Column<Renewal>> = [
    ticketColumn(),
    teamColumn(),
    { label: 'Monthly', num: true, cell: (renewal) => amount(renewal.monthlyRate, renewal.currency) },
    { label: 'Term', className: () => 'term', cell: (renewal) => months(renewal.termMonths) },
    { label: 'Term ends (UTC)', cell: (renewal) => when(renewal.termEndsAt, UTC_COLUMN) },
    {
      label: 'Days left',
      num: true,
      className: (renewal) => (renewal.daysLeft <= 14 ? 'urgent' : undefined),
      cell: (renewal) => String(renewal.daysLeft),
    },
  ];
  return html`<section data-live="renewals" aria-labelledby="renewals-heading">
      <h2 id="renewals-heading">Renewals <span class="muted">· terms ending within ${answer.renewalDays} days</span></h2>
      ${
        answer.renewals.length === 0
          ? html`<p class="muted" data-testid="renewals-empty">No term ends within ${answer.renewalDays} days of ${when(answer.asOf)}.</p>`
          : dataTable({
              columns,
              rows: answer.renewals,
              caption: `Ending within ${answer.renewalDays} days of ${answer.asOf.slice(0, 10)}, the soonest first`,
              rowHeader: true,
              testId: 'renewals',
              rowAttributes: (renewal) => html`data-testid="renewal" data-ticket="${renewal.ticketId}"`,
            })
      }
      ${answer.moreRenewals ? html`<p class="muted">More terms end in that time than the ${answer.renewals.length} listed.</p>` : ''}
    </section>`;
}
