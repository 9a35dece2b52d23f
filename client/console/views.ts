import type { PendingApproval as InboxItem } from '../http/schemas.js';
import { CANCELLABLE_STATES, ORDER_STATES } from '../../domain/lifecycle/index.js';
import { mayCancel, mayResolveBuys } from '../http/access.js';
import { notDecidable, voterRefusal, type VoteRefusalCode } from '../../domain/approval/index.js';
import { productNameOf } from '../../domain/index.js';
import { describeDuration } from '../../domain/lifecycle/index.js';
import { approverRoles, hasRole, sameIdentity, type Principal } from '../http/auth/principal.js';
import type { ApiFailure } from './api.js';
import {
  commitment,
  html,
  money,
  moneyInText,
  months,
  STATE_WORDS,
  termTotal,
  timeLeft,
  when,
  type Html,
} from './html.js';
import { workflowHistorySection } from './history-view.js';
import { provisioningSection, provisioningTellsError } from './provisioning-view.js';
import { csrfField } from './layout.js';
import { orderedFacts, type OrderedFacts } from './ordered.js';
import { dataTable, type Column } from './tables.js';
import type { ConsoleSession, ConsoleUser } from './sessions.js';

// What each page shows, from what the API answered. No rule here decides anything: the forms are shown
// where the API's own access functions say the action is allowed, and the API decides again on POST.

export function principalOf(user: ConsoleUser): Principal {
  return {
    id: user.id,
    qualifiedId: user.qualifiedId,
    roles: user.roles,
    via: user.via === 'oidc' ? { kind: 'oidc', issuer: '' } : { kind: 'token', tokenId: '' },
  };
}

export function isOps(user: ConsoleUser): boolean {
  return hasRole(principalOf(user), 'ops', 'admin');
}

export function stateBadge(state: string, testId?: string): Html {
  return html`<span class="state state-${state}" ${testId ? html`data-testid="${testId}"` : ''}>${state}</span>`;
}

export function failureNotice(failure: ApiFailure, lead?: string): Html {
  return html`<div class="notice error" role="alert" data-testid="error" data-code="${failure.code}">
    ${lead ? html`<p><strong>${lead}</strong></p>` : ''}
    <p>${failure.message} <span class="muted">(${failure.code})</span></p>
    ${failure.details.length ? html`<ul>${failure.details.map((d) => html`<li><code>${d.path}</code>: ${d.message}</li>`)}</ul>` : ''}
  </div>`;
}

// ---- sign-in ----

export function signInView(options: {
  session: ConsoleSession;
  devUsers: Array<{ id: string; roles: string[] }>;
  oidc: boolean;
  next: string;
  message?: string;
}): Html {
  const { session, devUsers, oidc, next, message } = options;
  return html`<h1>Sign in</h1>
    ${message ? html`<div class="notice info" role="status">${message}</div>` : ''}
    ${
      oidc
        ? html`<form method="post" action="/sign-in/oidc">${csrfField(session)}<input type="hidden" name="next" value="${next}">
          <button type="submit" class="primary" data-testid="sign-in-oidc">Sign in with your organisation's account</button></form>`
        : ''
    }
    ${
      devUsers.length
        ? html`<h2>Development users</h2>
        <p class="muted">This server runs <code>mve-orders dev</code>: sign in as one of its seeded users, with that user's API token. A real deployment signs people in with OIDC.</p>
        <form method="post" action="/sign-in/dev">${csrfField(session)}<input type="hidden" name="next" value="${next}">
          <div class="signin-users">${devUsers.map(
            (user) =>
              html`<button type="submit" name="user" value="${user.id}" data-testid="sign-in-${user.id}">${user.id}<small>${user.roles.join(', ')}</small></button>`,
          )}</div>
        </form>`
        : ''
    }
    ${
      !oidc && devUsers.length === 0
        ? html`<div class="notice error" role="alert">No sign-in is configured on this server: set <code>MVE_OIDC_ISSUER</code> and the console's OIDC client settings (docs/console.md).</div>`
        : ''
    }`;
}

// ---- inbox ----

export type { InboxItem };

/** An inbox entry with what it buys, from the order's recorded request. */
export type InboxEntry = InboxItem & { ordered: OrderedFacts };

/** Times in a table column whose header says "(UTC)". */
const UTC_COLUMN = { zone: false } as const;

/** "MVE 8/32, Sydney, AU, 12 months". */
function orderedWords({ size, place, term }: OrderedFacts): string {
  return [size, place, term !== undefined ? months(term) : undefined].filter(Boolean).join(', ') || '—';
}

export function inboxView(items: InboxEntry[], now: number, flash: Html): Html {
  const columns: Array<Column<InboxEntry>> = [
    {
      label: 'Ticket',
      cell: (item) => html`<a href="/orders/${encodeURIComponent(item.orderId)}">${item.ticketId}</a>`,
    },
    { label: 'What', cell: (item) => html`<span data-testid="inbox-what">${orderedWords(item.ordered)}</span>` },
    { label: 'Requester', cell: (item) => item.requestedBy },
    { label: 'Environment', cell: (item) => item.environment },
    { label: 'Monthly price', num: true, cell: (item) => money(item.monthlyRate, item.currency) },
    {
      label: 'Over the term',
      num: true,
      cell: (item) =>
        item.monthlyRate !== null && item.currency && item.ordered.term !== undefined
          ? money(termTotal(item.monthlyRate, item.ordered.term), item.currency)
          : '—',
    },
    { label: 'Approvals', cell: (item) => `${item.tier}: ${item.stillNeeded} of ${item.approvalsNeeded} still needed` },
    {
      label: 'Time left',
      cell: (item) => timeLeft(item.deadline, now),
      className: (item) => (item.deadline && Date.parse(item.deadline) - now < 24 * 3600_000 ? 'urgent' : undefined),
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
              rowAttributes: (item) => html`data-testid="inbox-row" data-ticket="${item.ticketId}"`,
            })
      }
    </section>`;
}

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

