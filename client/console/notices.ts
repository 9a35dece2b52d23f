/** What every page may tell the person in a box: the flash after an action, the API's refusal, a page of one message. */
import type { ApiFailure } from './api.js';
import { html, type Html } from './html.js';

/** The flash; `live` names it a live region (layout.ts), refreshed with the page. `info` tells of a change of course. */
export function flashNotice(flash: { kind: 'ok' | 'error' | 'info'; text: string } | undefined, live?: string): Html {
  if (!flash) return html``;
  return html`<div class="notice ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}" ${live ? html`data-live="${live}" ` : ''}data-testid="flash">${flash.text}</div>`;
}

export function failureNotice(failure: ApiFailure, lead?: string): Html {
  return html`<div class="notice error" role="alert" data-testid="error" data-code="${failure.code}">
    ${lead ? html`<p><strong>${lead}</strong></p>` : ''}
    <p>${failure.message} <span class="muted">(${failure.code})</span></p>
    ${failure.details.length ? html`<ul>${failure.details.map((d) => html`<li><code>${d.path}</code>: ${d.message}</li>`)}</ul>` : ''}
  </div>`;
}

export function messagePage(title: string, text: string | Html, testId = 'message'): Html {
  return html`<h1>${title}</h1><div class="notice info" role="status" data-testid="${testId}">${text}</div><p><a href="/">Back to the console</a></p>`;
}
