/**
 * HTML built with a tagged template that escapes every interpolated value unless it is already `Html`
 * (made by this template or by `raw`). Nothing from an order, a user or the API reaches a page unescaped.
 */
import { describeDuration } from '../../domain/lifecycle/index.js';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new Html(out);
}

/** Trusted markup (constants of this module only). */
export function raw(text: string): Html {
  return new Html(text);
}

/**
 * An id or a name (a ticket id, a requester, a product name) that may be too long for its place: a line may break
 * after its dots, underscores, at signs and slashes (as after its hyphens), so it need not break inside a word.
 */
export function breakable(text: string): Html {
  return new Html(escapeHtml(text).replace(/([._@/])(?=[^\s])/g, '$1<wbr>'));
}

/** Amounts as people read them: "1,618.20 AUD". */
export function money(amount: number | string | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const value = Number(amount);
  if (!Number.isFinite(value)) return `${String(amount)} ${currency ?? ''}`.trim();
  const formatted = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(
    value,
  );
  return `${formatted}${currency ? ` ${currency}` : ''}`;
}

/**
 * Amounts inside the engine's own words ("1618.2 AUD needs the \"team\" tier") written as `money` writes them, so a
 * price reads the same in a reason, a note or an error as on the button. Only numbers followed by one of the
 * order's `currencies` are amounts (not "03:59 UTC").
 */
export function moneyInText(text: string, currencies: Iterable<string>): string {
  const codes = [...new Set(currencies)].filter((code) => /^[A-Z]{3}$/.test(code));
  if (codes.length === 0) return text;
  const amount = new RegExp(`(?<![\\d.,])(\\d+(?:\\.\\d+)?) (${codes.join('|')})\\b`, 'g');
  return text.replace(amount, (_match, value: string, currency: string) => money(value, currency));
}

/** "1 month", "12 months". */
export function months(count: number): string {
  return `${count} month${count === 1 ? '' : 's'}`;
}

/** What a monthly price comes to over a term of months (to the 4 decimals prices have). */
export function termTotal(monthlyRate: number, term: number): number {
  return Math.round(monthlyRate * term * 10_000) / 10_000;
}

/** What a term commits to: "1,618.20 AUD × 12 months = 19,418.40 AUD". */
export function commitment(monthlyRate: number, currency: string, term: number): string {
  return `${money(monthlyRate, currency)} × ${months(term)} = ${money(termTotal(monthlyRate, term), currency)}`;
}

/**
 * A time for people (UTC, to the minute) inside a machine-readable <time>. In a table whose column header says
 * "(UTC)", `{ zone: false }` leaves the zone out of each cell, to keep the column narrow.
 */
export function when(iso: string | null | undefined, options: { zone?: boolean } = {}): Html {
  if (!iso) return html`—`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')}${options.zone === false ? '' : ' UTC'}`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

/** For `when` in a table column whose header says "(UTC)". */
export const UTC_COLUMN = { zone: false } as const;

/** Time left until a deadline, or how long ago it passed. */
export function timeLeft(deadline: string | null | undefined, now = Date.now()): string {
  if (!deadline) return 'no deadline';
  const at = Date.parse(deadline);
  if (Number.isNaN(at)) return 'unknown';
  return at > now ? `${describeDuration(at - now)} left` : `deadline passed ${describeDuration(now - at)} ago`;
}

/** States in words, for the badge beside the state's code. */
export const STATE_WORDS: Record<string, string> = {
  RECEIVED: 'received, not yet looked at',
  LOOKING_UP: 'looking up the location and image',
  VALIDATING: 'getting a quote',
  AWAITING_APPROVAL: 'waiting for approval',
  APPROVED: 'approved, about to buy',
  BUYING: 'buying',
  BOUGHT: 'bought',
  BUY_UNCERTAIN: 'buy outcome unknown: ops must check and resolve',
  PROVISIONING: 'bought; being set up by the provider',
  LIVE: 'bought and live: the provider reports it running',
  PROVISIONING_FAILED: 'bought, but the provider reports it failed: ops must check it with the provider',
  PROVISIONING_STALLED: 'bought, but not live by its deadline: ops must check it with the provider',
  REJECTED: 'rejected',
  EXPIRED: 'expired: nobody decided before the deadline',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
};

/** An order's state as a badge, its code in the colours of its kind. */
export function stateBadge(state: string, testId?: string): Html {
  return html`<span class="state state-${state}" ${testId ? html`data-testid="${testId}"` : ''}>${state}</span>`;
}