export function myOrdersView(user: ConsoleUser, orders: ListedOrder[], flash: Html): Html {
  return html`<h1>Orders</h1>
    ${flash}
    <p class="muted">You hold no approver role (${user.roles.join(', ') || 'no roles'}), so nothing waits for your decision here. ${isOps(user) ? html`Ops: see the <a href="/ops">ops view</a>.` : ''}</p>
    <section data-live="my-orders" aria-labelledby="mine-heading">
      <h2 id="mine-heading">Orders you may see</h2>
      ${ordersTable(orders, 'Newest first', 'order-row')}
    </section>`;
}

// ---- order ----

export interface OrderPageData {
  order: any;
  /** `events` (the workflow's history, payloads decoded and redacted) is asked for only for ops and admins. */
  history: { timeline: any[]; votes: any[]; buyAttempts: any[]; events?: unknown[] } | null;
  request: Record<string, unknown> | null;
  user: ConsoleUser;
  session: ConsoleSession;
  now: number;
}

export interface OrderPageExtras {
  flash?: Html;
  error?: Html;
  /** What the user typed before a refused decision, so it is not lost. */
  comment?: string;
}

export function orderView(data: OrderPageData, extras: OrderPageExtras = {}): Html {
  const { order } = data;
  return html`<p><a href="/">← ${data.user.can.approve ? 'Approvals inbox' : 'Orders'}</a>${isOps(data.user) ? html` · <a href="/ops">Ops</a>` : ''}</p>
    <h1>Order ${order.ticketId}</h1>
    ${extras.flash ?? ''}
    ${extras.error ?? ''}
    <section data-live="summary" aria-labelledby="summary-heading">
      <h2 id="summary-heading" class="visually-plain">State</h2>
      <p>State: ${stateBadge(order.state, 'order-state')} <span class="muted">${STATE_WORDS[order.state] ?? ''}</span>
        ${recordsNote(data)}</p>
      ${whoDecides(data)}
      ${lastErrorNotice(data)}
    </section>
    ${decisionSection(data, extras)}
    ${opsSection(data)}
    ${provisioningSection(order, data.now, boughtUnder(data))}
    <div class="cols">
      <section data-live="what" aria-labelledby="what-heading">
        <h2 id="what-heading">What is ordered</h2>
        ${whatIsOrdered(data)}
      </section>
      <section data-live="quote" aria-labelledby="quote-heading">
        <h2 id="quote-heading">Quote and approval</h2>
        ${quoteAndPolicy(data)}
      </section>
    </div>
    <section data-live="votes" aria-labelledby="votes-heading">
      <h2 id="votes-heading">Votes</h2>
      ${votesTable(data)}
    </section>
    ${buyAttemptsSection(data)}
    <section data-live="timeline" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      ${timelineTable(data)}
    </section>
    ${isOps(data.user) ? workflowHistorySection(data.history?.events) : ''}`;
}

/**
 * The order's last error while it still tells something: not once the order is bought or live (an error met on the
 * way is over by then), nor one from before the buy while the bought product is followed.
 */
