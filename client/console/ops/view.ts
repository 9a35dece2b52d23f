/** The ops view: what needs attention now, and every order, filtered. */
import { describeDuration, ORDER_STATES } from '../../../domain/lifecycle/index.js';
import { html, money, timeLeft, when, type Html } from '../html.js';
import { errorParts, ordersTable, type ListedOrder } from '../listed-orders.js';
import { portalWords, type ProviderPortal } from '../portal.js';
import { shortOfApproversAttention, type ShortOfApprovers } from './short-of-approvers.js';

export interface OpsFilters {
  status?: string;
  environment?: string;
  requester?: string;
  ticket?: string;
  cursor?: string;
}

export interface Attention {
  uncertain: ListedOrder[];
  failed: ListedOrder[];
  expiring: Array<{ order: ListedOrder; deadline: string; stillNeeded: number; tier: string }>;
  /** Orders awaiting approval that fewer approvers could vote on than their tier needs, the nearest deadline first. */
  shortOfApprovers: ShortOfApprovers[];
  /** The most recent orders whose provisioning failed or stalled, newest first. */
  provisioningEnded: ListedOrder[];
  /** Orders in PROVISIONING with no change for longer than `slowProvisioningMs`, the longest first. */
  provisioningSlow: ListedOrder[];
}

export function opsView(options: {
  filters: OpsFilters;
  orders: ListedOrder[];
  nextCursor: string | null;
  attention: Attention;
  now: number;
  expiryWarningMs: number;
  slowProvisioningMs: number;
  flash: Html;
  error?: Html;
  providerPortal?: ProviderPortal;
}): Html {
  const { filters, orders, nextCursor, attention, now, flash, error } = options;
  const nextLink = nextCursor
    ? `/ops?${new URLSearchParams({ ...definedOnly({ status: filters.status, environment: filters.environment, requester: filters.requester }), cursor: nextCursor }).toString()}`
    : undefined;
  return html`<h1>Ops</h1>
    ${flash}${error ?? ''}
    ${attentionSection(attention, now, options)}
    ${ordersSection(filters, orders, nextLink)}`;
}

/** Orders that need ops: uncertain buys, failures, approvals near their deadline, provisioning gone wrong. */
function attentionSection(
  attention: Attention,
  now: number,
  limits: { expiryWarningMs: number; slowProvisioningMs: number; providerPortal?: ProviderPortal | undefined },
): Html {
  return html`<section data-live="attention" aria-labelledby="attention-heading">
      <h2 id="attention-heading">Needs attention</h2>
      <h3>Uncertain buys <span class="muted">(${attention.uncertain.length})</span></h3>
      ${
        attention.uncertain.length
          ? html`<ul>${attention.uncertain.map(
              (order) =>
                html`<li data-testid="attention-uncertain" data-ticket="${order.ticketId}"><a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> (${order.environment}, ${order.requestedBy}): <span class="urgent">uncertain for ${describeDuration(now - Date.parse(order.updatedAt))}</span>. Check ${portalWords(limits.providerPortal)} and resolve it.</li>`,
            )}</ul>`
          : html`<p class="muted">None.</p>`
      }
      <h3>Failed <span class="muted">(${attention.failed.length} most recent)</span></h3>
      ${attention.failed.length ? html`<ul>${attention.failed.map(failedItem)}</ul>` : html`<p class="muted">None.</p>`}
      ${shortOfApproversAttention(attention.shortOfApprovers, now)}
      <h3>Approvals close to their deadline <span class="muted">(within ${describeDuration(limits.expiryWarningMs)}: ${attention.expiring.length})</span></h3>
      ${
        attention.expiring.length
          ? html`<ul>${attention.expiring.map(
              (item) =>
                html`<li data-testid="attention-expiring" data-ticket="${item.order.ticketId}"><a href="/orders/${encodeURIComponent(item.order.orderId)}">${item.order.ticketId}</a> (${item.order.quote ? money(item.order.quote.monthlyRate, item.order.quote.currency) : ''}, tier ${item.tier}, ${item.stillNeeded} still needed): <span class="urgent">${timeLeft(item.deadline, now)}</span></li>`,
            )}</ul>`
          : html`<p class="muted">None.</p>`
      }
      ${provisioningAttention(attention, now, limits.slowProvisioningMs)}
    </section>`;
}

/** A failed order: when, its last error, and its trace id once (the API's message carries it too). */
function failedItem(order: ListedOrder): Html {
  const error = order.lastError ? errorParts(order.lastError, order.quote ? [order.quote.currency] : []) : undefined;
  return html`<li data-testid="attention-failed" data-ticket="${order.ticketId}"><a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> failed ${when(order.updatedAt)}: <span data-testid="attention-failed-error">${error?.message ?? 'no error recorded'}</span>${error?.traceId ? html` <span class="muted">trace id <code data-testid="attention-failed-trace">${error.traceId}</code></span>` : ''}</li>`;
}

