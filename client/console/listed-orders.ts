/** Orders as lists show them (the inbox's "orders you may see", the ops view): one table, one row each. */
import { html, money, moneyInText, stateBadge, UTC_COLUMN, when, type Html } from './html.js';
import { dataTable, type Column } from './tables.js';

export interface ListedOrder {
  orderId: string;
  ticketId: string;
  environment: string;
  requestedBy: string;
  submittedBy: string | null;
  state: string;
  quote: { monthlyRate: number; currency: string } | null;
  /** Once bought: the product, with the provider's status the records last saw. */
  product?: { technicalServiceUid: string; provisioningStatus: string } | null;
  /** Lists give message and time; the ops view adds type and trace id for failed orders from the order itself. */
  lastError: { message: string; at: string; type?: string; traceId?: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function ordersTable(orders: ListedOrder[], caption: string, testId: string): Html {
  if (orders.length === 0) return html`<p data-testid="${testId}-empty">No orders.</p>`;
  const columns: Array<Column<ListedOrder>> = [
    {
      label: 'Ticket',
      cell: (order) => html`<a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a>`,
    },
    { label: 'State', cell: (order) => stateBadge(order.state) },
    { label: 'Environment', cell: (order) => order.environment },
    { label: 'Requester', cell: (order) => order.requestedBy },
    {
      label: 'Monthly price',
      num: true,
      cell: (order) => (order.quote ? money(order.quote.monthlyRate, order.quote.currency) : '—'),
    },
    { label: 'Created (UTC)', cell: (order) => when(order.createdAt, UTC_COLUMN) },
    { label: 'Last change (UTC)', cell: (order) => when(order.updatedAt, UTC_COLUMN) },
    {
      label: 'Last error',
      className: () => 'prose',
      cell: (order) => {
        const error = standingError(order);
        return error ? moneyInText(error.message, order.quote ? [order.quote.currency] : []) : '';
      },
    },
  ];
  return dataTable({
    columns,
    rows: orders,
    caption,
    rowHeader: true,
    rowAttributes: (order) => html`data-testid="${testId}" data-ticket="${order.ticketId}"`,
  });
}

/**
 * The order's last error while it still tells something: not once the order is bought or live (an error met on the
 * way is over by then), nor one from before the buy while the bought product is followed.
 */
export function standingError(order: {
  state: string;
  lastError?: ListedOrder['lastError'];
  provisioning?: { startedAt: string };
}): ListedOrder['lastError'] | undefined {
  const error = order.lastError;
  if (!error || order.state === 'BOUGHT' || order.state === 'LIVE') return undefined;
  const startedAt = order.provisioning?.startedAt;
  return startedAt && Date.parse(error.at) < Date.parse(startedAt) ? undefined : error;
}