function standingError(order: {
  state: string;
  lastError?: ListedOrder['lastError'];
  provisioning?: { startedAt: string };
}): ListedOrder['lastError'] | undefined {
  const error = order.lastError;
  if (!error || order.state === 'BOUGHT' || order.state === 'LIVE') return undefined;
  const startedAt = order.provisioning?.startedAt;
  return startedAt && Date.parse(error.at) < Date.parse(startedAt) ? undefined : error;
}

/** The last error, unless the provisioning section's notice tells it. */
function lastErrorNotice(data: OrderPageData): Html | string {
  const error = standingError(data.order);
  if (!error || provisioningTellsError(data.order)) return '';
  return html`<div class="notice error prose" data-testid="last-error"><strong>Last error</strong> (${when(error.at)}): ${moneyInText(error.message, currenciesOf(data))}${error.traceId ? html` <span class="muted">trace id <code>${error.traceId}</code></span>` : ''}</div>`;
}

/** Why an order is shown from the records: no worker has started it yet, or Temporal no longer keeps its workflow. */
function recordsNote({ order, now }: OrderPageData): Html | string {
  if (order.source !== 'records') return '';
  if (order.waitingForWorkerSince)
    return html`<span class="muted" data-testid="waiting-for-worker"> · from the records: no worker has started it yet (waiting ${describeDuration(now - Date.parse(order.waitingForWorkerSince))}, since ${when(order.waitingForWorkerSince)}); it can be cancelled, not decided</span>`;
  return html`<span class="muted"> · from the records (the workflow has ended and Temporal no longer keeps it)</span>`;
}

/** The currencies the order's prices are in: what `moneyInText` writes as amounts in its reasons and notes. */
function currenciesOf({ order, history }: OrderPageData): string[] {
  return [
    order.quote?.currency,
    ...((order.quoteHistory ?? []) as Array<{ currency: string }>).map((quote) => quote.currency),
    ...((history?.votes ?? []) as Array<{ currency: string }>).map((vote) => vote.currency),
  ].filter((currency): currency is string => typeof currency === 'string');
}

function whatIsOrdered({ order, request }: OrderPageData): Html {
  const r = request ?? {};
  const ordered = orderedFacts(request);
  const location = order.location as
    { id: number; name: string; metro: string | null; country: string | null } | undefined;
  const image = order.image as { id: number; vendor: string; product: string; version: string } | undefined;
  const askedImage = (r['image'] ?? {}) as Record<string, unknown>;
  const vnics = Array.isArray(r['vnics']) ? (r['vnics'] as Array<Record<string, unknown>>) : undefined;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const locationWords = location
    ? `${location.name}${location.metro ? `, ${location.metro}` : ''}${location.country ? `, ${location.country}` : ''} (location ${location.id})`
    : (ordered.place ?? '—');
  const imageWords = image
    ? `${image.vendor} ${image.product} ${image.version} (image ${image.id})`
    : [text(askedImage['vendor']), text(askedImage['product']), text(askedImage['version'])]
        .filter(Boolean)
        .join(' ') || '—';
  const product = order.product as
    { technicalServiceUid: string; provisioningStatus: string; contractTermMonths?: number } | null | undefined;
  // Only these fields of the (already redacted) request are shown: vendorConfig and anything secret never are.
  return html`<dl class="facts" data-testid="order-facts">
    <dt>Ticket</dt><dd>${order.ticketId}</dd>
    <dt>Order id</dt><dd data-testid="order-id"><code>${order.orderId}</code></dd>
    <dt>Requested by</dt><dd data-testid="requested-by">${order.requestedBy}</dd>
    ${order.submittedBy && !sameIdentity(order.submittedBy, order.requestedBy) ? html`<dt>Submitted by</dt><dd>${order.submittedBy}</dd>` : ''}
    <dt>Environment</dt><dd>${order.environment}${order.environment === 'production' ? ' (charged)' : ' (not charged)'}</dd>
    ${text(r['productName']) ? html`<dt>Product name</dt><dd>${text(r['productName'])}</dd>` : ''}
    <dt>Location</dt><dd data-testid="order-location">${locationWords}</dd>
    <dt>Appliance</dt><dd data-testid="order-image">${imageWords}${order.kind ? html` <span class="muted">(kind ${order.kind})</span>` : ''}</dd>
    <dt>Size</dt><dd data-testid="order-size">${ordered.size ?? '—'}</dd>
    <dt>Term</dt><dd data-testid="order-term">${ordered.term !== undefined ? months(ordered.term) : '—'}</dd>
    ${text(r['diversityZone']) ? html`<dt>Diversity zone</dt><dd>${text(r['diversityZone'])}</dd>` : ''}
    <dt>vNICs</dt><dd data-testid="order-vnics">${
      vnics
        ? html`${vnics.length}: ${vnics.map((vnic, i) => `${text(vnic['description']) ?? `vNIC ${i + 1}`}${text(vnic['vlan']) ? ` (VLAN ${text(vnic['vlan'])})` : ''}`).join(', ')}`
        : 'the provider default'
    }</dd>
    ${product ? html`<dt>Product</dt><dd data-testid="product-uid"><code>${product.technicalServiceUid}</code> (${product.provisioningStatus})</dd>` : ''}
  </dl>`;
}

