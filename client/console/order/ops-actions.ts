import { productNameOf } from '../../../domain/index.js';
import { CANCELLABLE_STATES, describeDuration } from '../../../domain/lifecycle/index.js';
import { mayCancel, mayResolveBuys } from '../../orders/index.js';
import { html, months, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import { portalWords } from '../portal.js';
import { principalOf } from '../roles.js';
import type { OrderPageData } from './page-data.js';

/**
 * What ops look for in the provider's portal after an uncertain buy, or a provisioning that did not end live: the
 * product's name (the request's, with the order id: `productNameOf`), its size and term, and when the last attempt
 * was sent.
 */
export function boughtUnder(data: OrderPageData): Html {
  const { order } = data;
  const attempt = data.history?.buyAttempts.at(-1);
  const { productName, size, term } = order.ordered ?? {};
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

/** Resolving an uncertain buy and cancelling, for whoever the API's access rules let do either. */
export function opsSection(data: OrderPageData): Html {
  const { order, user, session, now } = data;
  const principal = principalOf(user);
  const ticket = encodeURIComponent(order.orderId);
  const canResolve = order.state === 'BUY_UNCERTAIN' && mayResolveBuys(principal);
  // An order no worker has started yet is cancelled from the records (the API ends it there and then).
  const live = order.source === 'workflow' || order.waitingForWorkerSince !== undefined;
  const canCancel = live && CANCELLABLE_STATES.has(order.state) && mayCancel(principal, order);
  if (!canResolve && !canCancel) return html`<div data-live="ops-actions"></div>`;
  const timeline = order.timeline ?? [];
  const since = [...timeline].reverse().find((entry) => entry.state === 'BUY_UNCERTAIN')?.at;
  // The attempt shown is the one settled: sent again later (a reload, a retry), the answer cannot settle another.
  const attemptField = html`<input type="hidden" name="attempt" value="${String(order.buyAttempts ?? '')}">`;
  return html`<section data-live="ops-actions" aria-labelledby="ops-heading">
    <h2 id="ops-heading">${canResolve ? `Resolve the uncertain buy (attempt ${order.buyAttempts ?? '?'})` : 'Cancel'}</h2>
    ${
      canResolve
        ? html`<p class="notice error" data-testid="uncertain-note">The buy request was sent but its outcome was never seen${since ? html` (uncertain for ${describeDuration(now - Date.parse(since))}, since ${when(since)})` : ''}. Check ${portalWords(data.providerPortal)} for ${boughtUnder(data)}, then say what you found. Buying again without checking could buy it twice.</p>
        <div class="cols">
          <form method="post" action="/orders/${ticket}/resolve-buy" class="stack" data-testid="resolve-created-form">
            ${csrfField(session)}<input type="hidden" name="outcome" value="created">${attemptField}
            <h3>It was created</h3>
            <label for="resolve-uid">Product UID (technicalServiceUid)</label>
            <input type="text" id="resolve-uid" name="technicalServiceUid" required autocomplete="off" spellcheck="false" placeholder="e.g. 0b6a3f0e-8b1f-4a44-9d55-…" data-testid="resolve-uid">
            <label for="resolve-created-note">Note <span class="muted">(optional)</span></label>
            <textarea id="resolve-created-note" name="note" maxlength="2000" data-testid="resolve-created-note"></textarea>
            <div><button type="submit" class="primary" data-testid="resolve-created-button">Record as created</button></div>
          </form>
          <form method="post" action="/orders/${ticket}/resolve-buy" class="stack" data-testid="resolve-not-created-form">
            ${csrfField(session)}<input type="hidden" name="outcome" value="not-created">${attemptField}
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