/** Every order, newest first, filtered by state, environment, requester or ticket, a page at a time. */
function ordersSection(filters: OpsFilters, orders: ListedOrder[], nextLink: string | undefined): Html {
  return html`<section aria-labelledby="orders-heading">
      <h2 id="orders-heading">Orders</h2>
      <form method="get" action="/ops" class="filters" role="search" aria-label="Filter orders">
        <div><label for="f-status">State</label><select id="f-status" name="status" data-testid="filter-status">
          <option value="">any</option>${ORDER_STATES.map((state) => html`<option value="${state}" ${filters.status === state ? 'selected' : ''}>${state}</option>`)}
        </select></div>
        <div><label for="f-environment">Environment</label><select id="f-environment" name="environment" data-testid="filter-environment">
          <option value="">any</option>${['staging', 'production'].map((env) => html`<option value="${env}" ${filters.environment === env ? 'selected' : ''}>${env}</option>`)}
        </select></div>
        <div><label for="f-requester">Requester</label><input type="text" id="f-requester" name="requester" value="${filters.requester ?? ''}" data-testid="filter-requester"></div>
        <div><label for="f-ticket">Ticket</label><input type="search" id="f-ticket" name="ticket" value="${filters.ticket ?? ''}" data-testid="filter-ticket"></div>
        <div><button type="submit" data-testid="filter-button">Filter</button></div>
        ${Object.values(filters).some(Boolean) ? html`<div><a href="/ops">Clear filters</a></div>` : ''}
      </form>
      <div data-live="orders">
        ${ordersTable(orders, describeFilters(filters), 'ops-row')}
        ${nextLink ? html`<p><a href="${nextLink}" data-testid="next-page">Older orders →</a></p>` : ''}
      </div>
    </section>`;
}

/** Bought MVEs that did not go live, or are slow to: ops check them with the provider. */
function provisioningAttention(attention: Attention, now: number, slowProvisioningMs: number): Html {
  const link = (order: ListedOrder) =>
    html`<a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> (${order.environment}, ${order.requestedBy})`;
  const product = (order: ListedOrder) =>
    order.product ? html`product <code>${order.product.technicalServiceUid}</code>` : 'its product';
  const ended = (order: ListedOrder) =>
    order.state === 'PROVISIONING_STALLED'
      ? html`<li data-testid="attention-provisioning-stalled" data-ticket="${order.ticketId}">${link(order)}: <span class="urgent">not live by its deadline</span>, ${product(order)} still ${order.product?.provisioningStatus ?? 'not LIVE'} (stalled ${when(order.updatedAt)}). Check it with the provider.</li>`
      : html`<li data-testid="attention-provisioning-failed" data-ticket="${order.ticketId}">${link(order)}: <span class="urgent">provisioning failed</span> ${when(order.updatedAt)}: ${order.lastError?.message ?? html`${product(order)} is ${order.product?.provisioningStatus ?? 'not live'}`}. Check it with the provider.</li>`;
  return html`<h3>Provisioning failed or stalled <span class="muted">(${attention.provisioningEnded.length} most recent)</span></h3>
    ${attention.provisioningEnded.length ? html`<ul>${attention.provisioningEnded.map(ended)}</ul>` : html`<p class="muted">None.</p>`}
    <h3>Slow provisioning <span class="muted">(no change for over ${describeDuration(slowProvisioningMs)}: ${attention.provisioningSlow.length})</span></h3>
    ${
      attention.provisioningSlow.length
        ? html`<ul>${attention.provisioningSlow.map(
            (order) =>
              html`<li data-testid="attention-provisioning-slow" data-ticket="${order.ticketId}">${link(order)}: ${product(order)} ${order.product?.provisioningStatus ?? ''}, <span class="urgent">no change for ${describeDuration(now - Date.parse(order.updatedAt))}</span>. The order follows it until its deadline.</li>`,
          )}</ul>`
        : html`<p class="muted">None.</p>`
    }`;
}

function describeFilters(filters: OpsFilters): string {
  const parts = [
    filters.ticket && `ticket ${filters.ticket}`,
    filters.status && `state ${filters.status}`,
    filters.environment && filters.environment,
    filters.requester && `requested by ${filters.requester}`,
  ].filter(Boolean);
  return `${parts.length ? `Orders: ${parts.join(', ')}` : 'All orders'}, newest first`;
}

function definedOnly(record: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => !!entry[1]));
}