function quoteAndPolicy(data: OrderPageData): Html {
  const { order, now, history, request } = data;
  const quote = order.quote as { monthlyRate: number; currency: string; quotedAt?: string } | null;
  const term = orderedFacts(request).term;
  const approval = order.approval as
    | {
        tier: { name: string; roles: string[]; approvals: number };
        stillNeeded: number;
        deadline: string;
        remindersSent: number;
        votes: unknown[];
      }
    | undefined;
  const timeline = (order.timeline ?? []) as Array<{ state: string; actor: string; reason: string }>;
  // Why it needs (or needed) approval: the latest round's reason; else why the policy approved it by itself.
  const byPolicy = [...timeline].reverse().filter((entry) => entry.actor === 'policy');
  const why =
    byPolicy.find((entry) => entry.state === 'AWAITING_APPROVAL') ??
    byPolicy.find((entry) => entry.state === 'APPROVED');
  const rounds = new Set((history?.votes ?? []).map((vote: { quoteNumber: number }) => vote.quoteNumber)).size;
  return html`<dl class="facts">
    <dt>Monthly price</dt><dd data-testid="quote" data-price="${quote ? `${quote.monthlyRate} ${quote.currency}` : ''}">${quote ? html`<strong>${money(quote.monthlyRate, quote.currency)}</strong> a month` : 'no quote yet'}</dd>
    ${quote && term !== undefined ? html`<dt>Over the term</dt><dd data-testid="commitment">${commitment(quote.monthlyRate, quote.currency, term)}</dd>` : ''}
    ${quote?.quotedAt ? html`<dt>Quoted</dt><dd>${when(quote.quotedAt)}</dd>` : ''}
    <dt>Policy</dt><dd data-testid="policy">${order.policy ? html`version <strong>${order.policy.version}</strong> <span class="muted">(<code title="${order.policy.hash}">${String(order.policy.hash).slice(0, 12)}</code>)</span>` : 'not yet read'}</dd>
    ${approval ? html`<dt>Tier</dt><dd data-testid="tier"><strong>${approval.tier.name}</strong>: ${approval.tier.approvals} approval${approval.tier.approvals === 1 ? '' : 's'} from ${approval.tier.roles.join(' or ')}</dd>` : ''}
    ${
      approval && order.state === 'AWAITING_APPROVAL'
        ? html`<dt>Still needed</dt><dd data-testid="still-needed">${approval.stillNeeded}</dd>
        <dt>Deadline</dt><dd data-testid="deadline">${when(approval.deadline)} <span class="${Date.parse(approval.deadline) - now < 24 * 3600_000 ? 'urgent' : 'muted'}">(${timeLeft(approval.deadline, now)})</span></dd>`
        : ''
    }
    ${approval && order.state === 'EXPIRED' ? html`<dt>Deadline</dt><dd data-testid="deadline">${when(approval.deadline)} <span class="muted">(passed)</span></dd>` : ''}
    ${why ? html`<dt>Why</dt><dd data-testid="why">${moneyInText(why.reason, currenciesOf(data))}</dd>` : ''}
    ${quoteHistoryRow(order)}
    ${rounds > 1 ? html`<dt>Rounds</dt><dd>${rounds} approval rounds (the price changed and was asked again)</dd>` : ''}
  </dl>`;
}

/**
 * Every quote the order was given, oldest first. Every quote after the first is the check the workflow makes
 * before it buys (so the price charged is the price approved): each says so, and whether the price changed.
 */
