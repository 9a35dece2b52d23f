import { describeDuration } from '../../../domain/lifecycle/index.js';
import { html, stateBadge, STATE_WORDS, when, type Html } from '../html.js';
import { errorParts, standingError } from '../listed-orders.js';
import { isOps } from '../roles.js';
import { shortOfApproversNotice } from './approvers-notice.js';
import { decisionSection, figuresForOthers, whoDecides } from './decision.js';
import { quoteAndPolicy, whatIsOrdered } from './facts.js';
import { workflowHistorySection } from './history-section.js';
import { boughtUnder, opsSection } from './ops-actions.js';
import { currenciesOf, type OrderPageData, type OrderPageExtras } from './page-data.js';
import { provisioningSection, provisioningTellsError } from './provisioning-section.js';
import { buyAttemptsSection, timelineTable, votesTable } from './records.js';

/** The order page: its state, what to do about it, what is ordered and at what price, and all that happened. */
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
      ${shortOfApproversNotice(data)}
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
        ${figuresForOthers(data)}
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

/** The last error, unless the provisioning section's notice tells it. */
function lastErrorNotice(data: OrderPageData): Html | string {
  const error = standingError(data.order);
  if (!error || provisioningTellsError(data.order)) return '';
  const { message, traceId } = errorParts(error, currenciesOf(data));
  return html`<div class="notice error prose" data-testid="last-error"><strong>Last error</strong> (${when(error.at)}): ${message}${traceId ? html` <span class="muted">trace id <code data-testid="last-error-trace">${traceId}</code></span>` : ''}</div>`;
}

/** Why an order is shown from the records: no worker has started it yet, or Temporal no longer keeps its workflow. */
function recordsNote({ order, now }: OrderPageData): Html | string {
  if (order.source !== 'records') return '';
  if (order.waitingForWorkerSince)
    return html`<span class="muted" data-testid="waiting-for-worker"> · from the records: no worker has started it yet (waiting ${describeDuration(now - Date.parse(order.waitingForWorkerSince))}, since ${when(order.waitingForWorkerSince)}); it can be cancelled, not decided</span>`;
  return html`<span class="muted"> · from the records (the workflow has ended and Temporal no longer keeps it)</span>`;
}
