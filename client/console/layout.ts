import { html, raw, type Html } from './html.js';
import { mayReadCommitments } from './roles.js';
import type { ConsoleSession } from './sessions.js';

/**
 * The CSS that shows the tables `t` selects as cards, one a row (a <tbody>, with its detail line), each cell labelled
 * with its column's name beside it (`data-label`): a label longer than its place wraps, and its cell grows with it.
 */
function cardRules(t: string): string {
  return `
  ${t}, ${t} > tbody, ${t} > tbody > tr { display: block; }
  ${t} > thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  ${t} > tbody { border: 1px solid var(--line); border-radius: .4rem; margin: .6rem 0; padding: .4rem .7rem; }
  ${t} > caption { display: block; }
  ${t} > tbody > tr > th, ${t} > tbody > tr > td { display: flow-root; border: 0; background: none; padding: .1rem 0 .1rem 8rem; text-align: left; white-space: normal; min-width: 0; overflow-wrap: anywhere; }
  ${t} > tbody > tr > :empty { display: none; }
  ${t} > tbody > tr > [data-label]::before { content: attr(data-label); float: left; width: 7.5rem; margin-left: -8rem; color: var(--muted); font-weight: 400; font-size: .875rem; line-height: 1.5rem; overflow-wrap: break-word; }
  ${t} > tbody > tr.detail > td { padding: .3rem 0 .1rem; } ${t} td.event > code { white-space: normal; } ${t} .clamp { -webkit-line-clamp: 4; line-clamp: 4; }
  ${t} > tbody > tr > td.prose { padding-left: 0; } ${t} > tbody > tr > td.prose::before { float: none; display: block; width: auto; margin: 0; }`;
}

const CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b57d0; --ok: #116329; --bad: #a40e26; --warn: #7d4e00; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; }
header.top { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; padding: .6rem 1.5rem; border-bottom: 1px solid var(--line); background: #f6f8fa; }
header.top .brand { font-weight: 700; margin-right: auto; }
header.top nav a { margin-right: 1rem; }
header.top form { display: inline; }
main { padding: 1rem 1.5rem 3rem; max-width: 78rem; overflow-wrap: break-word; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
caption { text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
th { background: #f6f8fa; font-weight: 600; } td.num { text-align: right; white-space: nowrap; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1.2rem; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; }
.prose, .id { overflow-wrap: anywhere; } td.prose { min-width: 12rem; } .id { min-width: 6rem; } .ticket { min-width: 9rem; } td.what { min-width: 10rem; } td.time-left, .amount, td.event > code { white-space: nowrap; } td.price { text-align: right; }
tr.has-detail > * { border-bottom: 0; } tr.detail > td { padding-top: 0; font-size: .9375rem; } tr.detail > td > * { width: 0; min-width: 100%; }
.clamp { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; line-clamp: 2; overflow: hidden; overflow-wrap: anywhere; }
.detail-label { font-weight: 600; color: var(--bad); }
.state { display: inline-block; padding: .05rem .5rem; border-radius: 1rem; border: 1px solid var(--line); font-weight: 600; font-family: ui-monospace, monospace; font-size: .9rem; }
.state-BOUGHT, .state-LIVE { background: #dafbe1; color: var(--ok); } .state-REJECTED, .state-FAILED, .state-EXPIRED, .state-CANCELLED, .state-PROVISIONING_FAILED { background: #ffebe9; color: var(--bad); }
.state-BUY_UNCERTAIN, .state-PROVISIONING_STALLED { background: #fff8c5; color: var(--warn); } .state-AWAITING_APPROVAL, .state-PROVISIONING { background: #ddf4ff; color: #0550ae; }
.notice { padding: .6rem .9rem; border-radius: .4rem; border: 1px solid var(--line); margin: .8rem 0; }
.notice.ok { background: #dafbe1; border-color: #4ac26b; } .notice.error { background: #ffebe9; border-color: #ff8182; } .notice.info { background: #ddf4ff; border-color: #54aeff; }
.muted { color: var(--muted); } .urgent { color: var(--bad); font-weight: 600; }
form.stack { display: grid; gap: .5rem; max-width: 40rem; }
label { font-weight: 600; }
input[type=text], input[type=search], input[type=month], select, textarea { font: inherit; padding: .35rem .5rem; border: 1px solid #8c959f; border-radius: .3rem; width: 100%; }
textarea { min-height: 4.5rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: .35rem; border: 1px solid #8c959f; background: #f6f8fa; cursor: pointer; }
button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; font-weight: 600; }
button.danger { background: #fff; border-color: var(--bad); color: var(--bad); font-weight: 600; }
button:focus-visible, a:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.buttons { display: flex; gap: .6rem; flex-wrap: wrap; }
.filters { display: flex; gap: .8rem; flex-wrap: wrap; align-items: end; } .filters > div { display: grid; gap: .2rem; min-width: 10rem; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(22rem, 100%), 1fr)); gap: 0 2rem; }
.signin-users { display: flex; gap: .6rem; flex-wrap: wrap; }
.signin-users button { min-width: 10rem; text-align: left; } .signin-users small { display: block; color: var(--muted); font-weight: 400; }
time, td.num, th.num { white-space: nowrap; }
code { font-family: ui-monospace, monospace; font-size: .9em; }
@media (max-width: 70rem) {
${cardRules('table.cards.wide')}
  table.cards.wide { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(21rem, 100%), 1fr)); gap: 0 .8rem; }
  table.cards.wide > caption { grid-column: 1 / -1; } table.cards.wide > tbody { margin: .3rem 0; }
}
@media (max-width: 40rem) {
  header.top { padding: .5rem 1rem; gap: .5rem 1rem; } main { padding: .5rem 1rem 2rem; }
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; } dl.facts dd { margin-bottom: .4rem; }
${cardRules('table.cards')}
}
nav.month-picker { display: flex; flex-wrap: wrap; gap: .3rem 1rem; align-items: baseline; justify-content: space-between; margin: 0 0 .8rem; }
.team-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(24rem, 100%), 1fr)); gap: .8rem; }
.team-card { border: 1px solid var(--line); border-radius: .4rem; padding: .2rem .9rem .4rem; } .team-card h3 { overflow-wrap: anywhere; } .team-card p { margin: .3rem 0 0; font-size: .9rem; } td.term { white-space: nowrap; }
.bar { margin: .5rem 0; } .bar-svg { display: block; margin-top: .2rem; border-radius: .2rem; } .bar .over { color: var(--bad); } .bar.is-over .bar-svg { outline: 2px solid var(--bad); outline-offset: 1px; }
details > summary { cursor: pointer; } details > summary h2.inline { display: inline; border: 0; } code.wrap, pre.wrap { white-space: pre-wrap; word-break: break-word; } pre.wrap { margin: .3rem 0; font-size: .85em; }
`;

/**
 * Live regions: every element with `data-live="name"` is refreshed from a fresh render of the page (at the
 * path in `data-live-src` on <body>) every 2 seconds, without reloading. A region holding a form the user
 * has started to fill in is left alone (a note says it changed). Pages work fully without this script.
 */
const LIVE_SCRIPT = `
(() => {
  const src = document.body.dataset.liveSrc;
  if (!src || !document.querySelector('[data-live]')) return;
  const editing = (region) => {
    if (region.contains(document.activeElement) && document.activeElement.matches('input, textarea, select')) return true;
    return [...region.querySelectorAll('textarea, input[type=text]')].some((field) => field.value !== field.defaultValue);
  };
  let busy = false, stopped = false;
  const tick = async () => {
    if (busy || stopped || document.hidden) return;
    busy = true;
    try {
      const response = await fetch(src, { headers: { 'x-console-live': '1' }, credentials: 'same-origin', cache: 'no-store' });
      if (response.redirected || response.status === 401 || response.status === 403) { stopped = true; return; }
      if (!response.ok) return;
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      for (const fresh of next.querySelectorAll('[data-live]')) {
        const current = document.querySelector('[data-live="' + fresh.dataset.live + '"]');
        if (!current || current.outerHTML === fresh.outerHTML) continue;
        if (editing(current)) {
          const note = current.querySelector('[data-changed-note]');
          if (note) note.hidden = false;
          continue;
        }
        current.replaceWith(document.importNode(fresh, true));
      }
      document.body.dataset.liveUpdated = String(Date.now());
    } catch { /* the next tick tries again */ } finally { busy = false; }
  };
  setInterval(tick, 2000);
})();
`;

/** The console's icon (served at `/favicon.svg`): without one, browsers ask for /favicon.ico and log its 404. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M3.5 12V4.5L8 9l4.5-4.5V12" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/></svg>`;

export interface PageOptions {
  title: string;
  session: ConsoleSession | undefined;
  nonce: string;
  body: Html;
  /** The GET path the live script refreshes this page's `data-live` regions from; omitted: no live updates. */
  liveSrc?: string;
  /** Which navigation entry is current. */
  current?: 'inbox' | 'commitments' | 'ops' | 'sign-in';
  /**
   * The copy a live refresh fetches: without the style and the script, which the live script's parser would
   * otherwise try to apply under the page's own policy, and be refused (their nonce is this copy's, not the page's).
   */
  refresh?: boolean;
}

export function page({ title, session, nonce, body, liveSrc, current, refresh }: PageOptions): string {
  const user = session?.user;
  const nav = user
    ? html`<nav aria-label="Main">
        <a href="/" ${current === 'inbox' ? raw('aria-current="page"') : ''}>${user.can.approve ? 'Approvals inbox' : 'Orders'}</a>
        ${mayReadCommitments(user) ? html`<a href="/commitments" ${current === 'commitments' ? raw('aria-current="page"') : ''}>Commitments</a>` : ''}
        ${user.roles.includes('ops') || user.roles.includes('admin') ? html`<a href="/ops" ${current === 'ops' ? raw('aria-current="page"') : ''}>Ops</a>` : ''}
      </nav>
      <span>Signed in as <strong data-testid="signed-in-as">${user.id}</strong> <span class="muted">(${user.roles.join(', ')})</span></span>
      <form method="post" action="/sign-out">${csrfField(session)}<button type="submit" data-testid="sign-out">Sign out</button></form>`
    : html``;
  return `<!doctype html>
${
  html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · mve-orders</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${refresh ? '' : html`<style nonce="${nonce}">${raw(CSS)}</style>`}
</head>
<body ${liveSrc ? html`data-live-src="${liveSrc}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">mve-orders console</span>${nav}</header>
<main id="main" tabindex="-1">
${body}
</main>
${liveSrc && !refresh ? html`<script nonce="${nonce}">${raw(LIVE_SCRIPT)}</script>` : ''}
</body>
</html>`.text
}`;
}

export function csrfField(session: ConsoleSession | undefined): Html {
  return session ? html`<input type="hidden" name="_csrf" value="${session.csrf}">` : html``;
}
