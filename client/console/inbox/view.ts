import type { PendingApproval as InboxItem } from '../../http/schemas.js';
import { breakable, html, money, months, termTotal, timeLeft, UTC_COLUMN, when, type Html } from '../html.js';
import { budgetFiguresLine } from '../budget-figures.js';
import { ordersTable, type ListedOrder } from '../listed-orders.js';
import type { Ordered } from '../../orders/index.js';
import { isOps } from '../roles.js';
import type { ConsoleUser } from '../sessions.js';
import { dataTable, type Column } from '../tables.js';

export type { InboxItem };

/** "MVE 8/32, Sydney, AU, 12 months". */
function orderedWords({ size, place, term }: Ordered): string {
  return [size, place, term !== undefined ? months(term) : undefined].filter(Boolean).join(', ') || '—';
}

export function inboxView(items: InboxItem[], now: number, flash: Html): Html {
  const columns: Array<Column<InboxItem>> = [
    {
      label: 'Ticket',
      className: () => 'id ticket',
      cell: (item) => html`<a href="/orders/${encodeURIComponent(item.orderId)}">${breakable(item.ticketId)}</a>`,
    },
    {
      label: 'What',
      className: () => 'what',
      cell: (item) => html`<span data-testid="inbox-what">${orderedWords(item.ordered)}</span>`,
    },
    { label: 'Requester', className: () => 'id', cell: (item) => breakable(item.requestedBy) },
    { label: 'Environment', cell: (item) => item.environment },
    {
      // What it comes to over the term under the monthly price, in the same cell: the table fits a laptop's width.
      label: 'Monthly price',
      className: () => 'price',
      cell: (item) => {
        const term = item.ordered.term;
        const total =
          item.monthlyRate !== null && item.currency && term !== undefined
            ? html`<br><span class="muted" data-testid="inbox-term-total"><span class="amount">${money(termTotal(item.monthlyRate, term), item.currency)}</span> over ${months(term)}</span>`
            : '';
        const figures = item.budget ? html`<br>${budgetFiguresLine(item.budget, 'inbox-budget')}` : '';
        return html`<span class="amount">${money(item.monthlyRate, item.currency)}</span>${total}${figures}`;
      },
    },
    { label: 'Approvals', cell: (item) => `${item.tier}: ${item.stillNeeded} of ${item.approvalsNeeded} still needed` },
    {
      label: 'Time left',
      cell: (item) => timeLeft(item.deadline, now),
      className: (item) =>
        item.deadline && Date.parse(item.deadline) - now < 24 * 3600_000 ? 'time-left urgent' : 'time-left',
    },
    { label: 'Waiting since (UTC)', cell: (item) => when(item.waitingSince, UTC_COLUMN) },
  ];
  return html`<h1>Approvals inbox</h1>
    ${flash}
    <p class="muted">Orders waiting for your decision, oldest first: your approver roles, not your own orders, not yet voted on. This list refreshes by itself.</p>
    <section data-live="inbox" aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">Waiting for you <span class="muted" data-testid="inbox-count">(${items.length})</span></h2>
      ${
        items.length === 0
          ? html`<p data-testid="inbox-empty">Nothing is waiting for your decision.</p>`
          : dataTable({
              columns,
              rows: items,
              caption: `${items.length} order${items.length === 1 ? '' : 's'} awaiting your decision`,
              rowHeader: true,
              wide: true,
              rowAttributes: (item) => html`data-testid="inbox-row" data-ticket="${item.ticketId}"`,
            })
      }
    </section>`;
}

/** The same page for someone with no approver role: the orders the API lets them see. */
export function myOrdersView(user: ConsoleUser, orders: ListedOrder[], flash: Html): Html {
  return html`<h1>Orders</h1>
    ${flash}
    <p class="muted">You hold no approver role (${user.roles.join(', ') || 'no roles'}), so nothing waits for your decision here. ${isOps(user) ? html`Ops: see the <a href="/ops">ops view</a>.` : ''}</p>
    <section data-live="my-orders" aria-labelledby="mine-heading">
      <h2 id="mine-heading">Orders you may see</h2>
      ${ordersTable(orders, 'Newest first', 'order-row')}
    </section>`;
}
