/**
 * A figure against its limit as a bar: plain inline SVG (no script, no style attribute: the page's policy allows
 * neither), with the figures in words beside it, so that being over budget is told in text and not by colour alone.
 * Amounts are shown as the API gives them (exact decimal strings) with their currency; numbers are taken from them
 * only to draw.
 */
import { html, type Html } from '../html.js';

export interface Measure {
  /** `run-rate` or `approved`: for tests and styles. */
  kind: string;
  /** What is measured ("Run-rate") and what limits it ("cap"). */
  label: string;
  limitName: string;
  currency: string;
  value: string;
  /**
   * What also counts against the limit, named and drawn apart: the run-rate cap counts the orders approved and not bought
   * yet, as the budget check does.
   */
  pending?: { label: string; value: string };
  /** null: the policy sets no such limit. */
  limit: string | null;
  /** The limit less the value, as the API gives it: negative when over. */
  remaining: string | null;
}

/** An amount exactly as the API wrote it, with its currency. */
export function amount(value: string, currency: string): Html {
  return html`<span class="amount">${value} ${currency}</span>`;
}

const WIDTH = 300;
const HEIGHT = 14;
const COLOURS = {
  within: '#1f6feb',
  pending: '#8cb4f5',
  over: '#a40e26',
  track: '#eaeef2',
  limit: '#1b1f24',
} as const;

export function budgetBar(measure: Measure): Html {
  const { kind, label, limitName, currency, value, limit, remaining, pending } = measure;
  const also = pending && Number(pending.value) !== 0 ? pending : undefined;
  const figures = html`<strong>${label}</strong> ${amount(value, currency)}${also ? html` (+ ${amount(also.value, currency)} ${also.label})` : ''}`;
  if (limit === null) {
    return html`<div class="bar" data-testid="bar" data-kind="${kind}" data-over="false">
      <div>${figures} <span class="muted">· no ${limitName} set</span></div>
    </div>`;
  }
  const over = remaining !== null && remaining.startsWith('-');
  const standing = over
    ? html`<strong class="over" data-testid="over-budget">Over ${limitName} by ${amount(remaining.slice(1), currency)}</strong>`
    : html`<span class="within">${amount(remaining ?? '0', currency)} left</span>`;
  return html`<div class="bar${over ? ' is-over' : ''}" data-testid="bar" data-kind="${kind}" data-over="${String(over)}">
      <div>${figures} of ${limitName} ${amount(limit, currency)} · ${standing}</div>
      ${barSvg(
        { value: Number(value), pending: Number(also?.value ?? 0), limit: Number(limit) },
        `${label} ${value} ${currency}${also ? ` and ${also.value} ${currency} ${also.label}` : ''} of ${limitName} ${limit} ${currency}${over ? ', over' : ''}`,
      )}
    </div>`;
}

/**
 * The bar: the value, then what is pending in a lighter shade, against the limit, a dark line; what passes the limit is
 * red. The scale is the larger of the whole and the limit.
 */
function barSvg(bar: { value: number; pending: number; limit: number }, description: string): Html {
  const whole = bar.value + bar.pending;
  const scale = Math.max(whole, bar.limit) || 1;
  const x = (amount: number) => Math.round((Math.max(amount, 0) / scale) * WIDTH * 10) / 10;
  const line = x(bar.limit);
  const upTo = (end: number) => Math.min(x(end), line);
  const valueEnd = upTo(bar.value);
  const pendingEnd = upTo(whole);
  return html`<svg class="bar-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${description}">
    <rect width="${WIDTH}" height="${HEIGHT}" fill="${COLOURS.track}"/>
    <rect width="${valueEnd}" height="${HEIGHT}" fill="${COLOURS.within}"/>
    ${pendingEnd > valueEnd ? html`<rect x="${valueEnd}" width="${Math.round((pendingEnd - valueEnd) * 10) / 10}" height="${HEIGHT}" fill="${COLOURS.pending}"/>` : ''}
    ${whole > bar.limit ? html`<rect x="${line}" width="${Math.round((x(whole) - line) * 10) / 10}" height="${HEIGHT}" fill="${COLOURS.over}"/>` : ''}
    <line x1="${line}" x2="${line}" y1="0" y2="${HEIGHT}" stroke="${COLOURS.limit}" stroke-width="2" vector-effect="non-scaling-stroke"/>
  </svg>`;
}
