import { sameIdentity, type ApiOrder } from '../../orders/index.js';
import { commitment, html, money, moneyInText, months, timeLeft, when, type Html } from '../html.js';
import { currenciesOf, type OrderPageData } from './page-data.js';

/** What the order asked for, with the location and image it chose. */
export function whatIsOrdered({ order }: OrderPageData): Html {
  const ordered = order.ordered ?? {};
  const { location, image, product } = order;
  const locationWords = location
    ? `${location.name}${location.metro ? `, ${location.metro}` : ''}${location.country ? `, ${location.country}` : ''} (location ${location.id})`
    : (ordered.place ?? '—');
  const imageWords = image
    ? `${image.vendor} ${image.product} ${image.version} (image ${image.id})`
    : (ordered.image ?? '—');
  return html`<dl class="facts" data-testid="order-facts">
    <dt>Ticket</dt><dd>${order.ticketId}</dd>
    <dt>Order id</dt><dd data-testid="order-id"><code>${order.orderId}</code></dd>
    <dt>Requested by</dt><dd data-testid="requested-by">${order.requestedBy}</dd>
    ${order.submittedBy && !sameIdentity(order.submittedBy, order.requestedBy) ? html`<dt>Submitted by</dt><dd>${order.submittedBy}</dd>` : ''}
    <dt>Environment</dt><dd>${order.environment}${order.environment === 'production' ? ' (charged)' : ' (not charged)'}</dd>
    ${ordered.productName ? html`<dt>Product name</dt><dd>${ordered.productName}</dd>` : ''}
    <dt>Location</dt><dd data-testid="order-location">${locationWords}</dd>
    <dt>Appliance</dt><dd data-testid="order-image">${imageWords}${order.kind ? html` <span class="muted">(kind ${order.kind})</span>` : ''}</dd>
    <dt>Size</dt><dd data-testid="order-size">${ordered.size ?? '—'}</dd>
    <dt>Term</dt><dd data-testid="order-term">${ordered.term !== undefined ? months(ordered.term) : '—'}</dd>
    ${ordered.diversityZone ? html`<dt>Diversity zone</dt><dd>${ordered.diversityZone}</dd>` : ''}
    <dt>vNICs</dt><dd data-testid="order-vnics">${ordered.vnics ? `${ordered.vnics.length}: ${ordered.vnics.join(', ')}` : 'the provider default'}</dd>
    ${product ? html`<dt>Product</dt><dd data-testid="product-uid"><code>${product.technicalServiceUid}</code> (${product.provisioningStatus})</dd>` : ''}
  </dl>`;
}

/** The price, what it commits to over the term, the policy and tier that decide, and why. */
export function quoteAndPolicy(data: OrderPageData): Html {
  const { order, now, history } = data;
  const { quote, approval } = order;
  const term = order.ordered?.term;
  const timeline = order.timeline ?? [];
  // Why it needs (or needed) approval: the latest round's reason; else why the policy approved it by itself.
  const byPolicy = [...timeline].reverse().filter((entry) => entry.actor === 'policy');
  const why =
    byPolicy.find((entry) => entry.state === 'AWAITING_APPROVAL') ??
    byPolicy.find((entry) => entry.state === 'APPROVED');
  const rounds = new Set((history?.votes ?? []).map((vote) => vote.quoteNumber)).size;
  return html`<dl class="facts">
    <dt>Monthly price</dt><dd data-testid="quote" data-price="${quote ? `${quote.monthlyRate} ${quote.currency}` : ''}">${quote ? html`<strong>${money(quote.monthlyRate, quote.currency)}</strong> a month` : 'no quote yet'}</dd>
    ${quote && term !== undefined ? html`<dt>Over the term</dt><dd data-testid="commitment">${commitment(quote.monthlyRate, quote.currency, term)}</dd>` : ''}
    ${quote?.quotedAt ? html`<dt>Quoted</dt><dd>${when(quote.quotedAt)}</dd>` : ''}
    ${order.team ? html`<dt>Team</dt><dd data-testid="order-team">${order.team}</dd>` : ''}
    <dt>Policy</dt><dd data-testid="policy">${order.policy ? html`version <strong>${order.policy.version}</strong> <span class="muted">(<code title="${order.policy.hash}">${order.policy.hash.slice(0, 12)}</code>)</span>` : 'not yet read'}</dd>
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
function quoteHistoryRow(order: ApiOrder): Html | string {
  const quotes = order.quoteHistory ?? [];
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