function quoteHistoryRow(order: any): Html | string {
  const quotes = (order.quoteHistory ?? []) as Array<{ monthlyRate: number; currency: string; quotedAt: string }>;
  if (quotes.length < 2) return '';
  const items = quotes.map((quote, index) => {
    const previous = quotes[index - 1];
    const change = !previous
      ? ''
      : previous.currency !== quote.currency
        ? html` <span class="muted" data-testid="quote-change">(re-checked before buying: now in ${quote.currency})</span>`
        : previous.monthlyRate === quote.monthlyRate
          ? html` <span class="muted" data-testid="quote-change">(re-checked before buying: unchanged)</span>`
          : html` <span class="${quote.monthlyRate > previous.monthlyRate ? 'urgent' : 'muted'}" data-testid="quote-change">(re-checked before buying: ${quote.monthlyRate > previous.monthlyRate ? 'rose' : 'fell'} ${((Math.abs(quote.monthlyRate - previous.monthlyRate) / previous.monthlyRate) * 100).toFixed(1)}%)</span>`;
    return html`<li>${money(quote.monthlyRate, quote.currency)} <span class="muted">${when(quote.quotedAt)}</span>${change}</li>`;
  });
  return html`<dt>Quote history</dt><dd><ol data-testid="quote-history">${items}</ol></dd>`;
}

/** The console's name for each reason a person has nothing to decide (`data-reason`), and what it says to them. */
const CANNOT_DECIDE: Partial<Record<VoteRefusalCode, { reason: string; text: string }>> = {
  NOT_AWAITING_APPROVAL: { reason: 'not-awaiting-approval', text: '' },
  REQUESTER_CANNOT_VOTE: { reason: 'own-order', text: 'You requested this order, so you cannot vote on it.' },
  APPROVER_LACKS_ROLE: { reason: 'wrong-role', text: 'You hold none of those roles.' },
  ALREADY_VOTED: { reason: 'already-voted', text: 'You have voted on this price.' },
};

/**
 * Why this user may not decide, by the workflow's own vote rules (domain/approval) asked of the signed-in person, or
 * undefined when they may (the API and the workflow still decide when they vote).
 */
export function whyCannotDecide(order: any, user: ConsoleUser): { reason: string; text: string } | undefined {
  const principal = principalOf(user);
  const voter = { id: principal.id, roles: approverRoles(principal), active: true };
  const tier = order.approval?.tier;
  const refusal =
    notDecidable(order.state, order.source !== 'records' && tier !== undefined) ??
    voterRefusal({ requesterId: order.requestedBy, tier }, principal.id, voter, order.approval?.votes ?? []);
  if (!refusal) return undefined;
  // Not an approver at all: nothing to say to them about their roles.
  if (refusal.code === 'APPROVER_LACKS_ROLE' && voter.roles.length === 0)
    return { reason: 'no-approver-role', text: '' };
  return CANNOT_DECIDE[refusal.code] ?? { reason: refusal.code.toLowerCase(), text: `${refusal.reason}.` };
}

/**
 * While an order awaits approval, one line for whoever cannot vote on it: who decides, how many approvals are
 * still needed, and (when it is not plain) why not them. Nothing once the order no longer awaits approval.
 */
function whoDecides({ order, user }: OrderPageData): Html | string {
  const cannot = whyCannotDecide(order, user);
  const approval = order.approval as { tier: { name: string; roles: string[] }; stillNeeded: number } | undefined;
  if (!cannot || cannot.reason === 'not-awaiting-approval' || !approval) return '';
  const needed = `${approval.stillNeeded} more approval${approval.stillNeeded === 1 ? '' : 's'} needed`;
  return html`<p data-testid="cannot-decide" data-reason="${cannot.reason}">Decided by ${approval.tier.roles.join(' or ')} (tier ${approval.tier.name}): ${needed}.${cannot.text ? ` ${cannot.text}` : ''}</p>`;
}

/** The decision form, for someone who may vote now; an empty live region otherwise (so it empties live too). */
function decisionSection(data: OrderPageData, extras: OrderPageExtras): Html {
  const { order, user, session, request } = data;
  const quote = order.quote as { monthlyRate: number; currency: string } | null;
  if (whyCannotDecide(order, user) || !quote) return html`<div data-live="decision"></div>`;
  const term = orderedFacts(request).term;
  return html`<section data-live="decision" aria-labelledby="decision-heading"><h2 id="decision-heading">Your decision</h2>
    <form method="post" action="/orders/${encodeURIComponent(order.orderId)}/decide" class="stack" data-testid="decision-form">
      ${csrfField(session)}
      <input type="hidden" name="monthlyRate" value="${String(quote.monthlyRate)}">
      <input type="hidden" name="currency" value="${quote.currency}">
      <p>You are deciding on <strong>${money(quote.monthlyRate, quote.currency)} a month</strong>${term !== undefined ? html` for ${months(term)}: <strong data-testid="decision-commitment">${money(termTotal(quote.monthlyRate, term), quote.currency)}</strong> over the term` : ''}${order.approval ? html` (tier <strong>${order.approval.tier.name}</strong>, ${order.approval.stillNeeded} approval${order.approval.stillNeeded === 1 ? '' : 's'} still needed)` : ''}. If the price changes before you send this, your vote is refused and you are shown the new price.</p>
      <label for="decision-comment">Comment <span class="muted">(optional to approve; required to reject: say why)</span></label>
      <textarea id="decision-comment" name="comment" maxlength="2000" data-testid="decision-comment">${extras.comment ?? ''}</textarea>
      <p class="notice info" data-changed-note hidden>This order changed while you were typing. When you send, your decision is checked against the current price.</p>
      <div class="buttons">
        <button type="submit" name="decision" value="approve" class="primary" data-testid="approve-button">Approve ${money(quote.monthlyRate, quote.currency)} a month</button>
        <button type="submit" name="decision" value="reject" class="danger" data-testid="reject-button">Reject</button>
      </div>
    </form></section>`;
}

