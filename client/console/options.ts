/** How `registerConsole` is set up: sign-in, cookies, where the API is, the ops view's thresholds. */
import type { ApiTarget } from './api.js';
import type { OidcSignIn } from './oidc.js';
import type { ProviderPortal } from './portal.js';
import type { SessionStore } from './sessions.js';

/** A seeded user of `mve-orders dev`, signing in with their API token. */
export interface DevUser {
  id: string;
  roles: readonly string[];
  token: string;
}

export interface ConsoleOptions {
  /**
   * The seeded users of `mve-orders dev`, each signing in with their API token. Only `dev` passes these;
   * `serve` never does, and then no such button exists.
   */
  devUsers?: readonly DevUser[];
  /** Sign-in for people through the identity provider (authorization code + PKCE). */
  oidc?: OidcSignIn;
  /** Secure cookies (with the `__Host-` prefix): true everywhere but plain-http development. */
  secureCookies: boolean;
  /**
   * Where the console sends its API requests. Default: the app it is registered on (in process, `inject`).
   * Tests may register the console on a separate instance in front of an API that is already running.
   */
  api?: ApiTarget;
  /** Approvals whose deadline is nearer than this are listed under "needs attention" (default 24 h). */
  expiryWarningMs?: number;
  /** Orders in PROVISIONING unchanged for longer than this are listed under "needs attention" (default 30 min). */
  slowProvisioningMs?: number;
  /**
   * Where ops check the provider's products, linked wherever the console sends them to "the provider's portal" (an
   * uncertain buy, a product that did not go live). `mve-orders dev` sets it to its simulator's `/_sim/state`; `serve`
   * leaves it out, and the console then names no place.
   */
  providerPortal?: ProviderPortal;
  /**
   * Where sign-ins are kept: a SessionStore over the API's PostgreSQL, sealed with its codec keys, so every server
   * of the API shares them and the codec server takes the same cookie.
   */
  sessions: SessionStore;
  now?: () => number;
}
