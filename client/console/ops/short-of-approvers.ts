/** The ops view's list of orders no one can approve (fewer approvers could vote than their tier needs). */
import type { ApprovalTier } from '../../../domain/approval/index.js';
import { html, money, timeLeft, type Html } from '../html.js';
import type { ListedOrder } from '../listed-orders.js';

/** An order awaiting approval that the directory, as the order last read it, gives too few approvers. */
export interface ShortOfApprovers {
  order: ListedOrder;
  tier: ApprovalTier;
  deadline: string;
  eligible: number;
  needed: number;
  nextDirectoryReadAt?: string;
}

/** Each order with its tier, who is missing and the way on: give someone the role, or cancel it. */
export function shortOfApproversAttention(items: readonly ShortOfApprovers[], now: number): Html {
  const item = ({ order, tier, deadline, eligible, needed }: ShortOfApprovers) =>
    html`<li data-testid="attention-short-of-approvers" data-ticket="${order.ticketId}"><a href="/orders/${encodeURIComponent(order.orderId)}">${order.ticketId}</a> (${order.environment}, requested by ${order.requestedBy}${order.quote ? html`, ${money(order.quote.monthlyRate, order.quote.currency)}` : ''}): tier ${tier.name} needs ${needed} from ${tier.roles.join(' or ')}, <span class="urgent">${eligible === 0 ? 'no one but the requester holds it' : `only ${eligible} other than the requester ${eligible === 1 ? 'holds' : 'hold'} it`}</span> (${timeLeft(deadline, now)}). Give someone the role, or cancel the order.</li>`;
  return html`<h3>No one can approve <span class="muted">(${items.length})</span></h3>
    ${items.length ? html`<ul>${items.map(item)}</ul>` : html`<p class="muted">None.</p>`}`;
}
