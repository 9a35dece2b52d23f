/**
 * Where ops check what the provider has (an uncertain buy's product, a product that did not go live): "the provider's
 * portal", and, when the console was told where that is (`ConsoleOptions.providerPortal`: `mve-orders dev` says its
 * simulator's `/_sim/state`), a link to it. Without it the console names no place it does not know.
 */
import { html, type Html } from './html.js';

export interface ProviderPortal {
  /** What the link says: "the API simulator's /_sim/state". */
  label: string;
  url: string;
}

/** "the provider's portal", or "the provider's portal (here: <link>)". */
export function portalWords(portal: ProviderPortal | undefined): Html {
  return portal
    ? html`the provider's portal (here: <a href="${portal.url}" data-testid="provider-portal">${portal.label}</a>)`
    : html`the provider's portal`;
}