/**
 * What ops look for in the provider's portal after an uncertain buy, or a provisioning that did not end live: the
 * product's name (the request's, with the order id: `productNameOf`), its size and term, and when the last attempt
 * was sent.
 */
function boughtUnder(data: OrderPageData): Html {
  const { order, request } = data;
  const productName = typeof request?.['productName'] === 'string' ? request['productName'] : undefined;
  const attempt = data.history?.buyAttempts.at(-1) as { sentAt?: string | null } | undefined;
  const { size, term } = orderedFacts(request);
  const facts = [
    size,
    term !== undefined ? months(term) : undefined,
    attempt?.sentAt ? html`sent ${when(attempt.sentAt)}` : undefined,
  ].filter((fact) => fact !== undefined);
  const name = productName
    ? html`the product named <code data-testid="bought-under-name">${productNameOf({ productName }, order.orderId)}</code>`
    : html`a product named after this order (<code>${order.orderId}</code>)`;
  return html`${name}${facts.length > 0 ? html` (${facts.map((fact, i) => html`${i > 0 ? ', ' : ''}${fact}`)})` : ''}`;
}

function opsSection(data: OrderPageData): Html {
  const { order, user, session, now } = data;
  const principal = principalOf(user);
  const ticket = encodeURIComponent(order.orderId);
  const canResolve = order.state === 'BUY_UNCERTAIN' && mayResolveBuys(principal);
  // An order no worker has started yet is cancelled from the records (the API ends it there and then).
  const live = order.source === 'workflow' || order.waitingForWorkerSince !== undefined;
  const canCancel = live && CANCELLABLE_STATES.has(order.state) && mayCancel(principal, order);
  if (!canResolve && !canCancel) return html`<div data-live="ops-actions"></div>`;
  const timeline = (order.timeline ?? []) as Array<{ state: string; at: string }>;
  const since = [...timeline].reverse().find((entry) => entry.state === 'BUY_UNCERTAIN')?.at;
  return html`<section data-live="ops-actions" aria-labelledby="ops-heading">
    <h2 id="ops-heading">${canResolve ? 'Resolve the uncertain buy' : 'Cancel'}</h2>
    ${
      canResolve
        ? html`<p class="notice error" data-testid="uncertain-note">The buy request was sent but its outcome was never seen${since ? html` (uncertain for ${describeDuration(now - Date.parse(since))}, since ${when(since)})` : ''}. Check the provider's portal for ${boughtUnder(data)}, then say what you found. Buying again without checking could buy it twice.</p>
        <div class="cols">
          <form method="post" action="/orders/${ticket}/resolve-buy" class="stack" data-testid="resolve-created-form">
            ${csrfField(session)}<input type="hidden" name="outcome" value="created">
            <h3>It was created</h3>
            <label for="resolve-uid">Product UID (technicalServiceUid)</label>
            <input type="text" id="resolve-uid" name="technicalServiceUid" required autocomplete="off" spellcheck="false" placeholder="e.g. 0b6a3f0e-8b1f-4a44-9d55-…" data-testid="resolve-uid">
            <label for="resolve-created-note">Note <span class="muted">(optional)</span></label>
            <textarea id="resolve-created-note" name="note" maxlength="2000" data-testid="resolve-created-note"></textarea>
            <div><button type="submit" class="primary" data-testid="resolve-created-button">Record as created</button></div>
          </form>
          <form method="post" action="/orders/${ticket}/resolve-buy" class="stack" data-testid="resolve-not-created-form">
            ${csrfField(session)}<input type="hidden" name="outcome" value="not-created">
            <h3>It was not created</h3>
            <label for="resolve-note">How you know it was not created</label>
            <textarea id="resolve-note" name="note" required maxlength="2000" data-testid="resolve-note"></textarea>
            <div><button type="submit" class="danger" data-testid="resolve-not-created-button">Record as not created (the order buys again)</button></div>
          </form>
        </div>`
        : ''
    }
    ${
      canCancel
        ? html`<form method="post" action="/orders/${ticket}/cancel" class="stack" data-testid="cancel-form">
          ${csrfField(session)}
          <label for="cancel-reason">Reason for cancelling</label>
          <textarea id="cancel-reason" name="reason" required maxlength="2000" data-testid="cancel-reason"></textarea>
          <p class="notice info" data-changed-note hidden>This order changed while you were typing.</p>
          <div><button type="submit" class="danger" data-testid="cancel-button">Cancel this order</button></div>
        </form>`
        : ''
    }
  </section>`;
}

