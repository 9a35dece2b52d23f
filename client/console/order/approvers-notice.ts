/** The warning on an order no one can approve, with what to do about it. */
import { html, timeLeft, when, type Html } from '../html.js';
import type { OrderPageData } from './page-data.js';

/**
 * While the order awaits approval and fewer approvers could vote on it than its tier needs (the API's
 * `approval.shortOfApprovers`, from the directory as the order last read it): who is missing, and the two ways on —
 * give someone the role (the order reads the directory again, and says when), or cancel it. Nothing otherwise.
 */
export function shortOfApproversNotice({ order, now }: OrderPageData): Html | string {
  const approval = order.approval;
  const short = approval?.shortOfApprovers;
  if (!approval || !short || order.state !== 'AWAITING_APPROVAL') return '';
  const { tier } = approval;
  const roles = tier.roles.join(' or ');
  const more = short.needed - short.eligible;
  const who =
    short.eligible === 0
      ? html`no one but the requester (${order.requestedBy}) holds ${roles}`
      : html`only ${short.eligible} approver${short.eligible === 1 ? '' : 's'} other than the requester (${order.requestedBy}) ${short.eligible === 1 ? 'holds' : 'hold'} ${roles}`;
  const again = short.nextDirectoryReadAt
    ? html`the order reads the directory again at ${when(short.nextDirectoryReadAt)} and counts them from then`
    : html`this order reads the directory again only at its next reminder`;
  return html`<div class="notice error prose" data-testid="short-of-approvers" role="alert"><strong>No one can approve this order.</strong> The "${tier.name}" tier needs ${tier.approvals} approval${tier.approvals === 1 ? '' : 's'}, and ${who}. Next: give ${more === 1 ? 'one more person' : `${more} more people`} one of these roles in the approver directory (<code>mve-orders approvers update &lt;id&gt; --roles &lt;their roles&gt;,${tier.roles[0]}</code>, or <code>approvers add</code>): ${again}. Or cancel the order. Otherwise it expires at its deadline (${timeLeft(approval.deadline, now)}).</div>`;
}
