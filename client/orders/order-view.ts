import type { OrderRecord, OrderView as OrderRecords } from '../../infra/db/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import { orderIdOfWorkflow } from '../../domain/index.js';
import { orderedOf, type Ordered } from './ordered.js';
import type { DecisionFigures } from './service/decision-figures.js';

/**
 * An order as the order service reads it and the HTTP API shows it: live from its workflow (`source: 'workflow'`, every field the status query
 * has) or, once Temporal has forgotten it, from the records (`source: 'records'`: no location, image or approval).
 * The CLI's API client reads the same type (client/http-client).
 */
export type ApiOrder = {
  /** The order's id: its ticket id in the submitter's namespace; what URLs name it by. */
  orderId: string;
  ticketId: string;
  workflowId: string;
  environment: string;
  requestedBy: string;
  submittedBy: string | null;
  state: OrderStatusView['state'];
  policy: { version: string; hash: string } | null;
  /** The team the order is charged to (null: none); set on every read of the order, not on what actions read. */
  team?: string | null;
  /** While it awaits a decision: its team's commitments and budget beside its price (null: no team). */
  budget?: DecisionFigures | null;
  quote: { monthlyRate: number; currency: string; quotedAt?: string } | null;
  source: 'workflow' | 'records';
  /** No worker has started the order yet (none serves its environment now): since when it waits for one. */
  waitingForWorkerSince?: string;
  location?: OrderStatusView['location'];
  image?: OrderStatusView['image'];
  kind?: string;
  /** What the request asked for, in words (size, term, place, image, vNICs): from the records, secrets redacted. */
  ordered?: Ordered;
  /** Every quote, oldest first, when there was more than one; `quotedAt` is ISO text, as every time the API gives. */
  quoteHistory?: Array<Omit<NonNullable<OrderStatusView['quoteHistory']>[number], 'quotedAt'> & { quotedAt: string }>;
  approval?: OrderStatusView['approval'];
  buyAttempts?: number;
  product?: OrderStatusView['product'] | null;
  /** The follow-up of the product's provisioning, once bought, when the workers follow it. */
  provisioning?: OrderStatusView['provisioning'];
  lastError?: { message: string; type?: string; traceId?: string; at: string } | null;
  timeline?: Array<{ seq: number; at: string; state: OrderStatusView['state']; actor: string; reason: string }>;
};

/** One row of `GET /api/v1/orders`, from the records. */
export type OrderListItem = ReturnType<typeof orderSummary>;

export function orderFromWorkflow(view: OrderStatusView): ApiOrder {
  const { quote, quoteHistory, policy, submittedBy, ...rest } = view;
  return {
    orderId: orderIdOfWorkflow(view.workflowId),
    ...rest,
    submittedBy: submittedBy ?? null,
    policy: policy ?? null,
    quote: quote
      ? { monthlyRate: quote.monthlyRate, currency: quote.currency, quotedAt: new Date(quote.quotedAt).toISOString() }
      : null,
    ...(quoteHistory
      ? { quoteHistory: quoteHistory.map((entry) => ({ ...entry, quotedAt: new Date(entry.quotedAt).toISOString() })) }
      : {}),
    source: 'workflow',
  };
}

/** An order's row as lists show it. */
export function orderSummary(order: OrderRecord) {
  return {
    orderId: orderIdOfWorkflow(order.workflowId),
    ticketId: order.ticketId,
    workflowId: order.workflowId,
    environment: order.environment,
    requestedBy: order.requestedBy,
    submittedBy: order.submittedBy,
    state: order.status,
    policy: order.policy,
    team: order.team,
    quote: order.quote
      ? { monthlyRate: Number(order.quote.monthlyRate), currency: order.quote.currency, quotedAt: order.quote.quotedAt }
      : null,
    product: order.product,
    ordered: orderedOf(order.request),
    lastError: order.lastError,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/** What Postgres remembers of an order once Temporal no longer has its workflow. */
export function orderFromRecords(records: OrderRecords): ApiOrder {
  const timeline = records.events.map((event) => ({
    seq: event.sequence,
    at: event.at,
    state: event.to,
    actor: event.actor,
    reason: event.reason ?? '',
  }));
  return {
    ...orderSummary(records.order),
    buyAttempts: records.buyAttempts.length,
    timeline,
    source: 'records',
  };
}