function votesTable({ order, history }: OrderPageData): Html {
  const recorded = (history?.votes ?? []) as Array<{
    quoteNumber: number;
    approverId: string;
    decision: string;
    monthlyRate: string;
    currency: string;
    reason: string | null;
    at: string;
  }>;
  const live = (order.approval?.votes ?? []) as Array<{
    approverId: string;
    decision: string;
    monthlyRate: number;
    currency: string;
    comment?: string;
  }>;
  const rows = recorded.length
    ? recorded.map((vote) => ({
        who: vote.approverId,
        decision: vote.decision,
        price: money(vote.monthlyRate, vote.currency),
        comment: vote.reason ?? '',
        at: vote.at as string | undefined,
        round: vote.quoteNumber as number | undefined,
      }))
    : live.map((vote) => ({
        who: vote.approverId,
        decision: vote.decision,
        price: money(vote.monthlyRate, vote.currency),
        comment: vote.comment ?? '',
        at: undefined,
        round: undefined,
      }));
  // Votes recorded a moment ago may not be in the records yet: show the live round's too.
  for (const vote of live) {
    if (
      !rows.some(
        (row) => sameIdentity(row.who, vote.approverId) && row.price === money(vote.monthlyRate, vote.currency),
      )
    ) {
      rows.push({
        who: vote.approverId,
        decision: vote.decision,
        price: money(vote.monthlyRate, vote.currency),
        comment: vote.comment ?? '',
        at: undefined,
        round: undefined,
      });
    }
  }
  if (rows.length === 0) return html`<p data-testid="no-votes">No votes yet.</p>`;
  return dataTable({
    testId: 'votes',
    rowHeader: true,
    rows,
    rowAttributes: () => html`data-testid="vote-row"`,
    columns: [
      { label: 'Approver', cell: (row) => row.who },
      { label: 'Decision', cell: (row) => (row.decision === 'approve' ? 'approved' : 'rejected') },
      { label: 'On the price', num: true, cell: (row) => row.price },
      { label: 'Comment', className: () => 'prose', cell: (row) => row.comment },
      { label: 'When (UTC)', cell: (row) => when(row.at, UTC_COLUMN) },
    ],
  });
}

function buyAttemptsSection({ history }: OrderPageData): Html {
  const attempts = (history?.buyAttempts ?? []) as Array<{
    attempt: number;
    intentAt: string;
    outcome: string | null;
    technicalServiceUid: string | null;
    errorMessage: string | null;
    resolvedBy: string | null;
  }>;
  return html`<section data-live="buys" aria-labelledby="buys-heading">
    ${
      attempts.length
        ? html`<h2 id="buys-heading">Buy attempts</h2>${dataTable({
            rows: attempts,
            columns: [
              { label: '#', cell: (a) => String(a.attempt) },
              { label: 'Sent (UTC)', cell: (a) => when(a.intentAt, UTC_COLUMN) },
              { label: 'Outcome', cell: (a) => a.outcome ?? 'unknown' },
              {
                label: 'Product UID',
                className: () => 'prose',
                cell: (a) => (a.technicalServiceUid ? html`<code>${a.technicalServiceUid}</code>` : ''),
              },
              { label: 'Error', className: () => 'prose', cell: (a) => a.errorMessage ?? '' },
              { label: 'Resolved by', cell: (a) => a.resolvedBy ?? '' },
            ],
          })}`
        : ''
    }
  </section>`;
}

