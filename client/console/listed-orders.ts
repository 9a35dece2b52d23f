/** Orders as lists show them (the inbox's "orders you may see", the ops view): one table, one row each. */
import { breakable, html, money, moneyInText, stateBadge, UTC_COLUMN, when, type Html } from './html.js';
import { clamped, dataTable, type Column } from './tables.js';

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
      className: () => 'id ticket',
      cell: (order) => html`<a href="/orders/${encodeURIComponent(order.orderId)}">${breakable(order.ticketId)}</a>`,
    },
    { label: 'State', cell: (order) => stateBadge(order.state) },
    { label: 'Environment', cell: (order) => order.environment },
    { label: 'Requester', className: () => 'id', cell: (order) => breakable(order.requestedBy) },
    {
      label: 'Monthly price',
      num: true,
      cell: (order) => (order.quote ? money(order.quote.monthlyRate, order.quote.currency) : '—'),
    },
    { label: 'Created (UTC)', cell: (order) => when(order.createdAt, UTC_COLUMN) },
    { label: 'Last change (UTC)', cell: (order) => when(order.updatedAt, UTC_COLUMN) },
  ];
  return dataTable({
    columns,
    rows: orders,
    caption,
    rowHeader: true,
    wide: true,
    rowAttributes: (order) => html`data-testid="${testId}" data-ticket="${order.ticketId}"`,
    detail: (order) => {
      const error = standingError(order);
      if (!error) return undefined;
      const { message, traceId } = errorParts(error, order.quote ? [order.quote.currency] : []);
      return clamped(
        html`<span class="detail-label">Last error:</span> ${message}${traceId ? html` <span class="muted">trace id <code>${traceId}</code></span>` : ''}`,
        `Last error: ${message}${traceId ? ` (trace id ${traceId})` : ''}`,
        'listed-error',
      );
    },
  });
}

/**
 * An error as the console shows it: its message (prices written as the page writes them) and its trace id once. The
 * ordering API's errors carry `[trace id …]` in their message; the order adds the same id as `traceId`: the page
 * names it once, apart, as `trace id <code>`.
 */
export function errorParts(
  error: { message: string; traceId?: string },
  currencies: Iterable<string>,
): { message: string; traceId?: string } {
  const inMessage = / \[trace id ([^\]\s]+)\]/.exec(error.message);
  const traceId = error.traceId ?? inMessage?.[1];
  const message =
    inMessage && inMessage[1] === traceId
      ? error.message.slice(0, inMessage.index) + error.message.slice(inMessage.index + inMessage[0].length)
      : error.message;
  return { message: moneyInText(message, currencies), ...(traceId ? { traceId } : {}) };
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
