/**
 * What the order page's forms ask of the API: a vote, a cancel, the answer to an uncertain buy. Each says, on
 * success, what the flash tells the person; else the API's refusal, for the page to show.
 */
import type { ApiOrder } from '../../orders/index.js';
import { failureOf, type ApiFailure, type ConsoleApi } from '../api.js';
import { money, moneyInText } from '../html.js';
import type { VoteFlash } from '../sessions.js';
import type { OrderPageExtras } from './page-data.js';

/** `vote`: the flash follows the order, to tell what became of the vote (`voteNotice`). */
export type ActionOutcome = { ok: string; vote?: VoteFlash } | { failure: ApiFailure; extras?: OrderPageExtras };

export type OrderAction = (api: ConsoleApi, orderId: string, form: Record<string, string>) => Promise<ActionOutcome>;

const orderPath = (orderId: string, action: string) => `/api/v1/orders/${encodeURIComponent(orderId)}/${action}`;

/** Approve or reject the price the form showed; a changed price is refused and the page shows the new one. */
export const decide: OrderAction = async (api, orderId, form) => {
  const decision = form['decision'] === 'reject' ? 'reject' : 'approve';
  const shown = {
    monthlyRate:
      form['monthlyRate'] !== undefined && form['monthlyRate'] !== '' ? Number(form['monthlyRate']) : undefined,
    currency: form['currency'],
  };
  const comment = (form['comment'] ?? '').trim();
  const body = decision === 'approve' ? { ...shown, ...(comment ? { comment } : {}) } : { ...shown, reason: comment };
  const answer = await api.call<{ state: string; approvedBy: string[]; stillNeeded: number }>(
    'POST',
    orderPath(orderId, decision),
    body,
  );
  const price = money(shown.monthlyRate ?? null, shown.currency ?? null);
  if (answer.status === 200) {
    const vote: VoteFlash = {
      orderId,
      decision,
      monthlyRate: shown.monthlyRate ?? null,
      currency: shown.currency ?? null,
      closedRound: answer.body.state !== 'AWAITING_APPROVAL',
    };
    return { ok: decided(decision, price, answer.body), vote };
  }
  const failure = failureOf(answer);
  if (failure.code === 'QUOTE_NOT_CURRENT') {
    failure.message = `The price changed since the page was loaded: you were shown ${price} a month. ${moneyInText(failure.message, shown.currency ? [shown.currency] : [])}. Check the new price below and decide again.`;
  }
  return { failure, extras: { comment } };
};

export const cancel: OrderAction = async (api, orderId, form) => {
  const answer = await api.call<{ state: string }>('POST', orderPath(orderId, 'cancel'), {
    reason: form['reason'] ?? '',
  });
  return answer.status === 200
    ? { ok: `The order was cancelled (${answer.body.state}).` }
    : { failure: failureOf(answer) };
};

/** Ops' answer to an uncertain buy: created (with the product's UID) or not created (the order buys again). */
export const resolveBuy: OrderAction = async (api, orderId, form) => {
  const note = (form['note'] ?? '').trim();
  const created = form['outcome'] === 'created';
  // the attempt the page showed; a missing or mangled one is the API's to refuse, naming the field
  const attempt = /^\d+$/.test(form['attempt'] ?? '') ? Number(form['attempt']) : form['attempt'];
  const body = created
    ? {
        outcome: 'created',
        attempt,
        technicalServiceUid: (form['technicalServiceUid'] ?? '').trim(),
        ...(note ? { note } : {}),
      }
    : { outcome: form['outcome'] ?? '', attempt, note };
  const answer = await api.call<{ state: string }>('POST', orderPath(orderId, 'resolve-buy'), body);
  if (answer.status !== 200) return { failure: failureOf(answer) };
  return {
    ok: created
      ? `Recorded as created; the order is ${answer.body.state}.`
      : `Recorded as not created; the order is ${answer.body.state} (it buys again).`,
  };
};

/**
 * What the flash says after a vote when the order cannot be read: what the person did and what the vote's answer
 * said. Otherwise the flash is `voteNotice`'s, from the order as it is.
 */
function decided(
  decision: 'approve' | 'reject',
  price: string,
  outcome: { state: string; stillNeeded: number },
): string {
  if (decision === 'reject') return `You rejected the order at ${price} a month. It is ${outcome.state}.`;
  if (outcome.state === 'AWAITING_APPROVAL')
    return `You approved ${price} a month. It still waited for ${approvals(outcome.stillNeeded)} then.`;
  return `You approved ${price} a month, the last approval needed. ${RECHECK_RULE}`;
}

const RECHECK_RULE =
  'Before it is bought its price is checked again: unless the price changed beyond what the approval covers, it is bought; if it did, it comes back for approval at the new price.';

const approvals = (count: number) => `${count} more approval${count === 1 ? '' : 's'}`;

/** The states in which the order was bought, whatever became of the product since. */
const BOUGHT = new Set(['BOUGHT', 'PROVISIONING', 'LIVE', 'PROVISIONING_FAILED', 'PROVISIONING_STALLED']);

/**
 * What the flash after a vote says, from the order as it is now: the page shows it when it loads and again at each
 * live refresh, so it follows the order. After the last approval the order is checked again before it is bought, and
 * a price that changed beyond the approval sends it back for approval: the flash then says so, in `info` colours.
 */
export function voteNotice(vote: VoteFlash, order: ApiOrder): { kind: 'ok' | 'info'; text: string } {
  const price = money(vote.monthlyRate, vote.currency);
  const quote = order.quote;
  const now = quote ? `${money(quote.monthlyRate, quote.currency)} a month` : 'a price not known yet';
  if (vote.decision === 'reject')
    return {
      kind: 'ok',
      text: `You rejected the order at ${price} a month. ${order.state === 'REJECTED' ? 'It is REJECTED: nothing is bought.' : `It is ${order.state}.`}`,
    };
  const you = `You approved ${price} a month${vote.closedRound ? ', the last approval needed' : ''}`;
  const samePrice = quote?.monthlyRate === vote.monthlyRate && quote?.currency === vote.currency;
  if (order.state === 'AWAITING_APPROVAL' && vote.closedRound && !samePrice)
    return {
      kind: 'info',
      text: `${you}. Checked again before buying, its price is now ${now}, which your approval does not cover: the order is back in AWAITING_APPROVAL and waits for approval at the new price.`,
    };
  return { kind: 'ok', text: `${you}. ${whereItIs(order, now)}` };
}

function whereItIs(order: ApiOrder, now: string): string {
  const { state } = order;
  if (state === 'AWAITING_APPROVAL') return `It waits for ${approvals(order.approval?.stillNeeded ?? 0)}.`;
  if (state === 'APPROVED' || state === 'VALIDATING') return RECHECK_RULE;
  if (state === 'BUYING') return `Its price checked again, it is being bought at ${now}.`;
  if (state === 'BUY_UNCERTAIN') return 'Whether the buy went through is not known: ops check it with the provider.';
  if (BOUGHT.has(state)) return `It was bought at ${now}.`;
  return `The order is ${state}.`;
}