function timelineTable(data: OrderPageData): Html {
  const { order, history } = data;
  const entries: Array<{ at: string; kind: string; state?: string; actor: string; text: string }> = history?.timeline
    ?.length
    ? history.timeline
    : ((order.timeline ?? []) as Array<{ at: string; state: string; actor: string; reason: string }>).map((entry) => ({
        at: entry.at,
        kind: 'state',
        state: entry.state,
        actor: entry.actor,
        text: entry.reason,
      }));
  // The live timeline can be ahead of the records by a moment: add its newer state changes.
  const live = (order.timeline ?? []) as Array<{
    seq: number;
    at: string;
    state: string;
    actor: string;
    reason: string;
  }>;
  const recordedStates = entries.filter((e) => e.kind === 'state').length;
  const extra = history?.timeline?.length
    ? live
        .slice(recordedStates)
        .map((entry) => ({ at: entry.at, kind: 'state', state: entry.state, actor: entry.actor, text: entry.reason }))
    : [];
  const all = [...entries, ...extra];
  if (all.length === 0) return html`<p>Nothing recorded yet.</p>`;
  const currencies = currenciesOf(data);
  return dataTable({
    testId: 'timeline',
    rows: all,
    columns: [
      { label: 'When (UTC)', cell: (entry) => when(entry.at, UTC_COLUMN) },
      { label: 'What', cell: (entry) => (entry.kind === 'state' ? stateBadge(entry.state ?? '') : 'note') },
      { label: 'Who', cell: (entry) => entry.actor },
      { label: 'Detail', className: () => 'prose', cell: (entry) => moneyInText(entry.text, currencies) },
    ],
  });
}

// ---- ops ----

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
}): Html {
  const { filters, orders, nextCursor, attention, now, flash, error } = options;
  const nextLink = nextCursor
    ? `/ops?${new URLSearchParams({ ...definedOnly({ status: filters.status, environment: filters.environment, requester: filters.requester }), cursor: nextCursor }).toString()}`
    : undefined;
  return html`<h1>Ops</h1>
    ${flash}${error ?? ''}
    <section data-live="attention" aria-labelledby="attention-heading">
      <h2 id="attention-heading">Needs attention</h2>
      <h3>Uncertain buys <span class="muted">(${attention.uncertain.length})</span></h3>
      ${
        attention.uncertain.length
          ? html`<ul>${attention.uncertain.map(
              (order) =>
                html`<li data-testid="attention-uncertain" data-ticket="${order.ticketId}"><a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> (${order.environment}, ${order.requestedBy}): <span class="urgent">uncertain for ${describeDuration(now - Date.parse(order.updatedAt))}</span>. Check the portal and resolve it.</li>`,
            )}</ul>`
          : html`<p class="muted">None.</p>`
      }
      <h3>Failed <span class="muted">(${attention.failed.length} most recent)</span></h3>
      ${
        attention.failed.length
          ? html`<ul>${attention.failed.map(
              (order) =>
                html`<li data-testid="attention-failed" data-ticket="${order.ticketId}"><a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> failed ${when(order.updatedAt)}: <span data-testid="attention-failed-error">${order.lastError ? moneyInText(order.lastError.message, order.quote ? [order.quote.currency] : []) : 'no error recorded'}</span>${order.lastError?.traceId ? html` <span class="muted">trace id <code data-testid="attention-failed-trace">${order.lastError.traceId}</code></span>` : ''}</li>`,
            )}</ul>`
          : html`<p class="muted">None.</p>`
      }
      <h3>Approvals close to their deadline <span class="muted">(within ${describeDuration(options.expiryWarningMs)}: ${attention.expiring.length})</span></h3>
      ${
        attention.expiring.length
          ? html`<ul>${attention.expiring.map(
              (item) =>
                html`<li data-testid="attention-expiring" data-ticket="${item.order.ticketId}"><a href="/orders/${encodeURIComponent(item.order.orderId)}">${item.order.ticketId}</a> (${item.order.quote ? money(item.order.quote.monthlyRate, item.order.quote.currency) : ''}, tier ${item.tier}, ${item.stillNeeded} still needed): <span class="urgent">${timeLeft(item.deadline, now)}</span></li>`,
            )}</ul>`
          : html`<p class="muted">None.</p>`
      }
      ${provisioningAttention(attention, now, options.slowProvisioningMs)}
    </section>
    <section aria-labelledby="orders-heading">
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
      : html`<li data-testid="attention-provisioning-failed" data-ticket="${order.ticketId}">${link(order)}: <span class="urgent">provisioning failed</span> ${when(order.updatedAt)}: ${order.lastError?.message ?? `${product(order)} is ${order.product?.provisioningStatus ?? 'not live'}`}. Check it with the provider.</li>`;
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

export function messagePage(title: string, text: string | Html, testId = 'message'): Html {
  return html`<h1>${title}</h1><div class="notice info" role="status" data-testid="${testId}">${text}</div><p><a href="/">Back to the console</a></p>`;
}
