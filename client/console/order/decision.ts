/** Who may vote on an order now, and the form they vote with. */
import { notDecidable, voterRefusal, type VoteRefusalCode } from '../../../domain/approval/index.js';
import { approverRoles, type ApiOrder } from '../../orders/index.js';
import { budgetFiguresBlock } from '../budget-figures.js';
import { html, money, months, termTotal, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import { principalOf } from '../roles.js';
import type { ConsoleUser } from '../sessions.js';
import type { OrderPageData, OrderPageExtras } from './page-data.js';

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
function whyCannotDecide(order: ApiOrder, user: ConsoleUser): { reason: string; text: string } | undefined {
  const principal = principalOf(user);
  const voter = { id: principal.id, roles: approverRoles(principal), active: true };
  const tier = order.approval?.tier;
  const refusal =
    notDecidable(order.state, order.source !== 'records' && tier !== undefined) ??
    (tier && voterRefusal({ requesterId: order.requestedBy, tier }, principal.id, voter, order.approval?.votes ?? []));
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
export function whoDecides({ order, user }: OrderPageData): Html | string {
  const cannot = whyCannotDecide(order, user);
  const approval = order.approval;
  if (!cannot || cannot.reason === 'not-awaiting-approval' || !approval) return '';
  const needed = `${approval.stillNeeded} more approval${approval.stillNeeded === 1 ? '' : 's'} needed`;
  return html`<p data-testid="cannot-decide" data-reason="${cannot.reason}">Decided by ${approval.tier.roles.join(' or ')} (tier ${approval.tier.name}): ${needed}.${cannot.text ? ` ${cannot.text}` : ''}</p>`;
}

/**
 * The team's figures for whoever looks at an order awaiting a decision and cannot vote on it now (the decision form
 * shows them to whoever can).
 */
export function figuresForOthers(data: OrderPageData): Html | string {
  const { order, user } = data;
  if (!order.budget || (!whyCannotDecide(order, user) && order.quote)) return '';
  return budgetFiguresBlock(order.budget);
}

/** The decision form, for someone who may vote now; an empty live region otherwise (so it empties live too). */
export function decisionSection(data: OrderPageData, extras: OrderPageExtras): Html {
  const { order, user, session } = data;
  const quote = order.quote;
  if (whyCannotDecide(order, user) || !quote) return html`<div data-live="decision"></div>`;
  const term = order.ordered?.term;
  return html`<section data-live="decision" aria-labelledby="decision-heading"><h2 id="decision-heading">Your decision</h2>
    <form method="post" action="/orders/${encodeURIComponent(order.orderId)}/decide" class="stack" data-testid="decision-form">
      ${csrfField(session)}
      <input type="hidden" name="monthlyRate" value="${String(quote.monthlyRate)}">
      <input type="hidden" name="currency" value="${quote.currency}">
      <p>You are deciding on <strong>${money(quote.monthlyRate, quote.currency)} a month</strong>${term !== undefined ? html` for ${months(term)}: <strong data-testid="decision-commitment">${money(termTotal(quote.monthlyRate, term), quote.currency)}</strong> over the term` : ''}${order.approval ? html` (tier <strong>${order.approval.tier.name}</strong>, ${order.approval.stillNeeded} approval${order.approval.stillNeeded === 1 ? '' : 's'} still needed)` : ''}. If the price changes before you send this, your vote is refused and you are shown the new price.</p>
      ${order.budget ? budgetFiguresBlock(order.budget) : ''}
      <label for="decision-comment">Comment <span class="muted">(optional to approve; required to reject: say why)</span></label>
      <textarea id="decision-comment" name="comment" maxlength="2000" data-testid="decision-comment">${extras.comment ?? ''}</textarea>
      <p class="notice info" data-changed-note hidden>This order changed while you were typing. When you send, your decision is checked against the current price.</p>
      <div class="buttons">
        <button type="submit" name="decision" value="approve" class="primary" data-testid="approve-button">Approve ${money(quote.monthlyRate, quote.currency)} a month</button>
        <button type="submit" name="decision" value="reject" class="danger" data-testid="reject-button">Reject</button>
      </div>
    </form></section>`;
}
