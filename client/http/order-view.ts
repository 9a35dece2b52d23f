import type { OrderRecord, OrderView as OrderRecords } from '../../activities/db/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';

/** An order as the HTTP API shows it; `source` says whether it came live from the workflow or from the records. */
export interface ApiOrder {
  ticketId: string;
  workflowId: string;
  environment: string;
  requestedBy: string;
  submittedBy: string | null;
  state: OrderStatusView['state'];
  policy: { version: string; hash: string } | null;
  quote: { monthlyRate: number; currency: string; quotedAt?: string } | null;
  source: 'workflow' | 'records';
  [more: string]: unknown;
}

export function orderFromWorkflow(view: OrderStatusView): ApiOrder {
  const { quote, policy, submittedBy, ...rest } = view;
  return {
    ...rest,
    submittedBy: submittedBy ?? null,
    policy: policy ?? null,
    quote: quote ? { monthlyRate: quote.monthlyRate, currency: quote.currency, quotedAt: new Date(quote.quotedAt).toISOString() } : null,
    source: 'workflow',
  };
}

/** An order's row as lists show it. */
export function orderSummary(order: OrderRecord) {
  return {
    ticketId: order.ticketId,
    workflowId: order.workflowId,
    environment: order.environment,
    requestedBy: order.requestedBy,
    submittedBy: order.submittedBy,
    state: order.status,
    policy: order.policy,
    quote: order.quote ? { monthlyRate: Number(order.quote.monthlyRate), currency: order.quote.currency, quotedAt: order.quote.quotedAt } : null,
    product: order.product,
    lastError: order.lastError,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/** What Postgres remembers of an order once Temporal no longer has its workflow. */
export function orderFromRecords(records: OrderRecords): ApiOrder {
  const timeline = records.events.map((event) => ({ seq: event.sequence, at: event.at, state: event.to, actor: event.actor, reason: event.reason ?? '' }));
  return {
    ...orderSummary(records.order),
    buyAttempts: records.buyAttempts.length,
    timeline,
    source: 'records',
  };
}
