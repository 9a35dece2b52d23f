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
const COLOURS = { within: '#1f6feb', over: '#a40e26', track: '#eaeef2', limit: '#1b1f24' } as const;

export function budgetBar(measure: Measure): Html {
  const { kind, label, limitName, currency, value, limit, remaining } = measure;
  if (limit === null) {
    return html`<div class="bar" data-testid="bar" data-kind="${kind}" data-over="false">
      <div><strong>${label}</strong> ${amount(value, currency)} <span class="muted">· no ${limitName} set</span></div>
    </div>`;
  }
  const over = remaining !== null && remaining.startsWith('-');
  const standing = over
    ? html`<strong class="over" data-testid="over-budget">Over ${limitName} by ${amount(remaining.slice(1), currency)}</strong>`
    : html`<span class="within">${amount(remaining ?? '0', currency)} left</span>`;
  return html`<div class="bar${over ? ' is-over' : ''}" data-testid="bar" data-kind="${kind}" data-over="${String(over)}">
      <div><strong>${label}</strong> ${amount(value, currency)} of ${limitName} ${amount(limit, currency)} · ${standing}</div>
      ${barSvg(Number(value), Number(limit), `${label} ${value} ${currency} of ${limitName} ${limit} ${currency}${over ? ', over' : ''}`)}
    </div>`;
}

/** The bar: the scale is the larger of value and limit, the limit a dark line, what is over it red. */
function barSvg(value: number, limit: number, description: string): Html {
  const scale = Math.max(value, limit) || 1;
  const x = (amount: number) => Math.round((Math.max(amount, 0) / scale) * WIDTH * 10) / 10;
  const filled = x(value);
  const line = x(limit);
  const over = value > limit;
  return html`<svg class="bar-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${description}">
    <rect width="${WIDTH}" height="${HEIGHT}" fill="${COLOURS.track}"/>
    <rect width="${over ? line : filled}" height="${HEIGHT}" fill="${COLOURS.within}"/>
    ${over ? html`<rect x="${line}" width="${filled - line}" height="${HEIGHT}" fill="${COLOURS.over}"/>` : ''}
    <line x1="${line}" x2="${line}" y1="0" y2="${HEIGHT}" stroke="${COLOURS.limit}" stroke-width="2" vector-effect="non-scaling-stroke"/>
  </svg>`;
}
