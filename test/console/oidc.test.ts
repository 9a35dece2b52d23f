/**
 * Production sign-in: authorization code + PKCE with openid-client against a real identity provider
 * (oidc-provider on loopback, its development login pages), in chromium. The access token it issues (a JWT
 * for the API's audience, with username and roles) is what the console calls the API with; the API verifies
 * it as it verifies any OIDC bearer token.
 */
import anyTest, { type TestFn } from 'ava';
import { createServer, type RequestListener, type Server } from 'node:http';
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import OidcProvider from 'oidc-provider';
import { createOidcSignIn, registerConsole } from '../../client/console/index.js';
import { buildApiServer, createAuthenticator } from '../../client/http/index.js';
import { createOidcVerifier } from '../../client/http/auth/oidc.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { launchChromium, sessionsOf, waitForApiState } from './harness.js';
import type { Browser } from 'playwright-core';

const test = anyTest as TestFn<{
  api: ApiEngine;
  idp: Server;
  oidcApi: FastifyInstance;
  console: FastifyInstance;
  consoleUrl: string;
  browser: Browser;
}>;
const pg = usePostgres(test);
const ROLES: Record<string, string[]> = { fiona: ['finance-approver'], olga: ['ops'] };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** What this test uses of oidc-provider, which ships no types: an identity provider whose callback serves HTTP. */
type ProviderClass = new (issuer: string, configuration: object) => { callback(): RequestListener };

test.before(async (t) => {
  const api = await startApiEngine(pg);
  const idpPort = await freePort();
  const consolePort = await freePort();
  const issuer = `http://127.0.0.1:${idpPort}`;
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const provider = new (OidcProvider as ProviderClass)(issuer, {
    clients: [
      {
        client_id: 'mve-console',
        client_secret: 'console-secret',
        redirect_uris: [`${consoleUrl}/sign-in/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    cookies: { keys: ['test-cookie-key'] },
    // the provider awaits what these give: plain values will do
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, preferred_username: id }),
    }),
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'urn:mve-api',
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'api',
          audience: 'mve-api',
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { accountId: string }) => ({
      preferred_username: token.accountId,
      roles: ROLES[token.accountId] ?? [],
    }),
  });
  const idp = createServer(provider.callback());
  await new Promise<void>((resolve) => idp.listen(idpPort, '127.0.0.1', resolve));

  // The API as `serve` builds it with an issuer configured: API tokens and OIDC JWTs.
  const context = {
    ...api.context,
    authenticator: createAuthenticator({
      tokens: api.repository,
      oidc: createOidcVerifier({
        issuer,
        audience: 'mve-api',
        rolesClaim: 'roles',
        usernameClaim: 'preferred_username',
      }),
    }),
  };
  const oidcApi = await buildApiServer({
    context,
    readiness: { temporal: () => Promise.resolve(), postgres: () => Promise.resolve() },
  });
  const app = Fastify({ logger: false });
  const oidc = createOidcSignIn({
    issuer,
    clientId: 'mve-console',
    clientSecret: 'console-secret',
    redirectUri: `${consoleUrl}/sign-in/callback`,
    scope: 'openid profile api',
    resource: 'urn:mve-api',
    allowInsecureRequests: true,
  });
  await registerConsole(app, context, { sessions: sessionsOf(api), api: oidcApi, oidc, secureCookies: false });
  await app.listen({ host: '127.0.0.1', port: consolePort });
  Object.assign(t.context, { api, idp, oidcApi, console: app, consoleUrl, browser: await launchChromium() });
});
test.after.always(async (t) => {
  await t.context.browser?.close();
  await t.context.console?.close();
  await t.context.oidcApi?.close();
  await new Promise((resolve) => t.context.idp?.close(resolve));
  await t.context.api?.stop();
});

test.serial('fiona signs in with the identity provider (code + PKCE) and approves as herself', async (t) => {
  const { api, consoleUrl, browser } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: sydneyRequest('OIDC-1', { size: 'MVE 8/32' }),
  });
  t.is(submitted.status, 201);
  await waitForApiState(api, 'OIDC-1', 'AWAITING_APPROVAL');

  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${consoleUrl}/orders/OIDC-1`);
    t.regex(page.url(), /\/sign-in\?next=/);
    t.is(
      await page.locator('[data-testid^="sign-in-"]:not([data-testid="sign-in-oidc"])').count(),
      0,
      'no dev users in production',
    );
    await page.getByTestId('sign-in-oidc').click();
    // oidc-provider's development login and consent pages.
    await page.locator('input[name=login]').fill('fiona');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    const consent = page.locator('button[type=submit]', { hasText: /continue/i });
    if (await consent.count()) await consent.click();
    await page.waitForURL(`${consoleUrl}/orders/OIDC-1`);
    t.is(await page.getByTestId('signed-in-as').innerText(), 'fiona');
    await page.getByTestId('approve-button').click();
    await page.waitForURL(/\/orders\/OIDC-1\.[0-9a-f]{10}$/);
    t.regex(await page.getByTestId('flash').innerText(), /You approved 1,618\.20 AUD a month/);
    const order = await waitForApiState(api, 'OIDC-1', 'BOUGHT');
    t.like(order.approval?.votes, [{ approverId: 'fiona', decision: 'approve' }]);
  } finally {
    await context.close();
  }
});

test.serial('a callback that this session did not start is refused', async (t) => {
  const response = await fetch(`${t.context.consoleUrl}/sign-in/callback?code=abc&state=forged`, {
    redirect: 'manual',
  });
  t.is(response.status, 400);
  t.regex(await response.text(), /not started here/);
});
