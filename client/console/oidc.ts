/**
 * Sign-in for people through the identity provider: authorization code with PKCE. The console keeps the
 * access token in its server-side session and calls the API with it, so the API verifies it as it verifies
 * any OIDC bearer token (issuer, audience, signature, expiry).
 */
export interface PendingOidc {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
}

export interface OidcSignIn {
  /** Where the identity provider sends the browser back: `<console origin>/sign-in/callback`. */
  readonly redirectUri: string;
  /** The identity provider's origin: the sign-in form's POST redirects there, so its CSP `form-action` allows it. */
  readonly providerOrigin: string;
  /** The authorization URL to send the browser to, and what the callback must match. */
  start(next: string): Promise<{ url: string; pending: PendingOidc }>;
  /** Exchanges the code of the callback URL (checking state, nonce and PKCE) for the access token. */
  finish(callbackUrl: URL, pending: PendingOidc): Promise<{ accessToken: string; expiresAt?: number }>;
}

export interface OidcSignInOptions {
  /** The identity provider's issuer URL (its discovery document is at `/.well-known/openid-configuration`). */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** `<console origin>/sign-in/callback`, as registered with the identity provider. */
  redirectUri: string;
  /** Default `openid profile`; add the scope that makes the provider issue an access token for the API. */
  scope?: string;
  /** RFC 8707 resource indicator for the API, when the provider needs one to put the API's audience in the token. */
  resource?: string;
  /** Only for tests against a provider on plain-http loopback. */
  allowInsecureRequests?: boolean;
}

/** Authorization code + PKCE (S256) with state and nonce, by openid-client; discovery happens on first use. */
export function createOidcSignIn(options: OidcSignInOptions): OidcSignIn {
  let configuration: Promise<import('openid-client').Configuration> | undefined;
  const load = async () => {
    const client = await import('openid-client');
    return client.discovery(new URL(options.issuer), options.clientId, options.clientSecret, undefined, {
      ...(options.allowInsecureRequests ? { execute: [client.allowInsecureRequests] } : {}),
    });
  };
  const config = () => {
    configuration ??= load().catch((error: unknown) => {
      configuration = undefined;
      throw error;
    });
    return configuration;
  };
  return {
    redirectUri: options.redirectUri,
    providerOrigin: new URL(options.issuer).origin,
    async start(next) {
      const client = await import('openid-client');
      const pending: PendingOidc = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
        next,
      };
      const url = client.buildAuthorizationUrl(await config(), {
        redirect_uri: options.redirectUri,
        scope: options.scope ?? 'openid profile',
        code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
        ...(options.resource ? { resource: options.resource } : {}),
      });
      return { url: url.href, pending };
    },
    async finish(callbackUrl, pending) {
      const client = await import('openid-client');
      const tokens = await client.authorizationCodeGrant(
        await config(),
        callbackUrl,
        {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        },
        options.resource ? { resource: options.resource } : undefined,
      );
      const expiresIn = tokens.expiresIn();
      return {
        accessToken: tokens.access_token,
        ...(expiresIn !== undefined ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
      };
    },
  };
}

/**
 * The console's OIDC sign-in from the environment: MVE_OIDC_ISSUER (shared with the API), MVE_CONSOLE_OIDC_CLIENT_ID,
 * MVE_CONSOLE_OIDC_CLIENT_SECRET (optional: a public client), MVE_CONSOLE_URL (the console's origin, for the
 * redirect URI), MVE_CONSOLE_OIDC_SCOPE, MVE_CONSOLE_OIDC_RESOURCE. undefined when no client id is set.
 */
export function oidcSignInFromEnv(env: NodeJS.ProcessEnv): OidcSignIn | undefined {
  const clientId = env['MVE_CONSOLE_OIDC_CLIENT_ID']?.trim();
  const issuer = env['MVE_OIDC_ISSUER']?.trim();
  const origin = env['MVE_CONSOLE_URL']?.trim();
  if (!clientId) return undefined;
  if (!issuer || !origin)
    throw new Error(
      "MVE_CONSOLE_OIDC_CLIENT_ID needs MVE_OIDC_ISSUER and MVE_CONSOLE_URL (the console's origin, e.g. https://mve-orders.example.com)",
    );
  return createOidcSignIn({
    issuer,
    clientId,
    ...(env['MVE_CONSOLE_OIDC_CLIENT_SECRET'] ? { clientSecret: env['MVE_CONSOLE_OIDC_CLIENT_SECRET'] } : {}),
    redirectUri: new URL('/sign-in/callback', origin).href,
    ...(env['MVE_CONSOLE_OIDC_SCOPE'] ? { scope: env['MVE_CONSOLE_OIDC_SCOPE'] } : {}),
    ...(env['MVE_CONSOLE_OIDC_RESOURCE'] ? { resource: env['MVE_CONSOLE_OIDC_RESOURCE'] } : {}),
  });
}
