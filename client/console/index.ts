/**
 * The approvers' and ops' web console: server-rendered pages on the API's own fastify server, at `/`.
 * Every read and action goes through the HTTP API (in process) with the signed-in person's credential, so
 * the API's authorisation is the only rule set. Call `registerConsole` from `buildApiServer` before
 * `app.ready()`; see docs/console.md.
 *
 * One folder per page, each registering its own routes and rendering its own views: `sign-in/`, `inbox/` (`/`),
 * `order/` (`/orders/:orderId` and its forms), `commitments/` (`/commitments`), `ops/` (`/ops`). What they share: the page kit (kit.ts), the scope's
 * hooks (scope.ts), the layout, the HTML helpers, the notices and the API wrapper (api.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../http/context.js';
import { registerCommitmentsPage } from './commitments/routes.js';
import { registerInbox } from './inbox/routes.js';
import { ConsoleKit } from './kit.js';
import { registerOps } from './ops/routes.js';
import type { ConsoleOptions } from './options.js';
import { registerOrderPage } from './order/routes.js';
import { prepareScope } from './scope.js';
import { registerSignIn } from './sign-in/routes.js';

export { SessionStore } from './sessions.js';
export type { ConsoleSession, ConsoleUser } from './sessions.js';
export {
  createOidcSignIn,
  oidcSignInFromEnv,
  type OidcSignIn,
  type OidcSignInOptions,
  type PendingOidc,
} from './oidc.js';
export type { ConsoleOptions } from './options.js';
export type { ProviderPortal } from './portal.js';

/** Registers the console's routes (`/`, `/sign-in`, `/sign-out`, `/orders/:orderId`, `/commitments`, `/ops`) on `app`. */
export async function registerConsole(
  app: FastifyInstance,
  context: ApiContext,
  options: ConsoleOptions,
): Promise<void> {
  const kit = new ConsoleKit({
    sessions: options.sessions,
    target: options.api ?? app,
    secureCookies: options.secureCookies,
    now: options.now ?? Date.now,
    ...(options.oidc ? { providerOrigin: options.oidc.providerOrigin } : {}),
    ...(options.providerPortal ? { providerPortal: options.providerPortal } : {}),
  });
  await app.register((scope, _options, done) => {
    prepareScope(scope, kit, context.log);
    registerSignIn(scope, kit, { devUsers: options.devUsers ?? [], oidc: options.oidc, log: context.log });
    registerInbox(scope, kit);
    registerOrderPage(scope, kit);
    registerCommitmentsPage(scope, kit);
    registerOps(
      scope,
      kit,
      {
        expiryWarningMs: options.expiryWarningMs ?? 24 * 3600_000,
        slowProvisioningMs: options.slowProvisioningMs ?? 30 * 60_000,
      },
      options.providerPortal,
    );
    done();
  });
}
