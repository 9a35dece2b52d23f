/**
 * What the order page's forms ask of the API: a vote, a cancel, the answer to an uncertain buy. Each says, on
 * success, what the flash tells the person; else the API's refusal, for the page to show.
 */
import { failureOf, type ApiFailure, type ConsoleApi } from '../api.js';
import { money, moneyInText } from '../html.js';
import type { OrderPageExtras } from './page-data.js';

export type ActionOutcome = { ok: string } | { failure: ApiFailure; extras?: OrderPageExtras };

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
  if (answer.status === 200) return { ok: decided(decision, price, answer.body) };
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
  const body = created
    ? { outcome: 'created', technicalServiceUid: (form['technicalServiceUid'] ?? '').trim(), ...(note ? { note } : {}) }
    : { outcome: form['outcome'] ?? '', note };
  const answer = await api.call<{ state: string }>('POST', orderPath(orderId, 'resolve-buy'), body);
  if (answer.status !== 200) return { failure: failureOf(answer) };
  return {
    ok: created
      ? `Recorded as created; the order is ${answer.body.state}.`
      : `Recorded as not created; the order is ${answer.body.state} (it buys again).`,
  };
};

/**
 * What the flash says after a vote: what the person did and what it led to. The vote's answer gives the state at
 * that moment; an approved order moves on at once (re-checked, bought), so the flash says where it went and
 * leaves the state now to the badge below it, which follows the order.
 */
function decided(
  decision: 'approve' | 'reject',
  price: string,
  outcome: { state: string; stillNeeded: number },
): string {
  if (decision === 'reject')
    return `You rejected the order at ${price} a month. ${outcome.state === 'REJECTED' ? 'It is REJECTED: nothing is bought.' : `It is ${outcome.state}.`}`;
  if (outcome.state === 'AWAITING_APPROVAL')
    return `You approved ${price} a month. It still waits for ${outcome.stillNeeded} more approval${outcome.stillNeeded === 1 ? '' : 's'}.`;
  if (outcome.state === 'APPROVED')
    return `You approved ${price} a month, the last approval needed: the order goes on to be bought once its price is checked again. Its state below follows it.`;
  return `You approved ${price} a month. The order is ${outcome.state}.`;
}
